import { Alert, Button, Group, Modal, MultiSelect, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { refusalText } from './node-refusal';
import type { WebhookEndpoint } from './admin-api';
import { adminStore } from './admin-store';
import { useWebhookStrings } from './webhooks-strings';

const api = () => adminStore.getState().api();

/**
 * An endpoint's **Edit**: its URL, events, description and alert email in a dialog, saved with `PUT /backoffice/webhooks/:id`
 * (the node's checks: an address it does not send to, an unknown kind). A refusal shows in the
 * dialog with the node's message and keeps what was typed; `onSaved` gets the message when the node
 * took the change.
 */
export function EditEndpointButton({ endpoint, kinds, onSaved }: { endpoint: WebhookEndpoint; kinds: string[]; onSaved: (message: string) => void }) {
  const t = useWebhookStrings();
  const [editing, setEditing] = useState(false);
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const [alertEmail, setAlertEmail] = useState(endpoint.alert_email ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const open = () => {
    setUrl(endpoint.url);
    setEvents(endpoint.events);
    setDescription(endpoint.description ?? '');
    setAlertEmail(endpoint.alert_email ?? '');
    setError(null);
    setEditing(true);
  };
  const unchanged =
    url === endpoint.url &&
    events.length === endpoint.events.length &&
    events.every((e) => endpoint.events.includes(e)) &&
    description === (endpoint.description ?? '') &&
    alertEmail === (endpoint.alert_email ?? '');
  const save = () => {
    setBusy(true);
    setError(null);
    api()
      .editWebhook(endpoint.id, { url, events, description, alert_email: alertEmail })
      .then(() => {
        setEditing(false);
        onSaved(t.edited);
      })
      .catch((e: unknown) => setError(refusalText(e)))
      .finally(() => setBusy(false));
  };
  return (
    <>
      <Button size="xs" variant="light" onClick={open}>
        {t.edit}
      </Button>
      <Modal opened={editing} onClose={() => setEditing(false)} title={t.editTitle} size="lg">
        <Stack>
          <TextInput label={t.url} value={url} onChange={(e) => setUrl(e.currentTarget.value)} data-autofocus />
          <MultiSelect label={t.events} data={kinds} value={events} onChange={setEvents} searchable />
          <TextInput label={t.description} value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          <TextInput label={t.alertEmail} description={t.alertEmailHint} value={alertEmail} onChange={(e) => setAlertEmail(e.currentTarget.value)} />
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setEditing(false)}>
              {t.cancel}
            </Button>
            <Button loading={busy} disabled={unchanged} onClick={save}>
              {t.save}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/**
 * An endpoint's **Delete**, after a confirmation saying what it does: the endpoint receives nothing
 * more, and the events it has not received yet are cancelled, never sent (`DELETE
 * /backoffice/webhooks/:id`). `onDelete` runs the call and shows its outcome.
 */
export function DeleteEndpointButton({ endpoint, onDelete }: { endpoint: WebhookEndpoint; onDelete: () => void }) {
  const t = useWebhookStrings();
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      <Button size="xs" variant="light" color="red" onClick={() => setConfirming(true)}>
        {t.delete}
      </Button>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t.confirmDelete(endpoint.url)}>
        <Text mb="lg">{t.confirmDeleteBody}</Text>
        <Group justify="flex-end">
          {/* Opens on Cancel, as every confirmation does: an Enter pressed at once deletes nothing. */}
          <Button variant="default" data-autofocus onClick={() => setConfirming(false)}>
            {t.cancel}
          </Button>
          <Button
            color="red"
            onClick={() => {
              setConfirming(false);
              onDelete();
            }}
          >
            {t.yesDelete}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
