import { Alert, Anchor, Badge, Button, Code, Group, MultiSelect, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { ActionsHeader, TableScroll } from './a11y';
import { BreakableUrl, urlCell } from './BreakableUrl';
import { useState } from 'react';
import { refusalText } from './node-refusal';
import type { WebhookEndpoint } from './admin-api';
import { adminStore } from './admin-store';
import { useLoad } from './use-load';
import { DeleteEndpointButton, EditEndpointButton } from './WebhookEndpointActions';
import { useWebhookStrings } from './webhooks-strings';

const api = () => adminStore.getState().api();
type Outcome = { ok: boolean; text: string; secret?: string };
/** Runs a change, shows its outcome (and a secret once) and reloads; resolves true when the node took it. `done` may read the reply. */
interface Act {
  <T extends object>(work: Promise<T>, done: string | ((reply: T) => string)): Promise<boolean>;
}
const STATUS_COLOR = { enabled: 'teal', paused: 'orange', disabled: 'red' } as const;

/**
 * A program's webhook endpoints: add one (its secret shown once), pause or enable, rotate the
 * secret, send a test, edit its URL, events, description and alert email, delete it (after a
 * confirmation).
 */
export function WebhooksScreen() {
  const t = useWebhookStrings();
  const list = useLoad(() => api().webhooks(), []);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [description, setDescription] = useState('');
  const [alertEmail, setAlertEmail] = useState('');
  const act: Act = (work, done) => {
    setOutcome(null);
    return work
      .then((reply) => {
        setOutcome({ ok: true, text: typeof done === 'string' ? done : done(reply), ...('secret' in reply && typeof reply.secret === 'string' ? { secret: reply.secret } : {}) });
        list.reload();
        return true;
      })
      .catch((e: unknown) => {
        setOutcome({ ok: false, text: refusalText(e) });
        return false;
      });
  };
  if (list.error)
    return (
      <Alert color="red" role="alert">
        {list.error}
      </Alert>
    );
  if (!list.data) return <Text>{t.loading}</Text>;
  const { items, kinds } = list.data;
  return (
    <Stack>
      {outcome && (
        <Alert color={outcome.ok ? 'teal' : 'red'} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.text}
          {outcome.secret && (
            <>
              <Text mt="xs" size="sm" fw={600}>
                {t.secretOnce}
              </Text>
              <Code block data-testid="webhook-secret">
                {outcome.secret}
              </Code>
            </>
          )}
        </Alert>
      )}
      {items.length === 0 ? (
        <Text>{t.none}</Text>
      ) : (
        <TableScroll>
          <Table aria-label={t.endpointsTable} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.url}</Table.Th>
                <Table.Th>{t.events}</Table.Th>
                <Table.Th>{t.status}</Table.Th>
                <Table.Th>{t.disabledReason}</Table.Th>
                <ActionsHeader />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((endpoint) => (
                <EndpointRow key={endpoint.id} endpoint={endpoint} kinds={kinds} act={act} />
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      <Paper withBorder p="md">
        <Title order={2} size="h4">{t.add}</Title>
        <Group align="end" mt="sm">
          <TextInput label={t.url} value={url} onChange={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/punchcard" w={380} maw="100%" />
          <MultiSelect label={t.events} data={kinds} value={events} onChange={setEvents} searchable w={420} maw="100%" />
          <TextInput label={t.description} value={description} onChange={(e) => setDescription(e.currentTarget.value)} w={380} maw="100%" />
          <TextInput label={t.alertEmail} description={t.alertEmailHint} value={alertEmail} onChange={(e) => setAlertEmail(e.currentTarget.value)} w={420} maw="100%" />
          <Button
            onClick={() =>
              void act(api().addWebhook({ url, events, description, alert_email: alertEmail }), t.added).then((ok) => {
                if (ok) {
                  setUrl('');
                  setEvents([]);
                  setDescription('');
                  setAlertEmail('');
                }
              })
            }
          >
            {t.add}
          </Button>
        </Group>
      </Paper>
    </Stack>
  );
}

function EndpointRow({ endpoint, kinds, act }: { endpoint: WebhookEndpoint; kinds: string[]; act: Act }) {
  const t = useWebhookStrings();
  const reason = endpoint.disabled_reason === 'failing' ? t.reason_failing : endpoint.disabled_reason === 'gone' ? t.reason_gone : (endpoint.disabled_reason ?? '');
  const running = endpoint.status === 'enabled';
  return (
    <Table.Tr aria-label={endpoint.url}>
      <Table.Td className={urlCell}>
        <Anchor href={`#/webhooks/${endpoint.id}`}>
          <BreakableUrl url={endpoint.url} />
        </Anchor>
        {endpoint.description && (
          <Text size="sm" c="dimmed">
            {endpoint.description}
          </Text>
        )}
        {endpoint.alert_email && (
          <Text size="sm" c="dimmed">
            {t.alertsTo(endpoint.alert_email)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{endpoint.events.join(', ')}</Table.Td>
      <Table.Td>
        <Badge tt="none" color={STATUS_COLOR[endpoint.status]} variant="light">
          {t[`status_${endpoint.status}`]}
        </Badge>
      </Table.Td>
      <Table.Td>{reason}</Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Button size="xs" variant="light" color={running ? 'orange' : 'teal'} onClick={() => void act(api().setWebhookStatus(endpoint.id, running ? 'paused' : 'enabled'), running ? t.paused : t.enabled)}>
            {running ? t.pause : t.enable}
          </Button>
          <Button size="xs" variant="light" onClick={() => void act(api().sendWebhookTest(endpoint.id), (sent) => (sent.endpoint_status === 'enabled' ? t.testSent : t.testHeld(sent.endpoint_status)))}>
            {t.sendTest}
          </Button>
          <Button size="xs" variant="light" color="gray" onClick={() => void act(api().rotateWebhookSecret(endpoint.id), t.rotated)}>
            {t.rotate}
          </Button>
          <Button size="xs" variant="subtle" component="a" href={`#/webhooks/${endpoint.id}`}>
            {t.deliveries}
          </Button>
          {/* The dialog made the change (its refusals stay in it): here its message, and the list again. */}
          <EditEndpointButton endpoint={endpoint} kinds={kinds} onSaved={(message) => void act(Promise.resolve({}), message)} />
          <DeleteEndpointButton endpoint={endpoint} onDelete={() => void act(api().deleteWebhook(endpoint.id), t.deleted)} />
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
