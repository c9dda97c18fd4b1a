import { Button, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../api/client';
import { useTerminalApi } from '../session/session-store';
import { useSyncStrings } from './strings';

interface RejectedEvent {
  event: number;
  date_created: string;
  code: string | null;
  message: string | null;
}

/**
 * The events central refused (GET /sync/rejected), shown on demand under the paired store's sync
 * state, newest first: when the store made each (a sale, a check-in…) and central's reason, so
 * staff can look into it. Test hook: data-testid="rejected-events".
 */
export function RejectedEvents({ count }: { count: number }) {
  const t = useSyncStrings();
  const api = useTerminalApi();
  const [events, setEvents] = useState<RejectedEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const show = async () => {
    setError(null);
    try {
      const reply = (await api.request('/sync/rejected', { query: { api_key: api.apiKey } })) as { items: RejectedEvent[] };
      setEvents(reply.items);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };
  if (count === 0) return null;
  return (
    <Stack gap="xs" data-testid="rejected-events">
      {events === null ? (
        <Button size="xs" variant="default" onClick={() => void show()} style={{ alignSelf: 'flex-start' }}>
          {t.showRejected(count)}
        </Button>
      ) : (
        <Table withTableBorder aria-label={t.rejected}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.madeAt}</Table.Th>
              <Table.Th>{t.reason}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {events.map((e) => (
              <Table.Tr key={e.event}>
                <Table.Td>{new Date(e.date_created).toLocaleString()}</Table.Td>
                <Table.Td>{e.message ?? e.code ?? '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {error && (
        <Text size="sm" c="red" role="alert">
          {error}
        </Text>
      )}
    </Stack>
  );
}
