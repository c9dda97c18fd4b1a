import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import { type HolderType, openAccount } from '../ledger/ledger';
import { preparedInsertInto } from '../storage/prepared';
import type { DB } from '../storage/schema';
import { pickColumns, tableColumns } from './table-columns';

/**
 * Writes a ledger entry made on another node: the account is this node's own for the entry's
 * holder and currency (opened if needed), and its cached balance moves in the same transaction.
 * Returns the account id.
 */
export async function insertReplicatedEntry(trx: Kysely<DB>, engine: Engine, vendorId: number, data: Record<string, unknown>): Promise<number> {
  const amount = Number(data['amount']);
  const accountId = await openAccount(trx, engine, {
    vendorId,
    currencyId: Number(data['currency_id']),
    holderType: data['holder_type'] as HolderType,
    holderId: Number(data['holder_id']),
  });
  const columns = await tableColumns(trx, engine.dialect, 'ledger_entries');
  await preparedInsertInto('ledger_entries')(trx, { ...pickColumns(data, columns), account_id: accountId });
  await trx
    .updateTable('ledger_accounts')
    .set((eb) => ({ balance: eb('balance', '+', amount), updated_at: engine.clock.now() }))
    .where('id', '=', accountId)
    .execute();
  return accountId;
}
