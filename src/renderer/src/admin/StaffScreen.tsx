import { Alert, Badge, Button, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { ActionsHeader, escapeCancels, TableScroll } from './a11y';
import { useState } from 'react';
import { refusalText } from './node-refusal';
import type { Staff } from './admin-api';
import { adminStore, useAdmin } from './admin-store';
import { formatDateTime } from './format';
import { refusalOf, StaffAccessButton, type StaffMessage } from './StaffAccessButton';
import { StaffRoleButton } from './StaffRoleButton';
import { useAdminStrings } from './strings';
import { go } from './use-hash-route';
import { useLoad } from './use-load';

const STATUS_COLOR = { active: 'teal', invited: 'gray', disabled: 'red' } as const;

/**
 * Owners only (the node refuses the others): the program's staff, and invitations by email. A
 * waiting invitation shows when its link expires (or that it has, by the node's clock) and is sent
 * again from its row: the same call as inviting, with the member's current name, role and store.
 * Each row disables or enables its account (StaffAccessButton); the owner's own row too, as the
 * node allows while another owner stays active, and then this session has ended: signed out.
 * Each row changes its role and store too (StaffRoleButton), after a confirmation.
 */
export function StaffScreen() {
  const t = useAdminStrings();
  const me = useAdmin((s) => s.staff);
  const staff = useLoad(() => adminStore.getState().api().staff(), []);
  const stores = useLoad(() => adminStore.getState().api().stores(), []);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<string | null>('manager');
  const [storeId, setStoreId] = useState<string | null>(null);
  // Said in the language shown when it is drawn (switching EN/ES after inviting translates it too).
  const [message, setMessage] = useState<StaffMessage | null>(null);
  const [resending, setResending] = useState<number | null>(null);
  const roleName = (r: string) => ({ owner: t.role_owner, manager: t.role_manager, store_manager: t.role_store_manager })[r] ?? r;
  const resend = (member: Staff) => {
    setResending(member.id);
    setMessage(null);
    adminStore
      .getState()
      .api()
      .invite({ email: member.email, name: member.name, role: member.role, store_id: member.store_id })
      .then((sent) => {
        const expiresAt = sent.invitation?.expires_at;
        setMessage({ ok: true, say: (strings) => (expiresAt !== undefined ? strings.resent(sent.email, formatDateTime(expiresAt)) : strings.invited) });
        staff.reload();
      })
      .catch((e: unknown) => setMessage({ ok: false, say: () => refusalText(e) }))
      .finally(() => setResending(null));
  };
  const statusChanged = (said: StaffMessage, changed: Staff | null) => {
    setMessage(said);
    if (changed && changed.id === me?.id && changed.status === 'disabled') void adminStore.getState().signOut();
    // Refused too: the row may have changed meanwhile (another owner), the list shows it as it is.
    else staff.reload();
  };
  const memberChanged = (said: StaffMessage, changed: Staff | null) => {
    setMessage(said);
    // Their own row: the header follows (a new name, a new role). An owner who made themselves
    // something else manages staff no more (the node says so from their next call): the tabs
    // follow and the screen leaves for the dashboard.
    if (changed && me && changed.id === me.id) {
      adminStore.setState({ staff: { ...me, name: changed.name, role: changed.role, store_id: changed.store_id } });
      if (changed.role !== 'owner') {
        go('#/dashboard');
        return;
      }
    }
    staff.reload();
  };
  if (staff.error)
    return (
      <Alert color="red" role="alert">
        {staff.error}
      </Alert>
    );
  return (
    <Stack>
      <TableScroll>
        <Table aria-label={t.staffTable} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.name}</Table.Th>
              <Table.Th>{t.email}</Table.Th>
              <Table.Th>{t.keyRole}</Table.Th>
              <Table.Th>{t.store}</Table.Th>
              <Table.Th>{t.status}</Table.Th>
              <Table.Th>{t.invitation}</Table.Th>
              <ActionsHeader />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(staff.data?.items ?? []).map((member) => (
              <Table.Tr key={member.id}>
                <Table.Td>
                  <StaffName member={member} onDone={memberChanged} />
                </Table.Td>
                <Table.Td>{member.email}</Table.Td>
                <Table.Td>{roleName(member.role)}</Table.Td>
                <Table.Td>{stores.data?.items.find((s) => s.id === member.store_id)?.name ?? ''}</Table.Td>
                <Table.Td>
                  <Badge tt="none" color={STATUS_COLOR[member.status]}>{t[`staffStatus_${member.status}`]}</Badge>
                </Table.Td>
                <Table.Td>
                  {member.invitation && (
                    <Group gap="xs" wrap="nowrap">
                      {member.invitation.expired ? <Badge tt="none" color="red">{t.invitationExpired}</Badge> : <Text size="sm">{t.invitationExpires(formatDateTime(member.invitation.expires_at))}</Text>}
                      <Button size="xs" variant="light" loading={resending === member.id} aria-label={t.rowAction(t.resendInvitation, member.name)} onClick={() => resend(member)}>
                        {t.resendInvitation}
                      </Button>
                    </Group>
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <StaffRoleButton member={member} self={member.id === me?.id} stores={stores.data?.items ?? []} onDone={memberChanged} />
                    <StaffAccessButton member={member} self={member.id === me?.id} onDone={statusChanged} />
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
      <Group align="end">
        <TextInput label={t.email} value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
        <TextInput label={t.name} value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Select
          label={t.keyRole}
          value={role}
          onChange={setRole}
          allowDeselect={false}
          data={['owner', 'manager', 'store_manager'].map((r) => ({ value: r, label: roleName(r) }))}
        />
        {role === 'store_manager' && <Select label={t.store} value={storeId} onChange={setStoreId} data={(stores.data?.items ?? []).map((s) => ({ value: String(s.id), label: s.name }))} />}
        <Button
          onClick={() =>
            adminStore
              .getState()
              .api()
              .invite({ email, name, role: role ?? 'manager', store_id: role === 'store_manager' && storeId ? Number(storeId) : null })
              .then(() => {
                setMessage({ ok: true, say: (strings) => strings.invited });
                staff.reload();
              })
              .catch((e: unknown) => setMessage({ ok: false, say: () => refusalText(e) }))
          }
        >
          {t.invite}
        </Button>
      </Group>
      {message && (
        <Alert color={message.ok ? 'teal' : 'red'} role={message.ok ? 'status' : 'alert'}>
          <Text>{message.say(t)}</Text>
        </Alert>
      )}
    </Stack>
  );
}

/** A member's name, or (Rename) a box to change it in place: the name their invitation and the header greet them by. */
function StaffName({ member, onDone }: { member: Staff; onDone: (message: StaffMessage, changed: Staff | null) => void }) {
  const t = useAdminStrings();
  const [name, setName] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (name === null)
    return (
      <Group gap="xs" wrap="nowrap">
        <Text size="sm">{member.name}</Text>
        <Button size="compact-xs" variant="subtle" flex="none" aria-label={t.rowAction(t.rename, member.name)} onClick={() => setName(member.name)}>
          {t.rename}
        </Button>
      </Group>
    );
  const save = () => {
    setBusy(true);
    adminStore
      .getState()
      .api()
      .renameStaff(member.id, name)
      .then((after) => {
        setName(null);
        onDone({ ok: true, say: (strings) => strings.staffRenamed(after.name) }, after);
      })
      .catch((e: unknown) => onDone({ ok: false, say: refusalOf(e) }, null))
      .finally(() => setBusy(false));
  };
  return (
    <Group gap="xs" wrap="nowrap" onKeyDown={escapeCancels(() => setName(null))}>
      <TextInput size="xs" aria-label={t.rowField(t.name, member.name)} value={name} onChange={(e) => setName(e.currentTarget.value)} />
      <Button size="xs" loading={busy} aria-label={t.rowAction(t.save, member.name)} onClick={save}>
        {t.save}
      </Button>
      <Button size="xs" variant="default" aria-label={t.rowAction(t.cancel, member.name)} onClick={() => setName(null)}>
        {t.cancel}
      </Button>
    </Group>
  );
}
