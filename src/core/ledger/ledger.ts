import type { Insertable, Kysely } from 'kysely';
import { type Engine, isChainCentral } from '../engine';
import { ServiceError } from '../../shared/errors';
import { nextObjectId } from '../storage/ids';
import { prepared, preparedInsert } from '../storage/prepared';
import { clearSettledOverdraft } from './overdraft-flags';
import type { DB, LedgerAccountsTable } from '../storage/schema';
import { recordBalanceUpdated } from '../webhooks/events';

// Every movement of value is an immutable entry on an account (one per holder and currency).
// The account row caches the balance, updated in the same transaction as the entry, and can always
// be rebuilt from the entries. Mistakes are fixed with compensating entries (`reverses_id`).

const insertAccount = preparedInsert('ledger_accounts');

const insertEntry = preparedInsert('ledger_entries');

export type HolderType = 'user' | 'card';

export interface AccountKey {
  vendorId: number;
  currencyId: number;
  holderType: HolderType;
  holderId: number;
}

export interface NewEntry {
  amount: number;
  kind: string;
  referenceType?: string | null;
  referenceId?: string | null;
  reversesId?: number | null;
  expiresAt?: number | null;
}

/**
 * The holder's account in the currency, opened at its first entry. On PostgreSQL two transactions
 * may open the same account at once (a new customer's first order at two tills, or two stores'
 * pushes at central): the insert then waits for the other, does nothing once it commits, and the
 * account it made is read back instead of failing on the unique key. SQLite runs one writer.
 */
export async function openAccount(db: Kysely<DB>, engine: Engine, key: AccountKey): Promise<number> {
  const [existing] = await accountOfHolder(db, key.holderType, key.holderId, key.currencyId);
  if (existing) return existing.id;
  const id = await nextObjectId(db, engine.nodeId);
  const row = { id, vendor_id: key.vendorId, currency_id: key.currencyId, holder_type: key.holderType, holder_id: key.holderId, balance: 0, updated_at: engine.clock.now() };
  if (engine.dialect === 'sqlite') {
    await insertAccount(db, row);
    return id;
  }
  await insertAccountUnlessOpened(db, row);
  const [opened] = await accountOfHolder(db, key.holderType, key.holderId, key.currencyId);
  if (!opened) throw new Error(`ledger account of ${key.holderType} ${key.holderId} in currency ${key.currencyId} is missing`);
  return opened.id;
}

const insertAccountUnlessOpened = (db: Kysely<DB>, row: Insertable<LedgerAccountsTable>) =>
  db.insertInto('ledger_accounts').values(row).onConflict((oc) => oc.constraint('ledger_accounts_holder_currency').doNothing()).execute();

/** The cached balance of an account, in minor units. */
const balanceOfAccount = prepared((db, accountId: number) => db.selectFrom('ledger_accounts').select('balance').where('id', '=', accountId));

export async function accountBalance(db: Kysely<DB>, accountId: number): Promise<number> {
  const [row] = await balanceOfAccount(db, accountId);
  if (!row) throw new Error(`ledger account ${accountId} is missing`);
  return Number(row.balance);
}

/** A holder's balance in one currency; 0 before their first entry opens the account. */
export async function holderBalance(db: Kysely<DB>, key: Omit<AccountKey, 'vendorId'>): Promise<number> {
  const [row] = await accountOfHolder(db, key.holderType, key.holderId, key.currencyId);
  return row ? Number(row.balance) : 0;
}

const accountOfHolder = prepared((db, holderType: string, holderId: number, currencyId: number) =>
  db.selectFrom('ledger_accounts').select(['id', 'balance']).where('holder_type', '=', holderType).where('holder_id', '=', holderId).where('currency_id', '=', currencyId),
);
/** Moves the cached balance and answers the account (one statement; on PostgreSQL it locks the row first). */
const moveBalance = prepared((db, amount: number, now: number, accountId: number) =>
  db
    .updateTable('ledger_accounts')
    .set((eb) => ({ balance: eb('balance', '+', amount), updated_at: now }))
    .where('id', '=', accountId)
    .returning(['balance', 'vendor_id', 'holder_type', 'holder_id', 'currency_id']),
);

/** Appends an entry and moves the cached balance; call inside the command's transaction. */
export async function postEntry(db: Kysely<DB>, engine: Engine, accountId: number, entry: NewEntry): Promise<{ id: number; balance: number }> {
  if (!Number.isSafeInteger(entry.amount) || entry.amount === 0) throw new RangeError('a ledger amount is a non-zero integer of minor units');
  const now = engine.clock.now();
  const [account] = await moveBalance(db, entry.amount, now, accountId);
  if (!account) throw new Error(`ledger account ${accountId} is missing`);
  // A balance is a JSON number in every reply: beyond 2^53 − 1 it would no longer be exact (nor
  // match its entries' sum). The refusal rolls the command back with its move.
  if (!Number.isSafeInteger(Number(account.balance))) throw new ServiceError('balance_limit');
  const id = await nextObjectId(db, engine.nodeId);
  await insertEntry(db, {
    id,
    vendor_id: account.vendor_id,
    account_id: accountId,
    amount: entry.amount,
    kind: entry.kind,
    reference_type: entry.referenceType ?? null,
    reference_id: entry.referenceId ?? null,
    reverses_id: entry.reversesId ?? null,
    origin_node: engine.nodeId,
    created_at: now,
    expires_at: entry.expiresAt ?? null,
  });
  const balance = Number(account.balance);
  // Only central holds offline-overdraft flags; a credit there (reload, adjustment) may settle one.
  if (entry.amount > 0 && balance >= 0 && account.holder_type === 'user' && isChainCentral(engine)) {
    await clearSettledOverdraft(db, engine, { vendorId: account.vendor_id, userId: Number(account.holder_id), currencyId: Number(account.currency_id) });
  }
  await recordBalanceUpdated(db, engine, {
    vendorId: account.vendor_id,
    accountId,
    holderType: account.holder_type,
    holderId: account.holder_id,
    currencyId: account.currency_id,
    entryId: id,
    amount: entry.amount,
    balance,
    kind: entry.kind,
    referenceType: entry.referenceType ?? null,
    referenceId: entry.referenceId ?? null,
    createdAt: now,
  });
  return { id, balance };
}

export interface BalanceMismatch {
  accountId: number;
  cached: number;
  fromEntries: number;
}

/** Accounts whose cached balance differs from the sum of their entries (should always be none). */
export async function findBalanceMismatches(db: Kysely<DB>): Promise<BalanceMismatch[]> {
  const rows = await db
    .selectFrom('ledger_accounts as a')
    .leftJoin('ledger_entries as e', 'e.account_id', 'a.id')
    .select((eb) => ['a.id', 'a.balance', eb.fn.coalesce(eb.fn.sum<number>('e.amount'), eb.lit(0)).as('total')])
    .groupBy(['a.id', 'a.balance'])
    .execute();
  return rows
    .map((row) => ({ accountId: row.id, cached: Number(row.balance), fromEntries: Number(row.total) }))
    .filter((row) => row.cached !== row.fromEntries);
}

/** Recomputes every cached balance from the entries (repair after a restore, or a check). */
export async function rebuildBalances(db: Kysely<DB>, engine: Engine): Promise<number> {
  const mismatches = await findBalanceMismatches(db);
  for (const m of mismatches) {
    await db.updateTable('ledger_accounts').set({ balance: m.fromEntries, updated_at: engine.clock.now() }).where('id', '=', m.accountId).execute();
  }
  return mismatches.length;
}
