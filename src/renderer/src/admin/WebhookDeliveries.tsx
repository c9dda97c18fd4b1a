import { Alert, Anchor, Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { ActionsHeader, TableScroll } from './a11y';
import { useEffect, useRef, useState } from 'react';
import { refusalText } from './node-refusal';
import { adminStore } from './admin-store';
import { formatDateTime } from './format';
import { useLoad } from './use-load';
import { useWebhookStrings } from './webhooks-strings';

const api = () => adminStore.getState().api();
const STATUS_COLOR: Record<string, string> = { succeeded: 'teal', pending: 'orange', sending: 'blue', failed: 'red', cancelled: 'gray' };
/** While a delivery is still pending, the list asks the node again this often. */
const REFRESH_MS = 2_000;

/** One endpoint's deliveries, newest first and paged by the node: status, attempts, last status code or error, and a replay. */
export function WebhookDeliveries({ endpointId }: { endpointId: string }) {
  const t = useWebhookStrings();
  const [page, setPage] = useState(1);
  const endpoints = useLoad(() => api().webhooks(), []);
  // The timer's reloads are marked as background: an open log must not keep an unattended session alive.
  const polling = useRef(false);
  const log = useLoad(() => {
    const background = polling.current;
    polling.current = false;
    return api().webhookDeliveries(endpointId, page, { background });
  }, [endpointId, page]);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const waiting = log.data?.items.some((d) => d.status === 'pending' || d.status === 'sending') ?? false;
  const { reload } = log;
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(() => {
      polling.current = true;
      reload();
    }, REFRESH_MS);
    return () => clearTimeout(timer);
  });
  const error = log.error ?? endpoints.error;
  if (error)
    return (
      <Alert color="red" role="alert">
        {error}
      </Alert>
    );
  if (!log.data || !endpoints.data) return <Text>{t.loading}</Text>;
  const url = endpoints.data.items.find((e) => e.id === endpointId)?.url ?? endpointId;
  const replay = (eventId: string) => {
    setOutcome(null);
    api()
      .replayWebhookEvent(endpointId, eventId)
      .then((queued) => {
        // A paused or disabled endpoint holds it: said, or the staff member waits for a delivery that is not coming.
        setOutcome({ ok: true, text: queued.endpoint_status === 'enabled' ? t.replayed : t.replayHeld(queued.endpoint_status) });
        reload();
      })
      .catch((e: unknown) => setOutcome({ ok: false, text: refusalText(e) }));
  };
  return (
    <Stack>
      <Group justify="space-between">
        <Anchor href="#/webhooks">{t.back}</Anchor>
        <Button variant="light" size="xs" onClick={reload}>
          {t.refresh}
        </Button>
      </Group>
      {outcome && (
        <Alert color={outcome.ok ? 'teal' : 'red'} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.text}
        </Alert>
      )}
      {log.data.items.length === 0 && page === 1 ? (
        <Text>{t.noDeliveries}</Text>
      ) : (
        <TableScroll>
          <Table aria-label={t.deliveriesTable(url)} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.when}</Table.Th>
                <Table.Th>{t.event}</Table.Th>
                <Table.Th>{t.status}</Table.Th>
                <Table.Th>{t.attempts}</Table.Th>
                <Table.Th>{t.lastCode}</Table.Th>
                <Table.Th>{t.lastError}</Table.Th>
                <ActionsHeader />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {log.data.items.map((d) => (
                <Table.Tr key={d.id} aria-label={d.event_id}>
                  <Table.Td>{formatDateTime(d.date_created)}</Table.Td>
                  <Table.Td>
                    {d.event_type} <Text span c="dimmed" size="xs">{d.event_id}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge tt="none" color={STATUS_COLOR[d.status] ?? 'gray'} variant="light">
                      {t[`delivery_${d.status}` as 'delivery_pending'] ?? d.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{d.attempts}</Table.Td>
                  <Table.Td>{d.last_status_code ?? '—'}</Table.Td>
                  <Table.Td>{d.last_error ?? '—'}</Table.Td>
                  <Table.Td>
                    <Button size="xs" variant="light" onClick={() => replay(d.event_id)}>
                      {t.replay}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      <Group>
        <Button variant="light" disabled={page === 1} onClick={() => setPage(page - 1)}>
          {t.previous}
        </Button>
        <Button variant="light" disabled={!log.data.has_more} onClick={() => setPage(page + 1)}>
          {t.next}
        </Button>
      </Group>
    </Stack>
  );
}
