import type { Kysely } from 'kysely';
import { customerSubject, overdraftSubject } from '../../../shared/exception-subject';
import type { Engine } from '../../engine';
import { findUserVendor } from '../../customers/customer-store';
import { openAccount, postEntry } from '../../ledger/ledger';
import { clearSettledOverdraft } from '../../ledger/overdraft-flags';
import { overdraftAlreadyAccepted } from '../../ledger/overdraft-resolved';
import { inList } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import { recordSyncException } from './sync-exceptions';

/**
 * After a store's events land: balances of merged customers move to the survivor (a pair of
 * entries, never an edit); a customer whose balance went negative from offline spends is flagged
 * with an exception for the store, one per currency below zero, each resolved once that balance is
 * settled; the flag lifts once every balance is.
 */
export async function settleAccounts(trx: Kysely<DB>, engine: Engine, node: PairedNode, accountIds: Set<number>, believed: Map<string, number> = new Map()): Promise<void> {
  const ids = [...accountIds];
  for (let i = 0; i < ids.length; i += 5_000) {
    const accounts = await readAccounts(trx, node, ids.slice(i, i + 5_000));
    const merged = accounts.filter((a) => a.merged_into);
    for (const account of merged) await settleAccount(trx, engine, node, account, believed);
    // A merge moved balances into survivors' accounts: the others are read again after it.
    const others = merged.length > 0 ? await readAccounts(trx, node, accounts.filter((a) => !a.merged_into).map((a) => Number(a.id))) : accounts;
    for (const account of others) await settleAccount(trx, engine, node, account, believed);
  }
}

/** Each account, whether its holder was merged, and the holder's membership, in one read. */
async function readAccounts(trx: Kysely<DB>, node: PairedNode, ids: number[]): Promise<AccountFacts[]> {
  if (ids.length === 0) return [];
  return trx
    .selectFrom('ledger_accounts as a')
    .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'a.holder_id').on('a.holder_type', '=', 'user'))
    .leftJoin('user_vendors as uv', (join) => join.onRef('uv.user_id', '=', 'a.holder_id').on('uv.vendor_id', '=', node.vendorId).on('uv.removed_at', 'is', null))
    .select(['a.id', 'a.holder_type', 'a.holder_id', 'a.currency_id', 'a.balance', 'u.merged_into', 'uv.id as membership_id', 'uv.flagged_reason'])
    .where(inList(trx, 'a.id', ids, 'bigint'))
    .orderBy('a.id')
    .execute();
}

interface AccountFacts {
  id: number;
  holder_type: string;
  holder_id: number;
  currency_id: number;
  balance: number;
  merged_into: number | null;
  membership_id: number | null;
  flagged_reason: string | null;
}

async function settleAccount(trx: Kysely<DB>, engine: Engine, node: PairedNode, account: AccountFacts, believed: Map<string, number>): Promise<void> {
  if (account.holder_type !== 'user') return;
  let holderId = Number(account.holder_id);
  let balance = Number(account.balance);
  let membership = account.membership_id === null ? null : { id: Number(account.membership_id), flagged_reason: account.flagged_reason };
  let survivorAccountId: number | null = null;
  if (account.merged_into && balance !== 0) {
    holderId = Number(account.merged_into);
    const survivorAccount = await openAccount(trx, engine, { vendorId: node.vendorId, currencyId: Number(account.currency_id), holderType: 'user', holderId });
    survivorAccountId = survivorAccount;
    await postEntry(trx, engine, Number(account.id), { amount: -balance, kind: 'merge_out', referenceType: 'user', referenceId: String(holderId) });
    balance = (await postEntry(trx, engine, survivorAccount, { amount: balance, kind: 'merge_in', referenceType: 'user', referenceId: String(account.holder_id) })).balance;
    const survivor = await findUserVendor(trx, holderId, node.vendorId);
    membership = survivor ? { id: Number(survivor.id), flagged_reason: survivor.flagged_reason } : null;
  } else if (account.merged_into) {
    return;
  }
  const storeBelieved = believed.get(`${account.holder_type}:${Number(account.holder_id)}:${Number(account.currency_id)}`);
  if (membership) await flagOverdraft(trx, engine, node, { userId: holderId, accountId: survivorAccountId ?? Number(account.id), currencyId: Number(account.currency_id) }, balance, membership, storeBelieved);
}

async function flagOverdraft(
  trx: Kysely<DB>,
  engine: Engine,
  node: PairedNode,
  { userId, accountId, currencyId }: { userId: number; accountId: number; currencyId: number },
  balance: number,
  membership: { id: number; flagged_reason: string | null },
  storeBelieved: number | undefined,
): Promise<void> {
  const now = engine.clock.now();
  if (balance < 0) {
    if (membership.flagged_reason !== 'offline_overdraft') {
      await trx.updateTable('user_vendors').set({ flagged: 1, flagged_reason: 'offline_overdraft', updated_at: now }).where('id', '=', membership.id).execute();
    }
    // One exception per currency, open until that balance is settled (overdraft-flags.ts).
    if (await overdraftOpen(trx, node.vendorId, userId, currencyId)) return;
    // Resolved by hand at this balance or lower: nothing new (overdraft-resolved.ts).
    if (await overdraftAlreadyAccepted(trx, node.vendorId, userId, currencyId, balance)) return;
    const currency = await currencyOf(trx, currencyId);
    const paidBack = await recentlyPaidBack(trx, accountId, now);
    // The text names the currency ("Quick Pay USD spent …"): an amount's code alone did not say which balance is owed.
    await recordSyncException(trx, engine, node, 'offline_overdraft', overdraftSubject(userId, currencyId), {
      key: 'offline_overdraft',
      params: { currency: currency?.name ?? null, code: currency?.code ?? null, balance, believed: storeBelieved ?? null, paid_back: paidBack > 0 ? paidBack : null },
    });
  } else if (membership.flagged_reason === 'offline_overdraft') {
    await clearSettledOverdraft(trx, engine, { vendorId: node.vendorId, userId, currencyId });
  }
}

/**
 * Whether staff already have this overdraft open: its currency's, or one written before the
 * fourteenth round ("user 123", no currency), which stands for all the customer's until every
 * balance is settled — so a live database's old exception is not doubled by a new one.
 */
async function overdraftOpen(trx: Kysely<DB>, vendorId: number, userId: number, currencyId: number): Promise<boolean> {
  const open = await trx
    .selectFrom('sync_exceptions')
    .select('id')
    .where('vendor_id', '=', vendorId)
    .where('kind', '=', 'offline_overdraft')
    .where('resolved_at', 'is', null)
    .where('subject', 'in', [overdraftSubject(userId, currencyId), customerSubject(userId)])
    .executeTakeFirst();
  return open !== undefined;
}

/**
 * Stored value paid back to the customer at central lately (net of refused parts): a store that had
 * not pulled it yet sold against the money paid out, so staff are told (ninth round, pay-backs).
 */
async function recentlyPaidBack(trx: Kysely<DB>, accountId: number, now: number): Promise<number> {
  const row = await trx
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.sum<number | string | null>('amount').as('total'))
    .where('account_id', '=', accountId)
    .where('kind', '=', 'payback')
    .where('created_at', '>=', now - 7 * 24 * 3_600_000)
    .executeTakeFirst();
  return -Number(row?.total ?? 0);
}

async function currencyOf(trx: Kysely<DB>, currencyId: number): Promise<{ name: string; code: string | null } | undefined> {
  return trx.selectFrom('currencies').select(['name', 'code']).where('id', '=', currencyId).executeTakeFirst();
}

