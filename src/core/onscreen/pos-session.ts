import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { StoreScope } from '../credentials/authenticate';
import type { Engine } from '../engine';
import { type ProgramData, programData } from '../program-cache/program-data';
import { recordCheckInEvent } from '../webhooks/events';
import type { StoreEvent } from '../events/store-events';
import { nextObjectId } from '../storage/ids';
import { prepared, preparedInsert } from '../storage/prepared';
import type { DB, PosSessionsTable } from '../storage/schema';
import { pooledRandomHex } from '../storage/random-pool';

export type PosSessionRow = Selectable<PosSessionsTable>;

/** Where a session is opened: a store of the vendor, and the point of sale when a cashier opened it. */
export interface Counter {
  vendorId: number;
  storeId: number;
  posId: number | null;
}

export function counterOf(scope: StoreScope): Counter {
  return { vendorId: scope.vendorId, storeId: scope.storeId, posId: scope.posId };
}

/**
 * Opens a session for the customer at the counter's store. A customer has one open session per
 * program (vendor) at a time: checking in again at the same store returns that session (a double
 * scan must not queue the customer twice); checking in at another store of the vendor closes the
 * old one ("moved"). Sessions in other programs are theirs: the account is shared, the queue not.
 */
export async function openSession(
  db: Kysely<DB>,
  engine: Engine,
  counter: Counter,
  input: { userId: number; identifiedBy: string; cardNumber: string | null; openedBy: string; atKiosk?: boolean },
): Promise<{ session: PosSessionRow; events: StoreEvent[] }> {
  const now = engine.clock.now();
  const kioskIdentifiedAt = input.atKiosk ? now : null;
  const events: StoreEvent[] = [];
  const [open] = await openSessionOfUser(db, input.userId, counter.vendorId);
  if (open && open.store_id === counter.storeId) {
    const touched = await touchIfStillOpen(db, now, open, { ...input, kioskIdentifiedAt });
    // Closed since the read (an order committed meanwhile, PostgreSQL): opened anew below.
    if (touched) return { session: touched, events: [{ ...sessionEvent('session.updated', touched, now), by: input.openedBy }] };
  } else if (open && (await closeAsMoved(db, now, open.id)).length > 0) {
    // Only when still open: a close made since the read was announced by whoever made it.
    await recordCheckInEvent(db, engine, 'check_in.closed', open, { at: now, reason: 'moved' });
    events.push(sessionEvent('session.closed', open, now));
  }
  const session: PosSessionRow = {
    id: await nextObjectId(db, engine.nodeId),
    hash: pooledRandomHex(16),
    vendor_id: counter.vendorId,
    store_id: counter.storeId,
    pos_id: counter.posId,
    user_id: input.userId,
    status: 'active',
    identified_by: input.identifiedBy,
    card_number: input.cardNumber,
    opened_by: input.openedBy,
    table_number: null,
    created_at: now,
    updated_at: now,
    closed_at: null,
    closed_reason: null,
    kiosk_identified_at: kioskIdentifiedAt,
  };
  await insertSession(db, session);
  await recordCheckInEvent(db, engine, 'check_in.opened', session);
  events.push({ ...sessionEvent('session.opened', session, now), by: input.openedBy });
  return { session, events };
}

/** The session identified anew, or null when it was closed since it was read (a closed hash is no answer). */
async function touchIfStillOpen(db: Kysely<DB>, now: number, open: PosSessionRow, input: { identifiedBy: string; cardNumber: string | null; kioskIdentifiedAt: number | null }): Promise<PosSessionRow | null> {
  const touched = await touchSession(db, now, input.identifiedBy, input.cardNumber, input.kioskIdentifiedAt, open.id);
  return touched.length > 0 ? { ...open, updated_at: now, identified_by: input.identifiedBy, card_number: input.cardNumber, kiosk_identified_at: input.kioskIdentifiedAt } : null;
}

export function sessionEvent(type: StoreEvent['type'], session: PosSessionRow, at: number): StoreEvent {
  return { type, vendorId: session.vendor_id, storeId: session.store_id, sessionId: session.id, at };
}

export function publishAll(engine: Engine, events: StoreEvent[], tags: Pick<StoreEvent, 'station' | 'screen'> = {}): void {
  for (const event of events) engine.events.publish({ ...event, ...tags });
}

/** An open session of this store by its hash; anything else (closed, other store or vendor) is 404. */
const openSessionByHash = prepared((db, hash: string, vendorId: number, storeId: number) =>
  db.selectFrom('pos_sessions').selectAll().where('hash', '=', hash).where('vendor_id', '=', vendorId).where('store_id', '=', storeId).where('status', '=', 'active'),
);

const insertSession = preparedInsert('pos_sessions');

/**
 * The customer checked in again at the same store: the open session is theirs, identified anew
 * (by a kiosk or not: the last identification decides what a kiosk key may read).
 * Only while it is still open; the row comes back when it was touched.
 */
const touchSession = prepared((db, now: number, identifiedBy: string, cardNumber: string | null, kioskIdentifiedAt: number | null, id: number) =>
  db.updateTable('pos_sessions').set({ updated_at: now, identified_by: identifiedBy, card_number: cardNumber, kiosk_identified_at: kioskIdentifiedAt }).where('id', '=', id).where('status', '=', 'active').returning('id'),
);

/** Closes a session the customer left for another store of the program, if it is still open. */
const closeAsMoved = prepared((db, now: number, id: number) =>
  db.updateTable('pos_sessions').set({ status: 'closed', closed_at: now, closed_reason: 'moved', updated_at: now }).where('id', '=', id).where('status', '=', 'active').returning('id'),
);

/** The customer's open session in this program (read through pos_sessions_open_user_vendor, migration 0029). */
export const openSessionOfUserQuery = (db: Kysely<DB>, userId: number, vendorId: number) =>
  db.selectFrom('pos_sessions').selectAll().where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('status', '=', 'active');
const openSessionOfUser = prepared(openSessionOfUserQuery);

export async function findOpenSession(db: Kysely<DB>, counter: { vendorId: number; storeId: number }, hash: string): Promise<PosSessionRow> {
  const [session] = await openSessionByHash(db, hash, counter.vendorId, counter.storeId);
  if (!session) throw new ServiceError('session_not_found', undefined, 'pos_session_hash');
  return session;
}

/** The counter's store and point of sale (the store's first when the key names none), from the program cache. */
export function counterInfoIn(program: ProgramData, counter: Counter) {
  const store = program.stores.get(counter.storeId);
  if (!store) throw new ServiceError('store_not_found');
  const pos = counter.posId === null ? program.pointsOfSale.find((p) => p.store_id === store.id) : program.pointsOfSale.find((p) => p.id === counter.posId);
  return { store, pos: pos ?? null };
}

/** The counter's vendor, store and point of sale; `db` may be the command's transaction. */
export async function loadCounterInfo(engine: Engine, db: Kysely<DB>, counter: Counter) {
  // Every check-in, registration and sale starts here: a node central revoked sells nothing it could not deliver.
  if (engine.centralLink.unpaired) throw new ServiceError('store_unpaired_at_central');
  const program = await programData(engine.db, counter.vendorId, db);
  return { vendor: program.vendor, program, ...counterInfoIn(program, counter) };
}
