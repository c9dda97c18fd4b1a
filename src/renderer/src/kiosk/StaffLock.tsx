/**
 * "Staff only": the kiosk's gear asks for a key of this store before it opens Settings (see
 * staff-lock.ts for the rules). The typed key lives only in this dialog's field: it is sent once to
 * GET /app/terminal on the node that served the page, then the field is emptied; it is never kept.
 *
 * Hooks for end-to-end tests: dialog "Staff only" ("Solo personal"), field "Store key", buttons
 * "Open Settings", "Cancel" and "Close" (the ×); data-testid="kiosk-staff-lock" (the form),
 * "kiosk-staff-message" (the refusal, role alert) with data-staff-error="wrong" | "locked" |
 * "unreachable" | "failed"; "kiosk-staff-scan-ignored" (role status: a scan came while it was open).
 */
import { Alert, Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core';
import { type FormEvent, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { viewStore } from '../app/view-store';
import { createTerminalApi, type TerminalApi } from '../api/terminal-api';
import { useSession, useTerminalApi } from '../session/session-store';
import { createStaffLock, type StaffLock, STAFF_LOCK_MAX_TRIES } from './staff-lock';
import { useKioskStrings } from './strings';
import { useSecondsLeft } from './use-seconds-left';

/** One lock per signed-in key and page, so leaving the kiosk screen and coming back buys no new tries. */
const locks = new WeakMap<TerminalApi, StaffLock>();

/** The page's staff lock for the kiosk's own store. */
export function useStaffLock(): StaffLock {
  const api = useTerminalApi();
  const terminal = useSession((s) => s.terminal);
  let lock = locks.get(api);
  if (!lock) {
    if (!terminal) throw new Error('useStaffLock outside a ready session');
    // The typed key goes to the same node, over the same requester, as every other call of the page.
    lock = createStaffLock((key) => createTerminalApi(api.request, key).terminal(), terminal);
    locks.set(api, lock);
  }
  return lock;
}

function Message({ lock }: { lock: StaffLock }) {
  const t = useKioskStrings();
  const error = useStore(lock, (s) => s.error);
  const failures = useStore(lock, (s) => s.failures);
  const lockedUntil = useStore(lock, (s) => s.lockedUntil);
  const seconds = useSecondsLeft(lockedUntil);
  const kind = lockedUntil !== null ? 'locked' : error;
  if (!kind) return null;
  const text =
    kind === 'locked'
      ? t.staffLocked(seconds ?? 0)
      : kind === 'wrong'
        ? t.staffWrong(Math.max(0, STAFF_LOCK_MAX_TRIES - failures))
        : kind === 'unreachable'
          ? t.staffUnreachable
          : t.staffFailed;
  return (
    <Alert color="red" variant="light" role="alert" data-testid="kiosk-staff-message" data-staff-error={kind} styles={{ message: { fontSize: 20 } }}>
      {text}
    </Alert>
  );
}

/** Said in the dialog (focus stays in it) when a scan was ignored while it is open. */
function ScanIgnored({ lock }: { lock: StaffLock }) {
  const t = useKioskStrings();
  const ignored = useStore(lock, (s) => s.scanIgnored);
  return (
    <div role="status" data-testid="kiosk-staff-scan-ignored">
      {ignored && (
        <Text fz={18} c="orange.9">
          {t.staffScanIgnored}
        </Text>
      )}
    </div>
  );
}

export function StaffLockDialog({ lock }: { lock: StaffLock }) {
  const t = useKioskStrings();
  const open = useStore(lock, (s) => s.open);
  const checking = useStore(lock, (s) => s.checking);
  const locked = useStore(lock, (s) => s.lockedUntil !== null);
  const [key, setKey] = useState('');
  // Closed by Cancel, Escape or its idle timer: whatever was typed is dropped.
  useEffect(() => {
    if (!open) setKey('');
  }, [open]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const typed = key;
    setKey('');
    if (await lock.getState().submit(typed)) viewStore.getState().show('settings');
  };

  return (
    <Modal
      opened={open}
      onClose={() => lock.getState().close()}
      title={t.staffTitle}
      closeButtonProps={{ 'aria-label': t.staffClose }}
      centered
      size="lg"
      radius="lg"
      styles={{ title: { fontSize: 28, fontWeight: 700 } }}
    >
      <form onSubmit={submit} data-testid="kiosk-staff-lock">
        <Stack gap="md">
          <Text fz={18}>{t.staffHint}</Text>
          <PasswordInput
            label={t.staffKeyLabel}
            size="xl"
            value={key}
            onChange={(e) => {
              setKey(e.currentTarget.value);
              lock.getState().touch();
            }}
            disabled={locked}
            data-autofocus
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            styles={{ label: { fontSize: 20 } }}
          />
          <Message lock={lock} />
          <ScanIgnored lock={lock} />
          <Group justify="space-between">
            <Button size="xl" h={64} variant="default" onClick={() => lock.getState().close()}>
              {t.cancel}
            </Button>
            <Button type="submit" size="xl" h={64} px={40} loading={checking} disabled={locked || !key.trim()}>
              {t.staffOpen}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
