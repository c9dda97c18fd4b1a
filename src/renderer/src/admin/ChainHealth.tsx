import { Alert, Badge, Button, Group, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { UnpairNodeButton } from './UnpairNodeButton';
import { TableScroll } from './a11y';
import { useState } from 'react';
import { roleAllows } from '../../../shared/staff-roles';
import { refusalText } from './node-refusal';
import type { ChainException, ChainHealth as ChainHealthData } from './admin-api';
import { ExceptionText } from './ExceptionText';
import { adminStore, useAdmin } from './admin-store';
import { formatDateTime } from './format';
import { durationWords, nodeSilentMs } from './node-silence';
import { useAdminStrings } from './strings';
import type { Loaded } from './use-load';

/**
 * A store's node as central sees it (last seen, changes to pull, first sync, rejected events) and
 * the exceptions to resolve, from the store page's load of `GET /backoffice/chain?store=`.
 */
export function ChainHealth({ chain }: { chain: Loaded<ChainHealthData> }) {
  const t = useAdminStrings();
  const role = useAdmin((s) => s.staff?.role);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  if (chain.error)
    return (
      <Alert color="red" role="alert">
        {chain.error}
      </Alert>
    );
  const c = chain.data;
  if (!c) return <Text>{t.loading}</Text>;
  const canResolve = role !== undefined && roleAllows(role, 'customers.write');
  const canUnpair = role !== undefined && roleAllows(role, 'stores.write');
  // A message naming a store's node by id ("voided at node 12") names it by its label.
  const nodeLabels = new Map(c.nodes.map((n) => [n.id, n.label]));
  return (
    <Paper withBorder p="md" data-testid="node-health">
      <Title order={3} size="h4">{t.chainTitle}</Title>
      {message && (
        <Alert color={message.ok ? 'teal' : 'red'} role={message.ok ? 'status' : 'alert'} my="sm">
          {message.text}
        </Alert>
      )}
      {c.role === 'store' ? (
        <Text c="dimmed">{t.notCentral}</Text>
      ) : c.nodes.length === 0 ? (
        <Text c="dimmed">{t.notPaired}</Text>
      ) : (
        <TableScroll>
          <Table aria-label={t.chainTitle}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.label}</Table.Th>
                <Table.Th>{t.lastSeen}</Table.Th>
                <Table.Th>{t.lastEvent}</Table.Th>
                <Table.Th>{t.pendingChanges}</Table.Th>
                <Table.Th>{t.firstSync}</Table.Th>
                <Table.Th>{t.rejected}</Table.Th>
                <Table.Th>{t.openExceptions}</Table.Th>
                <Table.Th>{t.nodeVersion}</Table.Th>
                {canUnpair && <Table.Th>{t.nodeActions}</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {c.nodes.map((n) => (
                <Table.Tr key={n.id} aria-label={n.label}>
                  <Table.Td>
                    {n.label}
                    {/* A replaced till often pairs under the same name (the machine's): when each was paired tells them apart. */}
                    <Text size="xs" c="dimmed">
                      {t.nodePairedAt(formatDateTime(n.paired_at))}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {n.last_seen_at ? formatDateTime(n.last_seen_at) : t.never}
                    <NodeContact node={n} />
                  </Table.Td>
                  <Table.Td>{n.last_event}</Table.Td>
                  <Table.Td>{n.pending_changes_capped ? `${n.pending_changes.toLocaleString()}+` : n.pending_changes}</Table.Td>
                  <Table.Td>
                    <Badge tt="none" color={n.first_sync === 'done' ? 'teal' : 'yellow'}>{t[`firstSync_${n.first_sync}`]}</Badge>
                  </Table.Td>
                  <Table.Td>{n.rejected_events}</Table.Td>
                  <Table.Td>{n.open_exceptions}</Table.Td>
                  <Table.Td>
                    {/* The level's number (its last migration) and what it means during an upgrade store by store. */}
                    {n.version === null || n.schema_level === null ? (
                      <Text size="sm" c="dimmed">
                        {t.nodeVersionUnknown}
                      </Text>
                    ) : (
                      <Group gap={6} wrap="nowrap">
                        <Text size="sm">{n.schema_level.slice(0, 4)}</Text>
                        <Badge tt="none" color={n.version === 'same' ? 'teal' : 'orange'}>
                          {t[`version_${n.version}`]}
                        </Badge>
                      </Group>
                    )}
                  </Table.Td>
                  {canUnpair && (
                    <Table.Td>
                      {n.revoked_at === null && (
                        <UnpairNodeButton
                          nodeId={n.id}
                          label={n.label}
                          onDone={(result) => {
                            setMessage(result.ok ? { ok: true, text: t.nodeUnpaired(n.label) } : { ok: false, text: result.error });
                            if (result.ok) chain.reload();
                          }}
                        />
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {c.role === 'central' && (
        <Stack mt="md">
          <Title order={4} size="h5">{t.exceptionsTable}</Title>
          {c.exceptions.length === 0 ? (
            <Text c="dimmed">{t.noExceptions}</Text>
          ) : (
            <TableScroll>
              <Table aria-label={t.exceptionsTable}>
                <Table.Tbody>
                  {c.exceptions.map((e) => (
                    <ExceptionRow
                      key={e.id}
                      exception={e}
                      nodeLabels={nodeLabels}
                      canResolve={canResolve}
                      onResolve={(note) =>
                        adminStore
                          .getState()
                          .api()
                          .resolveException(e.id, note)
                          .then(() => {
                            setMessage({ ok: true, text: t.resolvedDone });
                            chain.reload();
                          })
                          .catch((error: unknown) => setMessage({ ok: false, text: refusalText(error) }))
                      }
                    />
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroll>
          )}
        </Stack>
      )}
    </Paper>
  );
}

/** Beside the last contact: an unpaired node says so (kept in the list, its history with it); one central has not heard from lately, for how long. */
function NodeContact({ node }: { node: ChainHealthData['nodes'][number] }) {
  const t = useAdminStrings();
  if (node.revoked_at !== null)
    return (
      <Badge display="block" mt={4} tt="none" color="gray">
        {t.nodeUnpairedAt(formatDateTime(node.revoked_at))}
      </Badge>
    );
  const silentMs = nodeSilentMs(node);
  if (silentMs === null) return null;
  return (
    <Badge display="block" mt={4} tt="none" color="orange">
      {t.nodeSilent(durationWords(t, silentMs))}
    </Badge>
  );
}

function ExceptionRow({ exception, nodeLabels, canResolve, onResolve }: { exception: ChainException; nodeLabels: ReadonlyMap<number, string>; canResolve: boolean; onResolve: (note: string) => void }) {
  const t = useAdminStrings();
  const [note, setNote] = useState('');
  const advice = exceptionAdvice(t, exception.kind);
  return (
    <Table.Tr aria-label={exception.subject}>
      <Table.Td>{formatDateTime(exception.created_at)}</Table.Td>
      <Table.Td>{exceptionKindName(t, exception.kind)}</Table.Td>
      <Table.Td>
        <ExceptionText exception={exception} nodeLabels={nodeLabels} />
        {advice !== null && (
          <Text size="sm" c="dimmed" mt={4}>
            {advice}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        {canResolve && (
          <Group wrap="nowrap">
            <TextInput aria-label={t.resolveNote} placeholder={t.resolveNote} value={note} onChange={(e) => setNote(e.currentTarget.value)} />
            {/* Not squeezed by a long text beside it: it read "Reso". */}
            <Button size="xs" style={{ flexShrink: 0 }} onClick={() => onResolve(note)}>
              {t.resolve}
            </Button>
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** What staff do about a kind (or leave alone); null for a kind this screen does not know yet. */
function exceptionAdvice(t: ReturnType<typeof useAdminStrings>, kind: string): string | null {
  const key = `exceptionAdvice_${kind}` as keyof typeof t;
  return typeof t[key] === 'string' ? (t[key] as string) : null;
}

/** A kind in words; a kind this screen does not know yet (a newer central) as the node names it. */
function exceptionKindName(t: ReturnType<typeof useAdminStrings>, kind: string): string {
  const key = `exceptionKind_${kind}` as keyof typeof t;
  return typeof t[key] === 'string' ? (t[key] as string) : kind;
}
