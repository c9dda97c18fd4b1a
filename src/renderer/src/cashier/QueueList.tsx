import { Alert, Badge, Button, Group, Paper, Skeleton, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useLanguage } from '../i18n/language-store';
import { useCashier, useCustomer, useQueue } from './context';
import { fullName } from './customer-name';
import type { QueueSession } from './queue-store';
import { formatTime, useCashierStrings } from './strings';

function QueueRow({ entry, highlighted, open }: { entry: QueueSession; highlighted: boolean; open: boolean }) {
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
        onClick={() => void cashier.openSession(entry.hash, entry.id)}
        style={{
          borderRadius: 'var(--mantine-radius-md)',
          border: `2px solid ${highlighted ? 'var(--mantine-color-teal-6)' : 'transparent'}`,
          background: open ? 'var(--mantine-color-teal-light)' : 'var(--mantine-color-gray-0)',
        }}
      >
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Text fw={600} size="lg" truncate>
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

/** The live queue: who is checked in at this store, oldest first. */
export function QueueList() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const phase = useQueue((s) => s.phase);
  const entries = useQueue((s) => s.entries);
  const error = useQueue((s) => s.error);
  const cursor = useQueue((s) => s.cursor);
  const openHash = useCustomer((s) => s.hash);
  const listRef = useRef<HTMLUListElement>(null);

  // Keyboard moves (J/K, arrows) carry the focus along, unless the cashier is typing elsewhere.
  useEffect(() => {
    const list = listRef.current;
    if (!list || !cursor) return;
    const active = document.activeElement;
    if (active && active !== document.body && !list.contains(active)) return;
    list.querySelector<HTMLElement>(`[data-queue-row="${CSS.escape(cursor)}"]`)?.focus();
  }, [cursor]);

  return (
    <Paper component="section" aria-label={t.queueRegion} data-testid="queue" withBorder p="md" radius="md">
      <Group justify="space-between" mb="sm">
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
        <ul ref={listRef} aria-label={t.queueRegion} style={{ margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: 'var(--mantine-spacing-xs)' }}>
          {entries.map((entry) => (
            <QueueRow key={entry.hash} entry={entry} highlighted={entry.hash === cursor} open={entry.hash === openHash} />
          ))}
        </ul>
      )}
    </Paper>
  );
}
