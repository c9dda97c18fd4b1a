import { Button, Group, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { NodeApiError } from '../api/client';
import { refusalText } from './node-refusal';
import type { Staff } from './admin-api';
import { adminStore } from './admin-store';
import { useAdminStrings } from './strings';

type AdminStrings = ReturnType<typeof useAdminStrings>;

/** A message said in the language shown when it is drawn (switching EN/ES translates it too). */
export interface StaffMessage {
  ok: boolean;
  say: (strings: AdminStrings) => string;
}

/** The refusals a status change can meet are worded here in both languages; any other failure is the node's message. */
export function refusalOf(error: unknown): StaffMessage['say'] {
  const code = error instanceof NodeApiError ? error.code : null;
  if (code === 'last_owner' || code === 'invalid_status_transition') return (strings) => strings[`staffRefusal_${code}`];
  const message = refusalText(error);
  return () => message;
}

/**
 * A staff row's Disable (after a confirmation: it ends the member's sessions and voids every link
 * they were sent) or Enable. The node decides what enabling gives (`invited` for an account that
 * never chose a password) and refuses what it must (the last active owner); `onDone` gets the
 * message and, when the node took the change, the member as it is now.
 */
export function StaffAccessButton({ member, self, onDone }: { member: Staff; self: boolean; onDone: (message: StaffMessage, changed: Staff | null) => void }) {
  const t = useAdminStrings();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const disabled = member.status === 'disabled';
  const change = (status: 'active' | 'disabled') => {
    setConfirming(false);
    setBusy(true);
    adminStore
      .getState()
      .api()
      .setStaffStatus(member.id, status)
      .then((after) => onDone({ ok: true, say: (strings) => (after.status === 'disabled' ? strings.staffDisabled(after.name) : after.status === 'invited' ? strings.staffReinvited(after.name) : strings.staffEnabled(after.name)) }, after))
      .catch((e: unknown) => onDone({ ok: false, say: refusalOf(e) }, null))
      .finally(() => setBusy(false));
  };
  if (disabled)
    return (
      <Button size="xs" variant="light" color="teal" loading={busy} aria-label={t.rowAction(t.enableStaff, member.name)} onClick={() => change('active')}>
        {t.enableStaff}
      </Button>
    );
  return (
    <>
      <Button size="xs" variant="light" color="red" loading={busy} aria-label={t.rowAction(t.disableStaff, member.name)} onClick={() => setConfirming(true)}>
        {t.disableStaff}
      </Button>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t.confirmDisableStaff(member.name)}>
        <Text mb="lg">{self ? t.confirmDisableSelf : member.status === 'invited' ? t.confirmDisableInvited : t.confirmDisableActive(member.name)}</Text>
        <Group justify="flex-end">
          {/* Confirmations open on the safe answer: Enter does not do what cannot be taken back. */}
          <Button variant="default" data-autofocus onClick={() => setConfirming(false)}>
            {t.cancel}
          </Button>
          <Button color="red" onClick={() => change('disabled')}>
            {t.yesDisableStaff}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
