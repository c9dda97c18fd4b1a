import { type Kysely, sql } from 'kysely';
import { type Engine, transact } from '../../engine';
import { notifyAutoReloadQueued } from '../../payments/auto-reload/auto-reloads';
import { isTransientFailure, isUniqueViolation } from '../../storage/errors';
import { nodeOfId } from '../../storage/ids';
import { preparedInsertInto, preparedRowById } from '../../storage/prepared';
import type { DB } from '../../storage/schema';
import type { EventVerdict, PushedEvent, PushResponse, RowChange } from '../protocol';
import { replicatedTable } from '../replicated-tables';
import { insertReplicatedEntry } from '../replicated-entry';
import { pickColumns, tableColumns } from '../table-columns';
import { applyPlainSales, insertRows, isPlainSale, lastVersionOfEachRow, learnPage, type PageKnowledge, rememberEvent, startNewRun, storePatch } from './apply-batch';
import { lockCustomerIdentifiers, lockNodeLastSeq } from './push-locks';
import { EventRefused } from './event-refused';
import { outsideNodeByReference, outsideNodeByRow } from './push-scope';
import { movesToTell, rememberMovedRows } from './moved-rows';
import { markRepeatedVoidRecord, undoRepeatedReversal } from './repeated-void';
import { renameReusedReceipt, voidRepeatedSale, voidSaleOfVoidedRepeat } from './repeated-sale';
import { answerDivergence, storedVerdicts } from './repeated-events';
import { compareRepeatedEvents, rememberEventIds } from './sync-event-ids';
import { recordSyncException } from './sync-exceptions';
import { flagSalesInAnotherCurrency } from './sale-currency';
import { settleAccounts } from './settle-accounts';
import { applyStoreChangeEffects, prepareStoreChangeEffects, type StoreChangeEffects } from './store-change-effects';
import { giveSurvivorTheContacts, updateCustomerFromStore } from './update-customer-from-store';
import { survivingCustomerId } from '../../customers/customer-store';
import { cardSubject, customerSubject, eventSubject } from '../../../shared/exception-subject';

export interface PairedNode {
  id: number;
  vendorId: number;
  storeId: number;
}

export interface PushOptions {
  /** Every event by the per-event path (the bulk path must give the same result: its test compares them). */
  oneByOne?: boolean;
}

/** The database refused a bulk run: the push runs again with these events (node_seq) taken one by one. */
class BulkRunRefused extends Error {
  constructor(readonly nodeSeqs: number[]) {
    super('a bulk run was refused');
  }
}

/**
 * A store's push, in one transaction; the auto-reload worker is woken after the commit when a spend
 * queued one. A bulk run the database refuses costs the push one more attempt, with that run's
 * events applied one by one (each run refused once at most, so attempts are bounded).
 */
export async function acceptPushedEvents(engine: Engine, node: PairedNode, events: PushedEvent[], options: PushOptions = {}): Promise<PushResponse> {
  const oneByOne = new Set<number>();
  for (;;) {
    try {
      const { response, effects } = await transact(engine, async (trx) => {
        const effects = await prepareStoreChangeEffects(trx, node.vendorId);
        return { response: await applyPushedEvents(trx, engine, node, events, effects, { all: options.oneByOne ?? false, events: oneByOne }), effects };
      }, { alone: true });
      if (effects.autoReloadQueued) notifyAutoReloadQueued(engine);
      return response;
    } catch (error) {
      if (!(error instanceof BulkRunRefused)) throw error;
      for (const seq of error.nodeSeqs) oneByOne.add(seq);
    }
  }
}

/** Which events take the per-event path whether or not they look like plain sales. */
interface OneByOne {
  all: boolean;
  events: ReadonlySet<number>;
}

/**
 * Applies a page of a store's events at central, in the caller's transaction, in node_seq order.
 * A repeated event gets its stored verdict (taken at another node_seq: that one's), unless central
 * took another event at its node_seq and this one nowhere (a store restored from a backup: the
 * store is told to renumber); a gap stops the page and names
 * where to resume; an event central cannot take is rejected (its changes rolled back to a
 * savepoint) so the queue moves on.
 * A sale that happened is never refused for business reasons: conflicts are resolved (docs/sync.md).
 * Runs of plain sales go through the bulk path (apply-batch.ts); every other event is applied alone.
 */
async function applyPushedEvents(trx: Kysely<DB>, engine: Engine, node: PairedNode, events: PushedEvent[], effects: StoreChangeEffects, oneByOne: OneByOne): Promise<PushResponse> {
  // One push per node at a time (push-locks.ts): a retried push waits and finds the first's events repeated.
  const firstSeq = (await lockNodeLastSeq(trx, engine.dialect, node.id)) + 1;
  // An event sent twice in one page counts once.
  const sorted = [...new Map(events.map((e) => [e.node_seq, e])).values()].sort((a, b) => a.node_seq - b.node_seq);
  const repeated = sorted.filter((e) => e.node_seq < firstSeq);
  // A repeated node_seq carrying another event: the store was restored from a backup (repeated-events.ts).
  const { divergedAt, takenElsewhere } = await compareRepeatedEvents(trx, node.id, repeated, firstSeq - 1);
  // Where the rows of repeats a restored copy holds under other ids are here (moved-rows.ts).
  const tell = await movesToTell(trx, node.id, repeated, takenElsewhere);
  if (divergedAt !== null) return answerDivergence(trx, engine, node, repeated, { divergedAt, takenElsewhere, tell }, firstSeq - 1);
  let fresh = sorted.filter((e) => e.node_seq >= firstSeq);
  if (fresh.length > 0 && [...tell.keys()].some((seq) => !takenElsewhere.has(seq))) {
    // The store moves its copies of those rows before its later events, which may name them, come.
    return { results: await storedVerdicts(trx, node.id, repeated, takenElsewhere, tell), resume_from: firstSeq };
  }
  let resumeFrom: number | null = null;
  const gap = fresh.findIndex((e, i) => e.node_seq !== firstSeq + i);
  if (gap >= 0) {
    resumeFrom = firstSeq + gap;
    fresh = fresh.slice(0, gap);
  }

  let readable = fresh.filter(holdsOnlyWholeNumbers);
  await lockCustomerIdentifiers(trx, engine.dialect, readable);
  const verdicts = new Map<number, EventVerdict>();
  for (const verdict of await storedVerdicts(trx, node.id, repeated, takenElsewhere, tell)) verdicts.set(verdict.node_seq, verdict);
  const push: PushState = { accounts: new Set(), effects, survivors: new Map() };
  const page = await learnPage(trx, readable, { vendorId: node.vendorId, sessionsInBulk: !effects.wanted.has('check_in.opened') && !effects.wanted.has('check_in.closed') });
  let run: PushedEvent[] = [];
  const flush = async () => {
    if (run.length > 0) for (const verdict of await applyRun(trx, engine, node, page, run, push)) verdicts.set(verdict.node_seq, verdict);
    run = [];
    startNewRun(page);
  };
  let alone = 0;
  for (const [index, event] of fresh.entries()) {
    // Events applied alone cost ~1 ms each on SQLite, 7–10 ms on PostgreSQL, all inside this push's
    // transaction, which every other write of central waits for (the write lock): a page of 1,000
    // voids held them 5–10 s. Past EVENTS_ALONE_PER_PUSH of them the page stops here; the store
    // sends the rest at once (resume_from), each push a transaction of its own.
    if (alone === EVENTS_ALONE_PER_PUSH) {
      resumeFrom = event.node_seq;
      fresh = fresh.slice(0, index);
      readable = readable.filter((e) => e.node_seq < event.node_seq);
      break;
    }
    if (!holdsOnlyWholeNumbers(event)) {
      await flush();
      verdicts.set(event.node_seq, await rejectEvent(trx, engine, node, event, new EventRefused({ why: 'not_whole_number' })));
    } else if (!oneByOne.all && !oneByOne.events.has(event.node_seq) && isPlainSale(page, node, event)) {
      run.push(event);
      rememberEvent(page, event, true);
    } else {
      await flush();
      verdicts.set(event.node_seq, await applyOneEvent(trx, engine, node, event, push));
      rememberEvent(page, event, false);
      alone += 1;
    }
  }
  await flush();
  await flagSalesInAnotherCurrency(trx, engine, node, readable, verdicts);
  await insertVerdicts(trx, engine, node, fresh.map((e) => verdicts.get(e.node_seq)!));
  await rememberEventIds(trx, engine, node.id, fresh);
  await rememberMovedRows(trx, engine, node.id, fresh);
  await settleAccounts(trx, engine, node, push.accounts, believedBalances(fresh));
  const lastSeq = firstSeq - 1 + fresh.length;
  await trx.updateTable('sync_nodes').set({ last_seq: lastSeq, last_seen_at: engine.clock.now() }).where('id', '=', node.id).execute();
  const results = [...repeated, ...fresh].map((e) => verdicts.get(e.node_seq) ?? { node_seq: e.node_seq, event_id: e.event_id, verdict: 'applied' as const, code: null, message: null });
  return { results, resume_from: resumeFrom };
}

/** Most events one push applies alone (not in a bulk run of plain sales). */
export const EVENTS_ALONE_PER_PUSH = 100;

/**
 * Every column a store pushes is an integer or text, so a fraction or a number past 2^53 is no
 * store's row: such an event is refused before any query reads it (PostgreSQL's bigint casts
 * failed the whole push on it, where SQLite refused the event).
 */
function holdsOnlyWholeNumbers(event: PushedEvent): boolean {
  return event.changes.every((change) => Object.values(change.data).every((value) => typeof value !== 'number' || Number.isSafeInteger(value)));
}

/**
 * What the store believed each account held before its first spend from it in this page: what it
 * knew before its own spends. A later event's belief already has the store's earlier spends (or a
 * void's take-back of earned points) taken off, so it made a store that saw the whole balance look
 * behind ("believed 18 Points" when it had seen 120 and spent 100 of them).
 */
function believedBalances(events: PushedEvent[]): Map<string, number> {
  const believed = new Map<string, number>();
  for (const event of events) {
    for (const b of event.believed_available ?? []) {
      const key = `${b.holder_type}:${b.holder_id}:${b.currency_id}`;
      if (!believed.has(key)) believed.set(key, b.balance);
    }
  }
  return believed;
}

/** Rejections only: an event at or below the node's last without a stored verdict was applied. */
async function insertVerdicts(trx: Kysely<DB>, engine: Engine, node: PairedNode, verdicts: EventVerdict[]): Promise<void> {
  const now = engine.clock.now();
  const rows = verdicts.filter((v) => v.verdict === 'rejected').map((v) => ({ node_id: node.id, node_seq: v.node_seq, event_id: v.event_id, verdict: v.verdict, code: v.code, message: v.message, applied_at: now }));
  await insertRows(trx, engine, 'sync_verdicts', rows);
}

/**
 * A run of plain sales in bulk, without a savepoint of its own (see bulk-write-sqlite.ts): should the
 * database refuse any of it, the push is abandoned and runs again with the run's events one by one.
 */
async function applyRun(trx: Kysely<DB>, engine: Engine, node: PairedNode, page: PageKnowledge, run: PushedEvent[], push: PushState): Promise<EventVerdict[]> {
  const accounts = new Set<number>();
  try {
    await applyPlainSales(trx, page, run, { engine, vendorId: node.vendorId, effects: push.effects, survivors: push.survivors, accounts });
  } catch (error) {
    // A failure of the moment (a deadlock, a timeout) fails the whole push: the store sends it again.
    if (isTransientFailure(error)) throw error;
    throw new BulkRunRefused(run.map((e) => e.node_seq));
  }
  for (const id of accounts) push.accounts.add(id);
  return run.map((e) => ({ node_seq: e.node_seq, event_id: e.event_id, verdict: 'applied', code: null, message: null }));
}

/** What applying one push shares between its events. */
interface PushState {
  accounts: Set<number>;
  effects: StoreChangeEffects;
  survivors: Map<number, number>;
}

/**
 * One event under its savepoint. On PostgreSQL a unique key another transaction took while this one
 * ran (two stores opening the same customer's account, central registering the email a store
 * brings) is not the event's fault: that transaction has committed by the time the insert fails,
 * so the event runs once more, and its reads now see the row and resolve the clash by the rules.
 * A clash that is still there is the data's, and the event is rejected (SQLite has one writer, so
 * there it always is).
 */
async function applyOneEvent(trx: Kysely<DB>, engine: Engine, node: PairedNode, event: PushedEvent, push: PushState): Promise<EventVerdict> {
  const base = { node_seq: event.node_seq, event_id: event.event_id };
  const { effects } = push;
  const queuedBefore = effects.autoReloadQueued;
  const survivorsBefore = new Map(push.survivors);
  const undo = async () => {
    effects.autoReloadQueued = queuedBefore;
    push.survivors.clear();
    for (const [user, survivor] of survivorsBefore) push.survivors.set(user, survivor);
    await sql`rollback to savepoint sync_event`.execute(trx);
    await sql`release savepoint sync_event`.execute(trx);
  };
  for (let attempt = 1; ; attempt += 1) {
    await sql`savepoint sync_event`.execute(trx);
    const accounts = new Set<number>();
    const repeats: number[] = [];
    const voidedOrders = new Set<number>();
    try {
      for (const change of lastVersionOfEachRow(event.changes)) await applyChange(trx, engine, node, event, change, { ...push, accounts, repeats, voidedOrders });
      for (const orderId of repeats) await voidRepeatedSale(trx, engine, orderId);
      for (const orderId of voidedOrders) await voidSaleOfVoidedRepeat(trx, engine, node, orderId);
      await sql`release savepoint sync_event`.execute(trx);
      for (const id of accounts) push.accounts.add(id);
      return { ...base, verdict: 'applied', code: null, message: null };
    } catch (error) {
      // Never a lasting rejection for a failure of the moment: the push fails and is sent again.
      if (isTransientFailure(error)) throw error;
      await undo();
      if (attempt === 1 && engine.dialect === 'postgres' && isUniqueViolation(error)) continue;
      return await rejectEvent(trx, engine, node, event, error);
    }
  }
}

/** A lasting refusal of the event's data: an exception for staff, and the verdict the store keeps. */
async function rejectEvent(trx: Kysely<DB>, engine: Engine, node: PairedNode, event: PushedEvent, error: unknown): Promise<EventVerdict> {
  const refused = error instanceof EventRefused ? error : new EventRefused({ why: 'not_applied', detail: (error as Error).message });
  await recordSyncException(trx, engine, node, 'event_rejected', eventSubject(event.node_seq, event.type), { key: 'event_rejected', params: { code: refused.code, reason: refused.message, ...refused.refusal } });
  return { node_seq: event.node_seq, event_id: event.event_id, verdict: 'rejected', code: refused.code, message: refused.message };
}

/** What one event's changes gather as they are applied. */
interface EventState extends PushState {
  /** Accounts the event's entries moved. */
  accounts: Set<number>;
  /** Orders repeating a sale central holds, voided once the event's rows are in. */
  repeats: number[];
  /** Orders the event's reversal entries void (a repeat's void voids its sale: repeated-sale.ts). */
  voidedOrders: Set<number>;
}

async function applyChange(trx: Kysely<DB>, engine: Engine, node: PairedNode, event: PushedEvent, change: RowChange, push: EventState): Promise<void> {
  const { accounts, effects } = push;
  const table = replicatedTable(change.tbl);
  if (!table?.push) throw new EventRefused({ why: 'table_not_accepted', table: change.tbl });
  // Stores do not delete rows central keeps; a delete in their log only reflects local tidying.
  if (change.op === 'delete') return;
  const data = { ...change.data };
  const id = data['id'];
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new EventRefused({ why: 'row_without_id', table: change.tbl });
  const vendor = change.tbl === 'users' ? data['first_vendor_id'] : data['vendor_id'];
  const [existing] = await preparedRowById(change.tbl)(trx, id);
  if (!existing) {
    if (nodeOfId(id) !== node.id) throw new EventRefused({ why: 'unknown_row', table: change.tbl, id });
    if (change.tbl !== 'users' && vendor !== node.vendorId) throw new EventRefused({ why: 'other_vendor_row', table: change.tbl, id });
  } else if ('vendor_id' in existing && existing.vendor_id !== node.vendorId) {
    throw new EventRefused({ why: 'other_vendor_row', table: change.tbl, id });
  }
  const outsideByRow = outsideNodeByRow(node, change.tbl, data, existing as Record<string, unknown> | undefined);
  if (outsideByRow) throw new EventRefused(outsideByRow);
  const namedUser = data['user_id'];
  if ('user_id' in data && typeof data['user_id'] === 'number') {
    const userId = data['user_id'];
    let survivor = push.survivors.get(userId);
    if (survivor === undefined) push.survivors.set(userId, (survivor = await survivingCustomerId(trx, userId)));
    data['user_id'] = survivor;
  }

  if (!existing) {
    const outside = await outsideNodeByReference(trx, node, change.tbl, data, namedUser);
    if (outside) throw new EventRefused(outside);
  }
  const applied = { tbl: change.tbl, id, occurredAt: Number(event.created_at) || engine.clock.now() };
  switch (change.tbl) {
    case 'ledger_entries': {
      if (existing) return;
      const accountId = await insertEntry(trx, engine, node, data);
      accounts.add(accountId);
      if (data['reverses_id'] != null) {
        await undoRepeatedReversal(trx, engine, accountId, data);
        const orderId = Number(data['reference_id']);
        if (data['reference_type'] === 'order' && Number.isSafeInteger(orderId)) push.voidedOrders.add(orderId);
      }
      await applyStoreChangeEffects(trx, engine, effects, { ...applied, accountId, kind: String(data['kind']) }, undefined);
      return;
    }
    case 'users':
      if (existing) await updateCustomerFromStore(trx, engine, node, existing as Record<string, unknown>, data);
      else await insertCustomer(trx, engine, node, data, event);
      return;
    default: {
      if (!existing && change.tbl === 'transactions') await markRepeatedVoidRecord(trx, engine, node, data);
      const moved = existing
        ? await updateFromStore(trx, engine, change.tbl, existing as Record<string, unknown>, data)
        : await insertFromStore(trx, engine, node, change.tbl, data, push.repeats);
      // Check-ins closed as moved (the customer checked in at another store) raise their own close.
      for (const sessionId of moved) await applyStoreChangeEffects(trx, engine, effects, { tbl: 'pos_sessions', id: sessionId, occurredAt: applied.occurredAt }, { status: 'active' });
      await applyStoreChangeEffects(trx, engine, effects, applied, existing as Record<string, unknown> | undefined);
    }
  }
}

async function insertEntry(trx: Kysely<DB>, engine: Engine, node: PairedNode, data: Record<string, unknown>): Promise<number> {
  const amount = Number(data['amount']);
  if (!Number.isSafeInteger(amount) || amount === 0 || !data['holder_type'] || !Number.isSafeInteger(Number(data['holder_id']))) {
    throw new EventRefused({ why: 'invalid_entry', id: Number(data['id']) });
  }
  return insertReplicatedEntry(trx, engine, node.vendorId, data);
}

/** One phone or email registered at two stores while offline: the later one merges into the first. */
async function insertCustomer(trx: Kysely<DB>, engine: Engine, node: PairedNode, data: Record<string, unknown>, event: PushedEvent): Promise<void> {
  const columns = await tableColumns(trx, engine.dialect, 'users');
  const row = pickColumns(data, columns, replicatedTable('users')?.insertDefaults);
  row['first_vendor_id'] = node.vendorId;
  const same = await findSameCustomer(trx, node.vendorId, data);
  if (same) {
    // The survivor keeps the identifiers; this id stays as a pointer so old references resolve.
    row['email_key'] = null;
    row['phone'] = null;
    row['merged_into'] = same.id;
    row['status'] = 'merged';
  }
  await preparedInsertInto('users')(trx, row);
  if (same) {
    // Which contact met: staff tell one person registered twice from two sharing a phone or an email.
    await recordSyncException(trx, engine, node, 'customer_merged', customerSubject(Number(data['id'])), { key: 'customer_merged', params: { contact: same.by, customer: same.id } });
    await giveSurvivorTheContacts(trx, engine, node, same.id, data, registeredAtKiosk(event, Number(data['id'])));
  }
}

/** Whether the event registering this customer opened their check-in at a kiosk (register-in-store.ts). */
function registeredAtKiosk(event: PushedEvent, userId: number): boolean {
  return event.changes.some((change) => change.tbl === 'pos_sessions' && change.data['user_id'] === userId && change.data['opened_by'] === 'kiosk');
}

async function findSameCustomer(trx: Kysely<DB>, vendorId: number, data: Record<string, unknown>): Promise<{ id: number; by: 'email' | 'phone' } | null> {
  if (typeof data['email_key'] === 'string') {
    const byEmail = await trx.selectFrom('users').select('id').where('email_key', '=', data['email_key']).executeTakeFirst();
    if (byEmail) return { id: Number(byEmail.id), by: 'email' };
  }
  if (typeof data['phone'] === 'string' && data['phone']) {
    const byPhone = await trx
      .selectFrom('users as u')
      .innerJoin('user_vendors as uv', 'uv.user_id', 'u.id')
      .select('u.id')
      .where('u.phone', '=', data['phone'])
      .where('u.merged_into', 'is', null)
      .where('uv.vendor_id', '=', vendorId)
      .where('uv.removed_at', 'is', null)
      .orderBy('u.id')
      .executeTakeFirst();
    if (byPhone) return { id: Number(byPhone.id), by: 'phone' };
  }
  return null;
}

/**
 * Inserts a store's new row under the conflict rules; returns the check-ins it closed as moved. An
 * order repeating the sale another holds its receipt for goes to `repeats` (repeated-sale.ts).
 */
async function insertFromStore(trx: Kysely<DB>, engine: Engine, node: PairedNode, table: string, data: Record<string, unknown>, repeats: number[]): Promise<number[]> {
  const columns = await tableColumns(trx, engine.dialect, table);
  // A masked column is central's own: a store's new row starts with the fixed value, whatever it says.
  const replicated = replicatedTable(table);
  const row = { ...pickColumns(data, columns, replicated?.insertDefaults), ...replicated?.masked };
  const now = engine.clock.now();
  if (table === 'user_vendors' && row['removed_at'] == null) {
    const linked = await trx
      .selectFrom('user_vendors')
      .select('id')
      .where('user_id', '=', row['user_id'] as number)
      .where('vendor_id', '=', node.vendorId)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    // The customer joined at two stores (or was merged): the first membership stands.
    if (linked) row['removed_at'] = now;
    row['billing_profile_id'] = null;
  }
  if (table === 'user_cards' && row['removed_at'] == null) {
    const holder = await trx.selectFrom('user_cards').select(['user_id']).where('card_id', '=', row['card_id'] as number).where('removed_at', 'is', null).executeTakeFirst();
    if (holder && Number(holder.user_id) !== row['user_id']) {
      row['removed_at'] = now;
      row['status'] = 'removed';
      await recordSyncException(trx, engine, node, 'card_conflict', cardSubject(String(row['card_id'])), {
        key: 'card_linked_twice',
        params: { customer: Number(row['user_id']), holder: Number(holder.user_id) },
      });
    } else if (holder) {
      row['removed_at'] = now;
    }
  }
  if (table === 'cards' && row['deleted_at'] == null) {
    const same = await trx.selectFrom('cards').select('id').where('vendor_id', '=', node.vendorId).where('number_key', '=', row['number_key'] as string).where('deleted_at', 'is', null).executeTakeFirst();
    if (same) {
      row['deleted_at'] = now;
      await recordSyncException(trx, engine, node, 'card_conflict', cardSubject(String(row['id'])), { key: 'card_number_twice', params: { card: Number(same.id) } });
    }
  }
  const moved = table === 'pos_sessions' && row['status'] === 'active' ? await closeOtherActiveSession(trx, row['user_id'] as number, row['vendor_id'] as number, now) : [];
  if (table === 'orders' && (await renameReusedReceipt(trx, engine, node, row))) repeats.push(row['id'] as number);
  await preparedInsertInto(table)(trx, row);
  return moved;
}

/**
 * A customer has one open check-in in the chain (the program): the one applied last stands, the
 * others of the vendor are closed as moved. Check-ins in other programs are not this store's to close.
 */
async function closeOtherActiveSession(trx: Kysely<DB>, userId: number, vendorId: number, now: number): Promise<number[]> {
  const closed = await trx
    .updateTable('pos_sessions')
    .set({ status: 'closed', closed_at: now, closed_reason: 'moved', updated_at: now })
    .where('user_id', '=', userId)
    .where('vendor_id', '=', vendorId)
    .where('status', '=', 'active')
    .returning('id')
    .execute();
  return closed.map((r) => Number(r.id));
}

async function updateFromStore(trx: Kysely<DB>, engine: Engine, table: string, existing: Record<string, unknown>, data: Record<string, unknown>): Promise<number[]> {
  const patch = storePatch(table, existing, data);
  const moved = table === 'pos_sessions' && patch['status'] === 'active' ? await closeOtherActiveSession(trx, Number(existing['user_id']), Number(existing['vendor_id']), engine.clock.now()) : [];
  // Even when nothing is taken, touch the row so its central version is logged and flows back.
  const set = Object.keys(patch).length > 0 ? patch : { id: existing['id'] };
  await trx
    .updateTable(table as 'orders')
    .set(set as never)
    .where('id', '=', existing['id'] as number)
    .execute();
  return moved;
}
