import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { openAccount, postEntry } from '../../ledger/ledger';
import { clearSettledOverdraft } from '../../ledger/overdraft-flags';
import type { DB } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import { recordSyncException } from './sync-exceptions';

/**
 * After a store's events land: balances of merged customers move to the survivor (a pair of
 * entries, never an edit); a customer whose balance went negative from offline spends is flagged
 * with an exception for the store, and unflagged once later credits settle the debt.
 */
export async function settleAccounts(trx: Kysely<DB>, engine: Engine, node: PairedNode, accountIds: Set<number>): Promise<void> {
  for (const accountId of accountIds) {
    const account = await trx.selectFrom('ledger_accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
    if (account.holder_type !== 'user') continue;
    const user = await trx.selectFrom('users').select(['merged_into']).where('id', '=', account.holder_id).executeTakeFirst();
    let holderId = Number(account.holder_id);
    let balance = Number(account.balance);
    if (user?.merged_into && balance !== 0) {
      holderId = Number(user.merged_into);
      const survivorAccount = await openAccount(trx, engine, { vendorId: node.vendorId, currencyId: Number(account.currency_id), holderType: 'user', holderId });
      await postEntry(trx, engine, accountId, { amount: -balance, kind: 'merge_out', referenceType: 'user', referenceId: String(holderId) });
      balance = (await postEntry(trx, engine, survivorAccount, { amount: balance, kind: 'merge_in', referenceType: 'user', referenceId: String(account.holder_id) })).balance;
    } else if (user?.merged_into) {
      continue;
    }
    await flagOverdraft(trx, engine, node, holderId, balance);
  }
}

async function flagOverdraft(trx: Kysely<DB>, engine: Engine, node: PairedNode, userId: number, balance: number): Promise<void> {
  const membership = await trx
    .selectFrom('user_vendors')
    .select(['id', 'flagged', 'flagged_reason'])
    .where('user_id', '=', userId)
    .where('vendor_id', '=', node.vendorId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  if (!membership) return;
  const now = engine.clock.now();
  if (balance < 0 && membership.flagged_reason !== 'offline_overdraft') {
    await trx.updateTable('user_vendors').set({ flagged: 1, flagged_reason: 'offline_overdraft', updated_at: now }).where('id', '=', membership.id).execute();
    await recordSyncException(trx, engine, node, 'offline_overdraft', `user ${userId}`, `offline spends left a balance of ${balance}; settled from the next credits`);
  } else if (balance >= 0 && membership.flagged_reason === 'offline_overdraft') {
    await clearSettledOverdraft(trx, engine, { vendorId: node.vendorId, userId });
  }
}
