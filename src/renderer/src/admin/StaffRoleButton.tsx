import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { AdminStore, Staff } from './admin-api';
import { adminStore } from './admin-store';
import { refusalOf, type StaffMessage } from './StaffAccessButton';
import { useAdminStrings } from './strings';

const ROLES = ['owner', 'manager', 'store_manager'] as const;

/**
 * A staff row's **Change role**: a dialog to choose the role (and a store manager's store) and
 * confirm. It is `PUT /backoffice/staff/:id {role, store_id}`, so the node's rules stay the only
 * ones (the last active owner keeps the role: 409 `last_owner`); the new role applies from the
 * member's next call, since sessions carry no role. `onDone` gets the message and, when the node
 * took the change, the member as it is now.
 */
export function StaffRoleButton({ member, self, stores, onDone }: { member: Staff; self: boolean; stores: AdminStore[]; onDone: (message: StaffMessage, changed: Staff | null) => void }) {
  const t = useAdminStrings();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [role, setRole] = useState<string>(member.role);
  const [storeId, setStoreId] = useState<string | null>(member.store_id === null ? null : String(member.store_id));
  const roleName = (r: string) => ({ owner: t.role_owner, manager: t.role_manager, store_manager: t.role_store_manager })[r] ?? r;
  const storeName = (id: number | null) => stores.find((s) => s.id === id)?.name ?? '';
  const open = () => {
    setRole(member.role);
    setStoreId(member.store_id === null ? null : String(member.store_id));
    setConfirming(true);
  };
  const chosenStore = role === 'store_manager' && storeId !== null ? Number(storeId) : null;
  const unchanged = role === member.role && chosenStore === member.store_id;
  const change = () => {
    setConfirming(false);
    setBusy(true);
    adminStore
      .getState()
      .api()
      .setStaffRole(member.id, role, chosenStore)
      .then((after) =>
        onDone(
          {
            ok: true,
            say: (strings) => {
              const name = { owner: strings.role_owner, manager: strings.role_manager, store_manager: strings.role_store_manager }[after.role];
              return after.role === 'store_manager' ? strings.staffRoleChangedStore(after.name, name, storeName(after.store_id)) : strings.staffRoleChanged(after.name, name);
            },
          },
          after,
        ),
      )
      .catch((e: unknown) => onDone({ ok: false, say: refusalOf(e) }, null))
      .finally(() => setBusy(false));
  };
  return (
    <>
      <Button size="xs" variant="light" loading={busy} aria-label={t.rowAction(t.changeRole, member.name)} onClick={open}>
        {t.changeRole}
      </Button>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t.confirmChangeRole(member.name)}>
        <Stack>
          <Select label={t.keyRole} value={role} onChange={(value) => value && setRole(value)} allowDeselect={false} data={ROLES.map((r) => ({ value: r, label: roleName(r) }))} />
          {role === 'store_manager' && (
            <Select
              label={t.store}
              placeholder={t.pickStore}
              value={storeId}
              onChange={setStoreId}
              data={stores.map((s) => ({ value: String(s.id), label: s.name }))}
            />
          )}
          <Text>{self && role !== 'owner' ? t.changeOwnRoleBody : t.changeRoleBody}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t.cancel}
            </Button>
            <Button data-autofocus disabled={unchanged || (role === 'store_manager' && storeId === null)} onClick={change}>
              {t.yesChangeRole}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
