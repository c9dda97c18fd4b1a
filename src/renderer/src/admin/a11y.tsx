import { Box, Table, VisuallyHidden } from '@mantine/core';
import { type KeyboardEvent, type ReactNode, type Ref, type RefCallback, useState } from 'react';
import { fieldErrorRef } from '../a11y/field-error';
import classes from './admin-layout.module.css';
import { useAdminStrings } from './strings';
import { useScrollEdges } from './use-scroll-edges';

/**
 * A table that scrolls sideways in its own box when the window is narrow, not the page; a shadow
 * at an edge says there is more that way (`data-more-left`, `data-more-right`).
 */
export function TableScroll({ children }: { children: ReactNode }) {
  const [box, setBox] = useState<HTMLDivElement | null>(null);
  const more = useScrollEdges(box);
  return (
    <Box className={classes.scrollFrame} data-table-scroll data-more-left={more.left || undefined} data-more-right={more.right || undefined}>
      <Box ref={setBox} className={classes.scroll}>
        {children}
      </Box>
    </Box>
  );
}

/** The class of a table whose rows stack into labelled lines in a narrow window (its cells carry data-label). */
export const stackedTable = classes.stacked;

/** The header of a column of buttons: no visible text, a name for screen readers. */
export function ActionsHeader() {
  const t = useAdminStrings();
  return (
    <Table.Th>
      <VisuallyHidden>{t.actions}</VisuallyHidden>
    </Table.Th>
  );
}

/** A refusal shown on the page (the id of the alert that says it) and the field it is about (the node's name for it). */
export interface FieldProblem {
  messageId: string;
  field: string | null;
}

/**
 * The field a shown refusal is about, red (Mantine's error look, without its text: the page's
 * alert says it once) and marked invalid and described by that alert (fieldErrorRef, as on the
 * cashier's screens). `own` is the field's own ref, if it has one.
 */
export function invalidProps(problem: FieldProblem | null | undefined, field: string, own?: Ref<HTMLElement | null>): { error?: true; ref: RefCallback<HTMLElement> } {
  const about = problem && problem.field === field ? problem : null;
  // No `error: false`: a field's own error (WholeNumberInput's "whole numbers only") stays its own.
  return { ...(about ? { error: true as const } : {}), ref: fieldErrorRef(about?.messageId ?? null, own) };
}

/**
 * Esc in a row edited in place cancels the editing, as the row's Cancel does; not while a dropdown
 * in the row is open (Esc closes that first).
 */
export function escapeCancels(cancel: () => void) {
  return (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    if ((event.target as HTMLElement).getAttribute('aria-expanded') === 'true') return;
    event.preventDefault();
    cancel();
  };
}

/**
 * A chart read as one picture with a summary, out of the tab order: its parts had tab stops with
 * no names (recharts' keyboard layer, turned off on the chart too), and its figures are in a table.
 */
export function ChartFrame({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box role="img" aria-label={label}>
      {children}
    </Box>
  );
}
