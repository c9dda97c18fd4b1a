import { Alert, Anchor, Badge, Button, Code, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useId, useState } from 'react';
import { API_KEY_ROLES, type ApiKeyRole } from '../../../shared/roles';
import { roleAllows } from '../../../shared/staff-roles';
import { NodeApiError } from '../api/client';
import { ActionsHeader, type FieldProblem, invalidProps, TableScroll } from './a11y';
import { ConfirmedActionButton } from './ConfirmedActionButton';
import { refusalText } from './node-refusal';
import { ChainHealth } from './ChainHealth';
import { formatDateTime } from './format';
import type { AdminStore, ApiKey, ChainHealth as ChainHealthData } from './admin-api';
import { nodeSilentMs } from './node-silence';
import { adminStore, useAdmin } from './admin-store';
import { StoreFormButton, WEEK_DAYS } from './StoreForm';
import { useAdminStrings } from './strings';
import { useLoad } from './use-load';
import { formatPhone } from '../phone-format';

/** A key's role in words (the node's word for a role this screen does not know). */
function useKeyRoleName(): (role: string) => string {
  const t = useAdminStrings();
  return (role) => ((API_KEY_ROLES as readonly string[]).includes(role) ? t[`keyRole_${role as ApiKeyRole}`] : role);
}

function OpenBadge({ store }: { store: AdminStore }) {
  const t = useAdminStrings();
  if (store.open_now === null) return <Badge tt="none" color="gray">{t.unknownHours}</Badge>;
  return <Badge tt="none" color={store.open_now ? 'teal' : 'red'}>{store.open_now ? t.open : t.closed}</Badge>;
}

type AdminStrings = ReturnType<typeof useAdminStrings>;
/** A message said in the language shown when it is drawn. */
interface Said {
  say: (strings: AdminStrings) => string;
}

/** Owners and managers change stores; a store manager reads their own (the node decides either way). */
function useCanWriteStores(): boolean {
  const role = useAdmin((s) => s.staff?.role);
  return role !== undefined && roleAllows(role, 'stores.write');
}

export function StoreList() {
  const t = useAdminStrings();
  const canWrite = useCanWriteStores();
  const { data, error, reload } = useLoad(() => adminStore.getState().api().stores(), []);
  // At central, each store's nodes at a glance: a till gone quiet shows without opening every store.
  const chain = useLoad(() => adminStore.getState().api().chain(null), []);
  const nodes = chain.data?.role === 'central' ? chain.data.nodes : null;
  const [said, setSaid] = useState<Said | null>(null);
  if (error)
    return (
      <Alert color="red" role="alert">
        {error}
      </Alert>
    );
  if (!data) return <Text>{t.loading}</Text>;
  return (
    <Stack>
      {canWrite && (
        <Group>
          <StoreFormButton
            store={null}
            onSaved={(saved) => {
              setSaid({ say: (strings) => strings.storeAdded(saved.name) });
              reload();
            }}
          />
        </Group>
      )}
      {said && (
        <Alert color="teal" role="status">
          {said.say(t)}
        </Alert>
      )}
      <TableScroll>
        <Table aria-label={t.storesTable} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.name}</Table.Th>
              <Table.Th>{t.city}</Table.Th>
              <Table.Th>{t.timeZone}</Table.Th>
              <Table.Th>{t.openNow}</Table.Th>
              <Table.Th>{t.status}</Table.Th>
              {nodes && <Table.Th>{t.chainTitle}</Table.Th>}
              <ActionsHeader />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.items.map((store) => (
              <Table.Tr key={store.id}>
                <Table.Td>{store.name}</Table.Td>
                <Table.Td>
                  {store.city}, {store.country}
                </Table.Td>
                <Table.Td>{store.time_zone}</Table.Td>
                <Table.Td>
                  <OpenBadge store={store} />
                </Table.Td>
                <Table.Td>{store.status === 'active' ? t.active : t.inactive}</Table.Td>
                {nodes && (
                  <Table.Td>
                    <StoreNodesSummary nodes={nodes.filter((n) => n.store === store.id)} />
                  </Table.Td>
                )}
                <Table.Td>
                  <Anchor href={`#/stores/${store.id}`} aria-label={t.keysOf(store.name)}>
                    {t.manage}
                  </Anchor>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </Stack>
  );
}

/** A store's paired nodes in a few words: how many, and how many central has not heard from lately (the store's page says which). */
function StoreNodesSummary({ nodes }: { nodes: ChainHealthData['nodes'] }) {
  const t = useAdminStrings();
  const live = nodes.filter((n) => n.revoked_at === null);
  if (live.length === 0) return <Text c="dimmed">{t.noNodesPaired}</Text>;
  const silent = live.filter((n) => nodeSilentMs(n) !== null).length;
  return (
    <Group gap={6} wrap="nowrap">
      <Text>{t.nodesPaired(live.length)}</Text>
      {silent > 0 && (
        <Badge tt="none" color="orange">
          {t.nodesSilent(silent)}
        </Badge>
      )}
    </Group>
  );
}

/** A store's details as the node holds them (the phone in E.164, hours per day). */
function StoreDetailsTable({ store }: { store: AdminStore }) {
  const t = useAdminStrings();
  const address = [store.address, store.address2, store.city, store.region, store.postal_code, store.country].filter(Boolean).join(', ');
  const hours = store.hours;
  const rows: [string, string][] = [
    [t.address, address],
    // As the store's country writes it ("912 34 56 78"), like customers' phones; stored in E.164.
    [t.phone, store.phone ? formatPhone(store.phone, store.country) : '—'],
    [t.timeZone, store.time_zone],
    [t.status, store.status === 'active' ? t.active : t.inactive],
    ...(hours ? WEEK_DAYS.map((day): [string, string] => [t[`day_${day}`], hours[day] ?? t.closed]) : [[t.hours, t.noHours] as [string, string]]),
  ];
  return (
    <TableScroll>
      <Table aria-label={t.storeDetails} withRowBorders={false} verticalSpacing={4} maw={720}>
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th w={180}>{label}</Table.Th>
              <Table.Td>{value === 'closed' ? t.closed : value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </TableScroll>
  );
}

/** A key just issued: its secret, shown once, until that key is revoked or another action is taken. */
interface Issued {
  keyId: number;
  secret: string;
  role: string;
  /** The node's screens, as it knows its own address: where a cashier or kiosk key signs in. */
  screensUrl: string;
}

/** Where the key just issued is used: the screen it opens and its address (a paired store's node's own, at central). */
function WhereToSignIn({ issued, atPairedNode }: { issued: Issued; atPairedNode: boolean }) {
  const t = useAdminStrings();
  if (issued.role !== 'cashier' && issued.role !== 'kiosk') return t.keyForIntegration(issued.screensUrl);
  const screen = issued.role === 'cashier' ? t.keyScreen_cashier : t.keyScreen_kiosk;
  return atPairedNode ? t.keySignInAtPairedNode(screen) : t.keySignInAt(issued.screensUrl, screen);
}

/** Issue a key; `onIssued` gets it (shown by the page), `onError` the refusal (null when an attempt starts). */
function IssueKey({ storeId, problem, onIssued, onError }: { storeId: number; problem: FieldProblem | null; onIssued: (issued: Issued | null) => void; onError: (refusal: Refusal | null) => void }) {
  const t = useAdminStrings();
  const keyRoleName = useKeyRoleName();
  const [label, setLabel] = useState('');
  const [role, setRole] = useState<string | null>('cashier');
  return (
    <Group align="end">
      <TextInput label={t.label} value={label} onChange={(e) => setLabel(e.currentTarget.value)} {...invalidProps(problem, 'label')} />
      <Select label={t.keyRole} data={API_KEY_ROLES.map((r) => ({ value: r, label: keyRoleName(r) }))} value={role} onChange={setRole} allowDeselect={false} {...invalidProps(problem, 'role')} />
      <Button
        onClick={() => {
          onError(null);
          onIssued(null);
          adminStore
            .getState()
            .api()
            .issueKey(storeId, role ?? 'cashier', label)
            .then((made) => {
              setLabel('');
              onIssued({ keyId: made.key.id, secret: made.api_key, role: made.key.role, screensUrl: made.screens_url });
            })
            .catch((e: unknown) => onError(refusalOf(e, 'issue')));
        }}
      >
        {t.issue}
      </Button>
    </Group>
  );
}

/** A refusal shown under the keys: its text, the form it answers and the field the node named. */
interface Refusal {
  text: string;
  form: 'issue' | 'revoke';
  field: string | null;
}
const refusalOf = (e: unknown, form: Refusal['form']): Refusal => ({ text: refusalText(e), form, field: e instanceof NodeApiError ? e.field : null });

/** A key's Revoke, after a confirmation: the node refuses the key from then on, for good. */
function RevokeKeyButton({ apiKey, onRevoked, onError }: { apiKey: ApiKey; onRevoked: () => void; onError: (refusal: Refusal | null) => void }) {
  const t = useAdminStrings();
  const revoke = () => {
    onError(null);
    return adminStore
      .getState()
      .api()
      .revokeKey(apiKey.id)
      .then(onRevoked)
      .catch((e: unknown) => onError(refusalOf(e, 'revoke')));
  };
  return <ConfirmedActionButton action={t.revoke} row={apiKey.label} title={t.confirmRevoke(apiKey.label)} body={t.confirmRevokeBody} yes={t.yesRevoke} act={revoke} />;
}

export function StoreDetail({ storeId }: { storeId: number }) {
  const t = useAdminStrings();
  const keyRoleName = useKeyRoleName();
  const store = useLoad(() => adminStore.getState().api().store(storeId), [storeId]);
  const keys = useLoad(() => adminStore.getState().api().keys(storeId), [storeId]);
  // At central, a store with a paired node uses its keys there, out of central's sight. One load
  // serves this and the node's health below, so an unpair there updates the keys' words too.
  const chain = useLoad(() => adminStore.getState().api().chain(storeId), [storeId]);
  const usedAtNode = chain.data?.role === 'central' && chain.data.nodes.some((n) => n.store === storeId && n.revoked_at === null);
  const canWrite = useCanWriteStores();
  const [said, setSaid] = useState<Said | null>(null);
  const [error, setError] = useState<Refusal | null>(null);
  const errorId = useId();
  const [issued, setIssued] = useState<Issued | null>(null);
  // Any other action on the page ends the one-time display of a key (and a stale refusal).
  const acted = () => {
    setIssued(null);
    setError(null);
  };
  const refused = store.error ?? keys.error;
  return (
    <Stack>
      <Anchor href="#/stores">{t.back}</Anchor>
      {refused && (
        <Alert color="red" role="alert">
          {refused}
        </Alert>
      )}
      {store.data && (
        <>
          <Group>
            <Title order={2} size="h3">
              {store.data.name}
            </Title>
            <OpenBadge store={store.data} />
            {canWrite && (
              <StoreFormButton
                key={store.data.date_updated}
                store={store.data}
                onSaved={() => {
                  acted();
                  setSaid({ say: (strings) => strings.storeSaved });
                  store.reload();
                }}
              />
            )}
          </Group>
          {said && (
            <Alert color="teal" role="status">
              {said.say(t)}
            </Alert>
          )}
          <StoreDetailsTable store={store.data} />
        </>
      )}
      {keys.data && store.data && (
        <>
          <Title order={3} size="h4" mt="md">
            {t.keysTable(store.data.name)}
          </Title>
          <TableScroll>
            <Table aria-label={t.keysTable(store.data.name)} striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t.label}</Table.Th>
                  <Table.Th>{t.keyRole}</Table.Th>
                  <Table.Th>{t.hint}</Table.Th>
                  <Table.Th>{t.created}</Table.Th>
                  <Table.Th>{t.lastUsed}</Table.Th>
                  <ActionsHeader />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {keys.data.items.map((key) => (
                  <Table.Tr key={key.id} aria-label={key.label}>
                    <Table.Td>{key.label}</Table.Td>
                    <Table.Td>{keyRoleName(key.role)}</Table.Td>
                    <Table.Td>…{key.hint}</Table.Td>
                    <Table.Td>{formatDateTime(key.date_created)}</Table.Td>
                    <Table.Td>{key.last_used ? formatDateTime(key.last_used) : usedAtNode ? t.notSeenAtCentral : t.never}</Table.Td>
                    <Table.Td>
                      {key.revoked ? (
                        <Badge tt="none" color="gray">{t.revoked}</Badge>
                      ) : (
                        <RevokeKeyButton
                          apiKey={key}
                          onRevoked={() => {
                            acted();
                            keys.reload();
                          }}
                          onError={(refusal) => {
                            if (refusal === null) acted();
                            else setError(refusal);
                          }}
                        />
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </TableScroll>
          {usedAtNode && (
            <Text size="sm" c="dimmed" data-testid="keys-used-at-node">
              {t.keysUsedAtNode}
            </Text>
          )}
          {error && (
            <Alert color="red" role="alert" id={errorId}>
              {error.text}
            </Alert>
          )}
          <IssueKey
            storeId={storeId}
            problem={error?.form === 'issue' ? { messageId: errorId, field: error.field } : null}
            onError={setError}
            onIssued={(made) => {
              setIssued(made);
              if (made) keys.reload();
            }}
          />
          {issued && (
            <Alert color="teal" title={t.issued}>
              <Code data-testid="issued-key">{issued.secret}</Code>
              <Text size="sm" mt="xs" data-testid="issued-key-where">
                <WhereToSignIn issued={issued} atPairedNode={usedAtNode} />
              </Text>
            </Alert>
          )}
          <ChainHealth chain={chain} />
        </>
      )}
    </Stack>
  );
}
