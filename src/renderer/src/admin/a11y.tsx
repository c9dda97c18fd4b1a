import { Box, Table, VisuallyHidden } from '@mantine/core';
import type { KeyboardEvent, ReactNode } from 'react';
import classes from './admin-layout.module.css';
import { useAdminStrings } from './strings';

/** A table that scrolls sideways in its own box when the window is narrow, not the page. */
export function TableScroll({ children }: { children: ReactNode }) {
  return <Box className={classes.scroll}>{children}</Box>;
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

/** A refusal shown on the page (its text) and the field it is about (the node's name for it). */
export interface FieldProblem {
  text: string;
  field: string | null;
}

/**
 * The field a shown refusal is about, marked invalid and described by the refusal: Mantine sets
 * aria-invalid and aria-describedby only from its own `error`, so the text is given there too,
 * hidden on screen (the page already shows it once, in its alert).
 */
export function invalidProps(problem: FieldProblem | null | undefined, field: string): { error?: string; errorProps?: { className: string } } {
  return problem && problem.field === field ? { error: problem.text, errorProps: { className: classes.offScreen! } } : {};
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
