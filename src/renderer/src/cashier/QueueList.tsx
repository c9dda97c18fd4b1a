import { Alert, Badge, Button, Group, Paper, Skeleton, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type RefObject, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useLanguage } from '../i18n/language-store';
import { useCashier, useCustomer, useQueue } from './context';
import { fullName } from './customer-name';
import type { QueueSession } from './queue-store';
import { formatTime, useCashierStrings } from './strings';

function QueueRow({ entry, highlighted, open, clamp }: { entry: QueueSession; highlighted: boolean; open: boolean; clamp: boolean }) {
  const t = useCashierStrings();
  const language = useLanguage();
  const cashier = useCashier();
  const method = useQueue((s) => s.methods[entry.hash]);
  const name = fullName(entry.user, entry.user.email_address);
  return (
    <li aria-label={name} aria-current={open ? 'true' : undefined} data-testid="queue-entry" data-hash={entry.hash} style={{ listStyle: 'none' }}>
      <UnstyledButton
        w="100%"
        p="md"
        mih={72}
        data-queue-row={entry.hash}
        // The focus is on this button: it says it is the customer open in the panel (the row says it too).
        aria-current={open ? 'true' : undefined}
        onClick={() => void cashier.openSession(entry.hash, entry.id)}
        style={{
          borderRadius: 'var(--mantine-radius-md)',
          // Teal 8: 3:1 and more against the open row's teal 1 and the others' gray 0 (teal 6 was 2.55:1).
          border: `2px solid ${highlighted ? 'var(--mantine-color-teal-8)' : 'transparent'}`,
          background: open ? 'var(--mantine-color-teal-light)' : 'var(--mantine-color-gray-0)',
        }}
      >
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Stack gap={2} style={{ minWidth: 0 }}>
            {/* Two lines, breaking between words (or inside one too long): a cut name was unreadable at 1024 px. Zoomed in (a narrow window), the whole name. */}
            <Text fw={600} size="lg" lineClamp={clamp ? 2 : undefined} title={name} style={{ overflowWrap: 'anywhere' }} data-testid="queue-name">
              {name}
            </Text>
            <Text size="sm" c="dimmed">
              {t.checkedInAt(formatTime(entry.date_created, language))}
            </Text>
          </Stack>
          {method && (
            <Badge variant="light" color="gray" size="lg" style={{ flexShrink: 0 }}>
              {t.method(method)}
            </Badge>
          )}
        </Group>
      </UnstyledButton>
    </li>
  );
}

/** Space kept below the queue, and the least height it gets however little room is left. */
const BOTTOM_GAP = 16;
const MIN_HEIGHT = 240;

/**
 * The most the queue may be tall: down to the window's bottom edge from where it starts on the page
 * (beside the panel), or under half the window when it sits above the panel (a narrow screen), so
 * the panel stays in view however many customers wait. Measured again when the window or the page
 * above it changes (an alert above the queue).
 */
function useQueueMaxHeight(ref: RefObject<HTMLElement | null>): number | undefined {
  const besidePanel = useMediaQuery('(min-width: 62em)', true);
  const [maxHeight, setMaxHeight] = useState<number | undefined>(undefined);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const top = element.getBoundingClientRect().top + window.scrollY;
      const room = besidePanel ? window.innerHeight - top - BOTTOM_GAP : window.innerHeight * 0.45;
      setMaxHeight(Math.max(MIN_HEIGHT, Math.floor(room)));
    };
    measure();
    window.addEventListener('resize', measure);
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => {
      window.removeEventListener('resize', measure);
      observer.disconnect();
    };
  }, [ref, besidePanel]);
  return maxHeight;
}

/** The live queue: who is checked in at this store, oldest first; a long one scrolls inside itself. */
export function QueueList() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const phase = useQueue((s) => s.phase);
  const entries = useQueue((s) => s.entries);
  const error = useQueue((s) => s.error);
  const cursor = useQueue((s) => s.cursor);
  const openHash = useCustomer((s) => s.hash);
  const listRef = useRef<HTMLUListElement>(null);
  const sectionRef = useRef<HTMLElement>(null);
  const maxHeight = useQueueMaxHeight(sectionRef);
  const clampNames = useMediaQuery('(min-width: 36em)', true);

  // The highlighted row is always in view inside the list. Keyboard moves (J/K, arrows) carry the
  // focus along from wherever it was (the language switch, a button: keys typed into a text box are
  // never moves), so Enter opens the row the cashier sees highlighted; a cursor moved otherwise (a
  // scan opening a customer) takes the focus only when nothing else has it.
  const cursorMoves = useQueue((s) => s.cursorMoves);
  const seenMoves = useRef(cursorMoves);
  useEffect(() => {
    const list = listRef.current;
    if (!list || !cursor) return;
    const row = list.querySelector<HTMLElement>(`[data-queue-row="${CSS.escape(cursor)}"]`);
    if (!row) return;
    const byKeys = cursorMoves !== seenMoves.current;
    seenMoves.current = cursorMoves;
    const active = document.activeElement;
    if (byKeys || !active || active === document.body || list.contains(active)) row.focus({ preventScroll: true });
    row.scrollIntoView?.({ block: 'nearest' });
  }, [cursor, cursorMoves]);

  return (
    <Paper
      ref={sectionRef}
      component="section"
      aria-label={t.queueRegion}
      data-testid="queue"
      withBorder
      p="md"
      radius="md"
      style={{ display: 'flex', flexDirection: 'column', maxHeight }}
    >
      <Group justify="space-between" mb="sm" style={{ flexShrink: 0 }}>
        <Title order={2} size="h3">
          {t.queueTitle}
        </Title>
        {phase !== 'loading' && (
          <Badge size="lg" variant="light" data-testid="queue-count">
            {t.queueCount(entries.length)}
          </Badge>
        )}
      </Group>
      {error && (
        <Alert color="red" role="alert" title={t.queueFailed} mb="sm">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{error}</Text>
            <Button size="lg" variant="light" color="red" onClick={() => void cashier.queue.getState().reload()}>
              {t.retry}
            </Button>
          </Stack>
        </Alert>
      )}
      {phase === 'loading' && entries.length === 0 ? (
        <Stack gap="sm" aria-hidden>
          <Skeleton h={72} radius="md" />
          <Skeleton h={72} radius="md" />
          <Skeleton h={72} radius="md" />
        </Stack>
      ) : entries.length === 0 && !error ? (
        <Stack gap={4} py="lg" data-testid="queue-empty">
          <Text fw={600}>{t.queueEmpty}</Text>
          <Text c="dimmed" size="sm">
            {t.queueEmptyHint}
          </Text>
        </Stack>
      ) : (
        <ul
          ref={listRef}
          aria-label={t.queueRegion}
          // Its own scroll area; the padding keeps the highlight's border clear of the edges.
          style={{ margin: 0, padding: 4, display: 'flex', flexDirection: 'column', gap: 'var(--mantine-spacing-xs)', overflowY: 'auto', minHeight: 0, flex: '1 1 auto' }}
        >
          {entries.map((entry) => (
            <QueueRow key={entry.hash} entry={entry} highlighted={entry.hash === cursor} open={entry.hash === openHash} clamp={clampNames} />
          ))}
        </ul>
      )}
    </Paper>
  );
}
