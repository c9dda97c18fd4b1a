import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { type HolderType, openAccount } from '../../ledger/ledger';
import { nodeOfId, SEQUENCE_SPAN } from '../../storage/ids';
import { inList } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import type { PushedEvent, RowChange } from '../protocol';
import { TABLE_ORDER, replicatedTable } from '../replicated-tables';
import { hasOnlyKnownColumns, pickColumns, tableColumns } from '../table-columns';
import { chunks, listIn, setIn } from '../bulk-lists';
import { insertRowsPostgres, moveBalancesPostgres, updateRowsPostgres } from './bulk-write-postgres';
import { insertRowsSqlite, moveBalancesSqlite, updateRowsSqlite } from './bulk-write-sqlite';
import { survivingCustomerId } from '../../customers/customer-store';
import { isPlainRegistration, learnPageCustomers, type PageCustomers, rememberRegistration } from './page-customers';
import type { PairedNode } from './apply-push';
import { outsideNodeByRow } from './push-scope';
import { applyStoreChangeEffects, type StoreChangeEffects } from './store-change-effects';

// The bulk path of a store's push (docs/sync.md, "Applying a push"). Most events a store sends are
// sales: new sessions, orders, history records and ledger entries that central has never seen and
// that no conflict rule touches. A run of such events is applied with a few multi-row statements
// (one insert per table, one balance move for all accounts) instead of a dozen statements per
// event. Anything else (a row central already has, a customer, a card, an open check-in, a reused
// receipt) takes the per-event path, which applies the conflict rules; the two give the same result.

/** Tables whose brand-new rows the bulk path may insert as sent. */
const PLAIN_TABLES = new Set(['users', 'user_vendors', 'pos_sessions', 'orders', 'transactions', 'ledger_entries']);

/** What the bulk path must know about a page before judging its events. */
export interface PageKnowledge {
  /** The rows the page names that central had when the push began, per table and id. */
  rows: Map<string, Map<number, Row>>;
  /** Ids per table written since by this push: a second write to one goes the per-event way. */
  written: Map<string, Set<number>>;
  /** `store:receipt` of orders taken so far in this push (a receipt sent twice goes the per-event way). */
  receipts: Set<string>;
  /**
   * Whether runs may take check-ins: a new open check-in, and a check-in written by several events
   * of the run (opened, then closed by the sale). Only when no integration wants check-in events,
   * which the per-event path raises version by version.
   */
  sessionsInBulk: boolean;
  /** The run being gathered (cleared when it is applied). */
  run: RunKnowledge;
  /** What customers registered at the counter could clash with. */
  customers: PageCustomers;
  /** The ids of the node's program's currencies (an entry in another's is refused one by one). */
  currencies: Set<number>;
}

interface RunKnowledge {
  /** Ids per table written by the run's events. */
  written: Map<string, Set<number>>;
  /** Customers the run opens a check-in for. */
  opened: Set<number>;
  /** Per customer, the check-in the run opened and has not closed yet. */
  openNow: Map<number, number>;
  /** Customers whose check-ins central had the run changes. */
  changedSessionsOf: Set<number>;
}

const emptyRun = (): RunKnowledge => ({ written: new Map(), opened: new Set(), openNow: new Map(), changedSessionsOf: new Set() });

type Row = Record<string, unknown>;

/**
 * The rows a page names that central has: one query per table for those it may have. Receipts are
 * not looked up: a receipt central already has for the store fails the run's insert on the orders'
 * unique key, and the push then takes that run's events one by one, where the reuse is resolved.
 */
export async function learnPage(trx: Kysely<DB>, events: PushedEvent[], options: { vendorId: number; sessionsInBulk: boolean }): Promise<PageKnowledge> {
  const ids = new Map<string, number[]>();
  for (const event of events) {
    for (const change of event.changes) {
      const id = change.data['id'];
      if (typeof id !== 'number' || !PLAIN_TABLES.has(change.tbl)) continue;
      listIn(ids, change.tbl).push(id);
    }
  }
  const rows = new Map<string, Map<number, Row>>();
  for (const [table, list] of ids) {
    const found = new Map<number, Row>();
    for (const chunk of chunks(await idsCentralMayHave(trx, table, [...new Set(list)]), 5_000)) {
      const existing = await trx
        .selectFrom(table as 'orders')
        .selectAll()
        .where(inList(trx, 'id', chunk, 'bigint'))
        .execute();
      for (const row of existing) found.set(Number(row.id), row as Row);
    }
    rows.set(table, found);
  }
  const customers = await learnPageCustomers(trx, events, options.vendorId);
  const currencies = new Set((await trx.selectFrom('currencies').select('id').where('vendor_id', '=', options.vendorId).execute()).map((row) => Number(row.id)));
  return { rows, written: new Map(), receipts: new Set(), sessionsInBulk: options.sessionsInBulk, run: emptyRun(), customers, currencies };
}

/**
 * The ids central may have of `table`: an id is its node's number × 2^32 + that node's counter, so
 * one above the highest central holds in its node's range is new (a store's sales, almost always),
 * and only the others need looking up. One indexed read per node.
 */
async function idsCentralMayHave(trx: Kysely<DB>, table: string, ids: number[]): Promise<number[]> {
  const byNode = new Map<number, number[]>();
  for (const id of ids) listIn(byNode, nodeOfId(id)).push(id);
  const maybe: number[] = [];
  for (const [node, list] of byNode) {
    const [low, high] = [node * SEQUENCE_SPAN, (node + 1) * SEQUENCE_SPAN];
    const top = await trx
      .selectFrom(table as 'orders')
      .select((eb) => eb.fn.max('id').as('top'))
      .where('id', '>=', low)
      .where('id', '<', high)
      .executeTakeFirst();
    if (top?.top == null) continue;
    const highest = Number(top.top);
    for (const id of list) if (id <= highest) maybe.push(id);
  }
  return maybe;
}

/** The run was applied (or taken event by event): the next one starts empty. */
export function startNewRun(page: PageKnowledge): void {
  page.run = emptyRun();
}

/**
 * What an event writes counts as known to the events after it, once it is taken into a run or
 * applied: a row or receipt sent twice in one page makes its second event go the per-event way.
 */
export function rememberEvent(page: PageKnowledge, event: PushedEvent, inRun: boolean): void {
  for (const change of event.changes) {
    const id = change.data['id'];
    if (typeof id !== 'number') continue;
    setIn(page.written, change.tbl).add(id);
    if (inRun) setIn(page.run.written, change.tbl).add(id);
    if (change.tbl === 'orders') page.receipts.add(`${String(change.data['store_id'])}:${String(change.data['receipt_number'])}`);
    rememberRegistration(page.customers, change);
    if (inRun && change.tbl === 'pos_sessions') {
      const existing = page.rows.get('pos_sessions')?.get(id);
      const user = Number(existing ? existing['user_id'] : change.data['user_id']);
      if (existing) {
        page.run.changedSessionsOf.add(user);
      } else if (change.data['status'] === 'active') {
        page.run.opened.add(user);
        page.run.openNow.set(user, id);
      } else if (page.run.openNow.get(user) === id) {
        page.run.openNow.delete(user);
      }
    }
  }
}

/**
 * Whether an event is only this node's sales that central can take as sent: new rows, and changes a
 * store may make to rows central had when the push began. Anything the per-event path would refuse
 * or resolve is "no" here, so that path still decides it.
 */
export function isPlainSale(page: PageKnowledge, node: PairedNode, event: PushedEvent): boolean {
  for (const change of lastVersionOfEachRow(event.changes)) {
    const { data } = change;
    const id = data['id'];
    if (change.op !== 'upsert' || !PLAIN_TABLES.has(change.tbl)) return false;
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) return false;
    // Whatever reaches outside the node's store or program is the per-event path's to refuse.
    if (outsideNodeByRow(node, change.tbl, data, page.rows.get(change.tbl)?.get(id)) !== null) return false;
    if (page.written.get(change.tbl)?.has(id)) {
      // A check-in this run opened or changed, written again (closed by the sale): merged in the run.
      if (change.tbl === 'pos_sessions' && page.sessionsInBulk && page.run.written.get(change.tbl)?.has(id)) continue;
      return false;
    }
    const existing = page.rows.get(change.tbl)?.get(id);
    if (existing) {
      // A customer or membership central has is the per-event path's (merges, the first membership).
      if (change.tbl === 'users' || change.tbl === 'user_vendors') return false;
      if (Number(existing['vendor_id']) !== node.vendorId) return false;
      if (change.tbl === 'pos_sessions') {
        // A check-in a store reopens needs the one-open-check-in rule.
        if (storePatch(change.tbl, existing, data)['status'] === 'active') return false;
        // Nor may a run open a check-in for a customer and change their others: their order matters.
        if (page.run.opened.has(Number(existing['user_id']))) return false;
      }
      continue;
    }
    // A customer belongs to no vendor; everything else of a new row must be this node's vendor's.
    if (nodeOfId(id) !== node.id || (change.tbl !== 'users' && data['vendor_id'] !== node.vendorId)) return false;
    if (typeof data['user_id'] === 'number' && !Number.isSafeInteger(data['user_id'])) return false;
    switch (change.tbl) {
      case 'users':
      case 'user_vendors':
        if (!isPlainRegistration(page.customers, change)) return false;
        // A membership of a customer another node made: the per-event path checks it is a member.
        if (change.tbl === 'user_vendors' && (typeof data['user_id'] !== 'number' || nodeOfId(data['user_id']) !== node.id)) return false;
        break;
      case 'pos_sessions':
        if (data['status'] === 'active') {
          // A new open check-in closes the customer's others (as moved): in a run, only once the
          // one the run opened before for them is closed, and not beside changes to others of theirs.
          const user = data['user_id'];
          if (!page.sessionsInBulk || typeof user !== 'number' || page.run.openNow.has(user) || page.run.changedSessionsOf.has(user)) return false;
        }
        break;
      case 'orders':
        if (page.receipts.has(`${String(data['store_id'])}:${String(data['receipt_number'])}`)) return false;
        break;
      case 'ledger_entries': {
        const amount = data['amount'];
        if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount === 0) return false;
        if ((data['holder_type'] !== 'user' && data['holder_type'] !== 'card') || !Number.isSafeInteger(data['holder_id']) || !Number.isSafeInteger(data['currency_id'])) return false;
        if (!page.currencies.has(Number(data['currency_id']))) return false;
        // A void's reversal may meet another node's void of the same order (repeated-void.ts).
        if (data['reverses_id'] != null) return false;
        break;
      }
    }
  }
  return true;
}

/**
 * What central takes from a store's copy of a row it has: the columns a store may write, where they
 * differ. Closed stays closed: a check-in closed at one store is not reopened by another's stale copy.
 */
export function storePatch(table: string, existing: Row, data: Row): Row {
  const patch: Row = {};
  for (const column of replicatedTable(table)?.storeWritable ?? []) if (column in data && data[column] !== existing[column]) patch[column] = data[column];
  if (table === 'pos_sessions' && existing['status'] !== 'active' && patch['status'] === 'active') {
    delete patch['status'];
    delete patch['closed_at'];
    delete patch['closed_reason'];
  }
  // An order voided here first keeps its void: another node's later void is a repeat (repeated-void.ts).
  if (table === 'orders' && existing['status'] === 'voided') {
    delete patch['status'];
    delete patch['void_reply'];
    delete patch['voided_at'];
  }
  return patch;
}

/**
 * A row a command wrote twice (an order inserted, then given its transaction) travels as two
 * changes; central needs only the row as the command left it, at the place of its first write
 * (so parents still come before children).
 */
export function lastVersionOfEachRow(changes: RowChange[]): RowChange[] {
  // Judging a page and applying it both ask, once per event.
  const known = lastVersions.get(changes);
  if (known) return known;
  let last = changes;
  // Most events write each row once: their changes are then the answer as they are.
  if (writesARowTwice(changes)) {
    const rows = new Map<string, RowChange>();
    for (const change of changes) rows.set(`${change.tbl}:${String(change.data['id'])}`, change);
    last = [...rows.values()];
  }
  lastVersions.set(changes, last);
  return last;
}

function writesARowTwice(changes: RowChange[]): boolean {
  // An event holds a handful of changes: comparing pairs beats building keys.
  for (let i = 1; i < changes.length; i += 1) {
    for (let j = 0; j < i; j += 1) if (changes[i]!.tbl === changes[j]!.tbl && String(changes[i]!.data['id']) === String(changes[j]!.data['id'])) return true;
  }
  return false;
}

const lastVersions = new WeakMap<RowChange[], RowChange[]>();

interface BatchContext {
  engine: Engine;
  vendorId: number;
  effects: StoreChangeEffects;
  survivors: Map<number, number>;
  /** Accounts whose balance moved (settled after the push). */
  accounts: Set<number>;
}

/**
 * Applies a run of plain sales with multi-row statements, in the caller's transaction. Throws if
 * the database refuses any of it; the caller then rolls back to its savepoint and takes the events
 * one by one.
 */
export async function applyPlainSales(trx: Kysely<DB>, page: PageKnowledge, events: PushedEvent[], context: BatchContext): Promise<void> {
  const { engine, vendorId, effects } = context;
  // Central keeps the entries it has; a store's copy of one changes nothing.
  const changes = rowsOfRun(page, events).filter(({ change, before }) => !(before && change.tbl === 'ledger_entries'));
  const updates = new Map<string, Row[]>();
  for (const { change, before, later } of changes) if (before) listIn(updates, change.tbl).push(patched(change.tbl, before, [change, ...later]));
  await resolveSurvivors(
    trx,
    changes.map(({ change }) => change.data['user_id']).filter((id): id is number => typeof id === 'number'),
    context,
  );
  await closeOtherCheckIns(trx, engine, vendorId, changes, updates.get('pos_sessions') ?? [], context.survivors);

  const inserts = changes.filter(({ before }) => !before);
  const entries = inserts.filter(({ change }) => change.tbl === 'ledger_entries');
  const accountOf = await openAccountsOf(trx, engine, vendorId, entries.map(({ change }) => change.data));
  const rowsByTable = new Map<string, Record<string, unknown>[]>();
  const moves = new Map<number, number>();
  const columnsOf = new Map<string, Set<string>>();
  for (const table of new Set(inserts.map(({ change }) => change.tbl))) columnsOf.set(table, await tableColumns(trx, engine.dialect, table));
  for (const { change, later } of inserts) {
    const columns = columnsOf.get(change.tbl)!;
    const defaults = replicatedTable(change.tbl)?.insertDefaults;
    // The event's own row when it has nothing to drop or add (most do): read, never changed here.
    const picked = !defaults && hasOnlyKnownColumns(change.data, columns) ? change.data : pickColumns(change.data, columns, defaults);
    const row = patched(change.tbl, picked, later);
    // What central writes differently from the store: into a copy, so the event's row stays as sent.
    const overrides: Row = {};
    const userId = row['user_id'];
    const survivor = typeof userId === 'number' ? context.survivors.get(userId) : undefined;
    if (survivor !== undefined && survivor !== userId) overrides['user_id'] = survivor;
    // As the per-event path registers them: the customer's first vendor is this one; billing profiles live at central.
    if (change.tbl === 'users') overrides['first_vendor_id'] = vendorId;
    if (change.tbl === 'user_vendors') {
      if ((overrides['user_id'] ?? userId) !== change.data['user_id']) throw new Error('a membership of a merged customer: applied event by event');
      overrides['billing_profile_id'] = null;
    }
    // Masked columns are central's own: a store's new row starts with the fixed value (as insertFromStore).
    for (const [column, value] of Object.entries(replicatedTable(change.tbl)?.masked ?? {})) if (row[column] !== value) overrides[column] = value;
    if (change.tbl === 'ledger_entries') {
      const accountId = accountOf(change.data);
      overrides['account_id'] = accountId;
      moves.set(accountId, (moves.get(accountId) ?? 0) + Number(change.data['amount']));
    }
    listIn(rowsByTable, change.tbl).push(Object.keys(overrides).length === 0 ? row : { ...row, ...overrides });
  }

  // Balances before the run, only when an effect needs each entry's balance after it.
  const needsEffects = effects.wanted.size > 0 || entries.some(({ change }) => Number(change.data['amount']) < 0);
  const running = needsEffects ? await balancesOf(trx, [...moves.keys()]) : new Map<number, number>();

  for (const table of [...new Set([...rowsByTable.keys(), ...updates.keys()])].sort((a, b) => (TABLE_ORDER.get(a) ?? 0) - (TABLE_ORDER.get(b) ?? 0))) {
    await insertRows(trx, engine, table, rowsByTable.get(table) ?? []);
    // Every row a store sent is written, changed or not, so its central version is logged and flows back.
    await updateRows(trx, engine, table, updates.get(table) ?? []);
  }
  await moveBalances(trx, engine, moves);
  for (const accountId of moves.keys()) context.accounts.add(accountId);

  if (!needsEffects) return;
  // Check-ins merged across events raise nothing here: runs take them only when no integration wants check-in events.
  for (const { event, change, before } of changes) {
    const id = change.data['id'] as number;
    const occurredAt = Number(event.created_at) || engine.clock.now();
    if (change.tbl === 'ledger_entries') {
      const accountId = accountOf(change.data);
      const balanceAfter = (running.get(accountId) ?? 0) + Number(change.data['amount']);
      running.set(accountId, balanceAfter);
      await applyStoreChangeEffects(trx, engine, effects, { tbl: change.tbl, id, occurredAt, accountId, kind: String(change.data['kind']), balanceAfter }, undefined);
    } else {
      await applyStoreChangeEffects(trx, engine, effects, { tbl: change.tbl, id, occurredAt }, before);
    }
  }
}

interface RunRow {
  /** The event that first wrote the row (its place in the run) and that version. */
  event: PushedEvent;
  change: RowChange;
  /** Later versions from later events of the run (a check-in closed by the sale). */
  later: RowChange[];
  /** Central's row when the push began; none for a new row. */
  before: Row | undefined;
}

/** Each row the run writes, once, at the place of its first write, with its later versions. */
function rowsOfRun(page: PageKnowledge, events: PushedEvent[]): RunRow[] {
  const rows: RunRow[] = [];
  const byTable = new Map<string, Map<unknown, RunRow>>();
  for (const event of events) {
    for (const change of lastVersionOfEachRow(event.changes)) {
      let byId = byTable.get(change.tbl);
      if (!byId) byTable.set(change.tbl, (byId = new Map()));
      const id = change.data['id'];
      const known = byId.get(id);
      if (known) {
        known.later.push(change);
      } else {
        const row = { event, change, later: [], before: page.rows.get(change.tbl)?.get(id as number) };
        byId.set(id, row);
        rows.push(row);
      }
    }
  }
  return rows;
}

/** A row as the per-event path leaves it: each later version taken by the store-patch rules in turn. */
function patched(table: string, row: Row, versions: RowChange[]): Row {
  let current = row;
  for (const version of versions) current = { ...current, ...storePatch(table, current, version.data) };
  return current;
}

/**
 * One open check-in per customer in the chain: a check-in the run opens closes the customer's
 * others in the program (the node's vendor) at central as moved, as the per-event path does when
 * it inserts one. The run holds a customer's next check-in only after closing the one before
 * (isPlainSale), so closing what central had open before the run is enough. Cases whose order
 * would matter once merges are resolved (a check-in of a merged customer, or one opened while the
 * run also changes another of the survivor's) are refused, so the run is taken event by event.
 */
async function closeOtherCheckIns(trx: Kysely<DB>, engine: Engine, vendorId: number, rows: RunRow[], sessionUpdates: Row[], survivors: Map<number, number>): Promise<void> {
  const opened = rows.filter(({ change, before }) => change.tbl === 'pos_sessions' && !before && change.data['status'] === 'active').map(({ change }) => change.data['user_id'] as number);
  if (opened.length === 0) return;
  const customers = new Set(opened);
  if (opened.some((user) => (survivors.get(user) ?? user) !== user) || sessionUpdates.some((row) => customers.has(Number(row['user_id'])))) throw new Error('check-ins whose order matters: applied event by event');
  const now = engine.clock.now();
  for (const chunk of chunks([...customers], 5_000)) {
    await trx.updateTable('pos_sessions').set({ status: 'closed', closed_at: now, closed_reason: 'moved', updated_at: now }).where('user_id', 'in', chunk).where('vendor_id', '=', vendorId).where('status', '=', 'active').execute();
  }
}

/** Customers merged into another are represented by the survivor: one read for the whole run. */
async function resolveSurvivors(trx: Kysely<DB>, userIds: number[], context: BatchContext): Promise<void> {
  const unknown = [...new Set(userIds)].filter((id) => !context.survivors.has(id));
  for (const chunk of chunks(unknown, 5_000)) {
    const rows = await trx.selectFrom('users').select(['id', 'merged_into']).where(inList(trx, 'id', chunk, 'bigint')).execute();
    const merged = new Map(rows.map((r) => [Number(r.id), r.merged_into]));
    for (const id of chunk) {
      context.survivors.set(id, merged.get(id) ? await survivingCustomerId(trx, id) : id);
    }
  }
}

type AccountOf = (entry: Record<string, unknown>) => number;

/** Central's own account for each entry's holder and currency, opened where missing. */
async function openAccountsOf(trx: Kysely<DB>, engine: Engine, vendorId: number, entries: Record<string, unknown>[]): Promise<AccountOf> {
  const keyOf = (entry: Record<string, unknown>) => `${String(entry['holder_type'])}:${String(entry['holder_id'])}:${String(entry['currency_id'])}`;
  const accounts = new Map<string, number>();
  const holders = new Map<string, number[]>();
  for (const entry of entries) listIn(holders, String(entry['holder_type'])).push(Number(entry['holder_id']));
  for (const [holderType, ids] of holders) {
    for (const chunk of chunks([...new Set(ids)], 5_000)) {
      const rows = await trx.selectFrom('ledger_accounts').select(['id', 'holder_id', 'currency_id']).where('holder_type', '=', holderType).where(inList(trx, 'holder_id', chunk, 'bigint')).execute();
      for (const row of rows) accounts.set(`${holderType}:${Number(row.holder_id)}:${Number(row.currency_id)}`, Number(row.id));
    }
  }
  for (const entry of entries) {
    const key = keyOf(entry);
    if (accounts.has(key)) continue;
    const id = await openAccount(trx, engine, { vendorId, currencyId: Number(entry['currency_id']), holderType: entry['holder_type'] as HolderType, holderId: Number(entry['holder_id']) });
    accounts.set(key, id);
  }
  return (entry) => {
    const id = accounts.get(keyOf(entry));
    if (id === undefined) throw new Error(`no account for ${keyOf(entry)}`);
    return id;
  };
}

async function balancesOf(trx: Kysely<DB>, accountIds: number[]): Promise<Map<number, number>> {
  const balances = new Map<number, number>();
  for (const chunk of chunks(accountIds, 5_000)) {
    const rows = await trx.selectFrom('ledger_accounts').select(['id', 'balance']).where(inList(trx, 'id', chunk, 'bigint')).execute();
    for (const row of rows) balances.set(Number(row.id), Number(row.balance));
  }
  return balances;
}

/** Multi-row inserts, by the database's bulk writer; rows with different column sets (a newer node's rows) go in separate statements. */
export async function insertRows(trx: Kysely<DB>, engine: Engine, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (engine.dialect === 'postgres') await insertRowsPostgres(trx, table, rows);
  else await insertRowsSqlite(trx, engine.db, table, rows);
}

/** Rows central has, set to what the store may change of them: one statement per table and chunk. */
async function updateRows(trx: Kysely<DB>, engine: Engine, table: string, rows: Row[]): Promise<void> {
  const columns = replicatedTable(table)?.storeWritable ?? [];
  if (rows.length === 0) return;
  if (columns.length === 0) {
    // Nothing a store may change: the rows are touched, so their central version is logged.
    await trx
      .updateTable(table as 'orders')
      .set((eb) => ({ id: eb.ref('id') }))
      .where(
        'id',
        'in',
        rows.map((r) => r['id'] as number),
      )
      .execute();
    return;
  }
  if (engine.dialect === 'postgres') await updateRowsPostgres(trx, table, columns, rows);
  else await updateRowsSqlite(trx, table, columns, rows);
}

async function moveBalances(trx: Kysely<DB>, engine: Engine, moves: Map<number, number>): Promise<void> {
  if (engine.dialect === 'postgres') await moveBalancesPostgres(trx, moves, engine.clock.now());
  else await moveBalancesSqlite(trx, moves, engine.clock.now());
}
