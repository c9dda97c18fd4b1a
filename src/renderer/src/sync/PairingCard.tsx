import { Alert, Button, Card, Checkbox, Group, Progress, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { TableField } from '../app/TableField';
import { errorMessage } from '../api/client';
import { useSession, useTerminalApi } from '../session/session-store';
import { RejectedEvents } from './RejectedEvents';
import { SyncBadge } from './SyncBadge';
import { useSyncStrings } from './strings';
import { type SyncStatus, useSyncStatus } from './use-sync-status';

/**
 * Settings' "Pair with a central node" card: the pairing form on a store of its own (cashier
 * screens), the sync state and unpairing (with confirmation) once paired. Pairing and unpairing
 * restart the node (POST / DELETE /sync/pairing); the screen then signs in again with a key of the
 * chain. Hooks for end-to-end tests: data-testid="settings-pairing", "pairing-form", "pairing-done".
 */
export function PairingCard({ title, onSignOut }: { title: string; onSignOut: () => void }) {
  const status = useSyncStatus();
  const role = useSession((s) => s.terminal?.role);
  const [done, setDone] = useState<string | null>(null);
  const t = useSyncStrings();
  return (
    <Card withBorder radius="md" padding="lg" data-testid="settings-pairing">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3}>{title}</Title>
          <SyncBadge />
        </Group>
        {done ? (
          <Alert color="teal" data-testid="pairing-done">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">{done}</Text>
              <Button size="xs" onClick={onSignOut}>
                {t.signInAgain}
              </Button>
            </Stack>
          </Alert>
        ) : status?.paired ? (
          <PairedState status={status} canUnpair={role === 'cashier'} onUnpaired={() => setDone(t.unpairedNow)} title={title} />
        ) : (
          <>
            <Text size="sm" c="dimmed">
              {t.notPaired}
            </Text>
            {role === 'cashier' ? (
              <PairingForm onPaired={() => setDone(t.pairedNow)} />
            ) : (
              <Text size="sm" c="dimmed">
                {t.cashierOnly}
              </Text>
            )}
          </>
        )}
      </Stack>
    </Card>
  );
}

function PairingForm({ onPaired }: { onPaired: () => void }) {
  const t = useSyncStrings();
  const api = useTerminalApi();
  const [central, setCentral] = useState('');
  const [code, setCode] = useState('');
  const [replace, setReplace] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.request('/sync/pairing', { method: 'POST', query: { api_key: api.apiKey }, body: { central: central.trim(), code: code.trim(), replace_local_data: replace } });
      onPaired();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(event) => void submit(event)} data-testid="pairing-form">
      <Stack gap="sm">
        <TextInput label={t.centralAddress} placeholder={t.centralAddressHint} value={central} onChange={(e) => setCentral(e.currentTarget.value)} required type="url" />
        <TextInput label={t.pairingCode} placeholder={t.codePlaceholder} value={code} onChange={(e) => setCode(e.currentTarget.value)} required autoCapitalize="characters" />
        <Checkbox label={t.replaceLocalData} description={t.replaceLocalDataHint} checked={replace} onChange={(e) => setReplace(e.currentTarget.checked)} />
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={busy}>
            {t.pair}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function PairedState({ status, canUnpair, onUnpaired, title }: { status: SyncStatus; canUnpair: boolean; onUnpaired: () => void; title: string }) {
  const t = useSyncStrings();
  const api = useTerminalApi();
  const [confirming, setConfirming] = useState(false);
  const [discard, setDiscard] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
  const unpair = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.request('/sync/pairing', { method: 'DELETE', query: { api_key: api.apiKey, ...(discard ? { discard_unsent: 'true' } : {}) } });
      onUnpaired();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap="sm">
      <Table variant="vertical" withTableBorder layout="fixed" aria-label={title}>
        <Table.Tbody>
          <TableField label={t.paired}>
            <Text ff="monospace" size="sm" style={{ wordBreak: 'break-all' }}>
              {status.central}
            </Text>
          </TableField>
          <TableField label={t.link}>{status.link === 'up' ? t.up : t.down}</TableField>
          <TableField label={t.pending}>{status.pending}</TableField>
          <TableField label={t.rejected}>{status.rejected}</TableField>
          <TableField label={t.lastPush}>{when(status.last_push_at)}</TableField>
          <TableField label={t.lastPull}>{when(status.last_pull_at)}</TableField>
          <TableField label={t.firstSync}>{status.first_sync.done ? t.done : <Progress value={status.first_sync.progress} aria-label={t.firstSync} />}</TableField>
          {status.last_error && <TableField label={t.lastError}>{status.last_error}</TableField>}
        </Table.Tbody>
      </Table>
      {/* A cashier's key reads the reasons (GET /sync/rejected); the count above is for everyone. */}
      {canUnpair && <RejectedEvents count={status.rejected} />}
      {canUnpair && !confirming && (
        <Group>
          <Button variant="default" color="red" onClick={() => setConfirming(true)}>
            {t.unpair}
          </Button>
        </Group>
      )}
      {confirming && (
        <Alert color="orange" data-testid="unpair-confirm">
          <Stack gap="xs">
            <Text size="sm">{t.unpairConfirm}</Text>
            {status.pending > 0 && (
              <>
                <Text size="sm" fw={600}>
                  {t.unsent(status.pending)}
                </Text>
                <Checkbox label={t.discardUnsent} checked={discard} onChange={(e) => setDiscard(e.currentTarget.checked)} />
              </>
            )}
            {error && (
              <Text size="sm" c="red" role="alert">
                {error}
              </Text>
            )}
            <Group>
              <Button color="red" loading={busy} onClick={() => void unpair()}>
                {t.yesUnpair}
              </Button>
              <Button variant="default" onClick={() => setConfirming(false)}>
                {t.cancel}
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
