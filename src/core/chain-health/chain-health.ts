import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { recordAudit } from '../audit/record-audit';
import { type Engine, transact } from '../engine';
import { rememberBalanceWhenResolved } from '../ledger/overdraft-resolved';
import { actorOf } from '../staff/authorize';
import type { DB } from '../storage/schema';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { listSyncNodes } from '../sync/central/pairing';
import { levelBeside } from '../sync/schema-level';
import { listSyncExceptions, saidOf, type SyncExceptionRecord } from '../sync/central/sync-exceptions';
import { type ChainException, withCustomersNamed } from './exception-customers';
import { type ExceptionOrder, ordersNamed } from './exception-orders';
import { orderIdInSubject } from '../../shared/exception-subject';
import { ordersMentioned } from '../../shared/sync-exception-said';

// Each paired store node's health as central sees it, and the exceptions offline selling left, for
// the back office. Reads the sync tables through sync's own use cases; only resolving writes
// (the exception's resolved_at, with its audit record).

export interface StoreNodeHealth {
  id: number;
  storeId: number;
  storeName: string;
  label: string;
  pairedAt: number;
  lastSeenAt: number | null;
  lastEvent: number;
  /** Changes of the program central holds past the node's cursor: what the store has yet to pull, counted up to PENDING_COUNTED. */
  pendingChanges: number;
  /** More than PENDING_COUNTED are waiting (pendingChanges is then PENDING_COUNTED). */
  pendingChangesCapped: boolean;
  /** waiting: paired, not heard from since; in_progress: taking its snapshot or pulling, still behind, nothing sent; done: caught up or selling. */
  firstSync: 'waiting' | 'in_progress' | 'done';
  rejectedEvents: number;
  openExceptions: number;
  revokedAt: number | null;
  /** The store's version as its last sync said it (schema level), and how it stands to central's. */
  schemaLevel: string | null;
  version: 'older' | 'same' | 'newer' | null;
}

/**
 * `onlyStoreId`: one store of the program (a store manager's, or the one asked for); a store that
 * is not the program's (another vendor's, or none) is 404 `store_not_found`, as everywhere in the
 * back office, not an empty page.
 */
export async function listStoreNodeHealth(engine: Engine, vendorId: number, onlyStoreId: number | null): Promise<StoreNodeHealth[]> {
  if (onlyStoreId !== null) {
    const store = await engine.db.selectFrom('stores').select('id').where('vendor_id', '=', vendorId).where('id', '=', onlyStoreId).executeTakeFirst();
    if (!store) throw new ServiceError('store_not_found', undefined, 'store');
  }
  const nodes = (await listSyncNodes(engine, vendorId)).filter((n) => onlyStoreId === null || n.storeId === onlyStoreId);
  if (nodes.length === 0) return [];
  const stores = new Map((await engine.db.selectFrom('stores').select(['id', 'name']).where('vendor_id', '=', vendorId).execute()).map((s) => [Number(s.id), s.name]));
  const open = (await listSyncExceptions(engine, vendorId, { open: true })).filter((e) => e.nodeId !== null);
  const health: StoreNodeHealth[] = [];
  for (const node of nodes) {
    const pending = await pendingChangesQuery(engine.db, vendorId, node.cursor).executeTakeFirst();
    const rejected = await rejectedVerdictsQuery(engine.db, node.id).executeTakeFirst();
    const counted = Number(pending?.n ?? 0);
    const pendingChanges = Math.min(counted, PENDING_COUNTED);
    health.push({
      id: node.id,
      storeId: node.storeId,
      storeName: stores.get(node.storeId) ?? '',
      label: node.label,
      pairedAt: node.pairedAt,
      lastSeenAt: node.lastSeenAt,
      lastEvent: node.lastSeq,
      pendingChanges,
      pendingChangesCapped: counted > PENDING_COUNTED,
      firstSync: firstSyncOf(node, pendingChanges),
      rejectedEvents: Number(rejected?.n ?? 0),
      openExceptions: open.filter((e) => e.nodeId === node.id).length,
      revokedAt: node.revokedAt,
      schemaLevel: node.schemaLevel,
      version: levelBeside(node.schemaLevel),
    });
  }
  return health;
}

/**
 * How many changes the chain page counts for a node at most: a store paired but not yet synced, or
 * away for weeks, has the program's whole log after its cursor, and counting it all took a read of
 * every entry (millions on a year-old central) for each node on each view of the page.
 */
export const PENDING_COUNTED = 10_000;

/** The changes after a node's cursor, up to one more than PENDING_COUNTED (a range of the (vendor_id, seq) index). Exported for the plan test. */
export const pendingChangesQuery = (db: Kysely<DB>, vendorId: number, cursor: number) =>
  db
    .selectFrom(db.selectFrom('sync_changes').select('seq').where('vendor_id', '=', vendorId).where('seq', '>', cursor).limit(PENDING_COUNTED + 1).as('pending'))
    .select((eb) => eb.fn.countAll().as('n'));

/** A node's rejected events, through the partial index of rejected verdicts (migration 0024). Exported for the plan test. */
export const rejectedVerdictsQuery = (db: Kysely<DB>, nodeId: number) =>
  db.selectFrom('sync_verdicts').select((eb) => eb.fn.countAll().as('n')).where('node_id', '=', nodeId).where('verdict', '=', 'rejected');

/**
 * A store taking its snapshot has not moved its log cursor yet (the log follows the snapshot), but
 * central has seen it since pairing: the snapshot's first page marks the node seen.
 */
function firstSyncOf(node: { lastSeq: number; cursor: number; pairedAt: number; lastSeenAt: number | null }, pendingChanges: number): StoreNodeHealth['firstSync'] {
  if (pendingChanges === 0 || node.lastSeq > 0) return 'done';
  if (node.cursor > 0 || (node.lastSeenAt ?? 0) > node.pairedAt) return 'in_progress';
  return 'waiting';
}

/**
 * An exception as the chain page lists it: the customers it mentions named, the sale its subject
 * names by receipt, and the sales its message names (a reused receipt's first sale) with their
 * customers, who are named too.
 */
export type ListedChainException = ChainException & { order: ExceptionOrder | null; mentionedOrders: ExceptionOrder[] };

/** Open (or, with `resolved`, every) exception of the program, a store manager's store only, with the customers they mention named and their orders' receipts. */
export async function listChainExceptions(engine: Engine, vendorId: number, onlyStoreId: number | null, options: { resolved: boolean }): Promise<ListedChainException[]> {
  const all = await listSyncExceptions(engine, vendorId, { open: !options.resolved });
  const shown = all.filter((e) => onlyStoreId === null || e.storeId === onlyStoreId);
  const named = shown.map((e) => ({ e, subjectOrder: orderIdInSubject(e.subject) ?? 0, mentioned: ordersMentioned(e.said) }));
  const orders = await ordersNamed(engine, vendorId, named.flatMap((n) => [n.subjectOrder, ...n.mentioned]));
  const withOrders = named.map(({ e, subjectOrder, mentioned }) => ({
    ...e,
    order: orders.get(subjectOrder) ?? null,
    mentionedOrders: mentioned.flatMap((id) => orders.get(id) ?? []),
  }));
  return withCustomersNamed(engine, vendorId, withOrders, (e) => e.mentionedOrders.flatMap((o) => (o.customer === null ? [] : [o.customer])));
}

/** Marks an open exception resolved, with the staff member's note in the audit log. */
export async function resolveChainException(engine: Engine, staff: StaffPrincipal, id: number, note: string): Promise<SyncExceptionRecord> {
  const clean = note.trim();
  if (clean.length < 3 || clean.length > 500) throw new ServiceError('validation_failed', 'Say how it was resolved (3 to 500 characters).', 'note');
  return transact(engine, async (trx) => {
    const row = await trx.selectFrom('sync_exceptions').selectAll().where('id', '=', id).where('vendor_id', '=', staff.vendorId).where('resolved_at', 'is', null).executeTakeFirst();
    if (!row) throw new ServiceError('sync_exception_not_found');
    const storeId = row.store_id === null ? null : Number(row.store_id);
    if (staff.role === 'store_manager' && storeId !== staff.storeId) throw new ServiceError('forbidden', 'A store manager sees only their own store.');
    const now = engine.clock.now();
    await trx.updateTable('sync_exceptions').set({ resolved_at: now }).where('id', '=', id).execute();
    if (row.kind === 'offline_overdraft') await rememberBalanceWhenResolved(trx, { id, vendorId: staff.vendorId, subject: row.subject, messageData: row.message_data });
    await recordAudit(trx, engine, actorOf(staff), {
      action: 'sync_exception.resolve',
      objectType: 'sync_exception',
      objectId: id,
      before: { kind: row.kind, subject: row.subject, message: row.message, resolved: false },
      after: { resolved: true, note: clean },
    });
    return { id, storeId, nodeId: row.node_id === null ? null : Number(row.node_id), kind: row.kind, subject: row.subject, message: row.message, said: saidOf(row.message_data), createdAt: Number(row.created_at), resolvedAt: now };
  });
}
