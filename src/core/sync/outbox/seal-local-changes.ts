import { type Kysely, sql } from 'kysely';
import type { Engine } from '../../engine';
import { holderBalance, type HolderType } from '../../ledger/ledger';
import { prepared } from '../../storage/prepared';
import type { DB } from '../../storage/schema';
import type { BelievedBalance } from '../protocol';
import { recordSyncEvent } from './record-event';

/**
 * On a paired store, groups the row changes a command captured (sync_changes rows not yet in an
 * event) into one event with the next gapless node_seq, in the command's own transaction: if the
 * sale commits, so does its event. Returns the event's node_seq, or null when nothing changed.
 */
export async function sealLocalChanges(db: Kysely<DB>, engine: Engine, type: string): Promise<number | null> {
  const loose = await looseChanges(db);
  if (loose.length === 0) return null;
  const believed = await believedAvailable(db, loose);
  const payload = believed.length > 0 ? { believed_available: believed } : null;
  const { nodeSeq } = await recordSyncEvent(db, engine, { type, version: 1, payload, offline: !engine.centralLink.reachable });
  await sealLooseChanges(db, nodeSeq);
  return nodeSeq;
}

/**
 * The command's own changes, not yet in an event: few, found by the event_seq index (filtering by
 * table in the query would let the planner walk every ledger change of an offline backlog by the
 * (tbl, row_id) index instead). Only ledger rows' data is read: the rest is not needed here.
 */
const looseChanges = prepared((db) =>
  db
    .selectFrom('sync_changes')
    .select(['tbl', sql<string | null>`case when tbl = 'ledger_entries' then data end`.as('data')])
    .where('event_seq', 'is', null),
);
const sealLooseChanges = prepared((db, nodeSeq: number) => db.updateTable('sync_changes').set({ event_seq: nodeSeq }).where('event_seq', 'is', null));

/**
 * For each account the command spent from, the balance the store saw before the command: its
 * balance now less the command's own entries on it. Central names it when an offline spend left a
 * balance negative, so staff see what the store knew.
 */
async function believedAvailable(db: Kysely<DB>, loose: Array<{ tbl: string; data: string | null }>): Promise<BelievedBalance[]> {
  const rows = loose.filter((row) => row.tbl === 'ledger_entries');
  const moved = new Map<string, { key: Omit<BelievedBalance, 'balance'>; sum: number; spent: boolean }>();
  for (const row of rows) {
    const entry = JSON.parse(row.data!) as { amount: number; holder_type: string; holder_id: number; currency_id: number };
    const id = `${entry.holder_type}:${entry.holder_id}:${entry.currency_id}`;
    const account = moved.get(id) ?? { key: { holder_type: entry.holder_type, holder_id: entry.holder_id, currency_id: entry.currency_id }, sum: 0, spent: false };
    account.sum += entry.amount;
    account.spent ||= entry.amount < 0;
    moved.set(id, account);
  }
  const believed: BelievedBalance[] = [];
  for (const { key, sum, spent } of moved.values()) {
    if (!spent) continue;
    const now = await holderBalance(db, { holderType: key.holder_type as HolderType, holderId: key.holder_id, currencyId: key.currency_id });
    believed.push({ ...key, balance: now - sum });
  }
  return believed;
}
