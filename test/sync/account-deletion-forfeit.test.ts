import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { issueCode } from '../../src/core/customers/one-time-codes';
import { transact } from '../../src/core/engine';
import { findBalanceMismatches, openAccount, postEntry } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { closedAfterEach, pairStore, startCentralOn, type StoreHandle } from './support/chain';

// What a customer gives up when they delete their account goes as `forfeit` entries written at
// central (docs/decisions.md, "Eighth round: deleting an account that holds money"): they reach the
// program's stores like any entry made at central, so every node ends with the balance at zero.

const keep = closedAfterEach();

describe.each(BACKENDS)('money given up at deletion, at the stores ($name)', (backend) => {
  it('the forfeit entries reach the store: its balances of the erased person fall to zero, equal to their entries', async () => {
    const clock = new ManualClock();
    const central = await startCentralOn(backend, clock, keep);
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    const joined = await registerInStore(central.engine, scope, { email: 'forfeit@chain.test', firstName: 'Farah' });
    const userId = Number(joined.session.user_id);
    // 25.00 of quick pay, credited at central (as a reload is).
    await transact(central.engine, async (trx) => {
      const account = await openAccount(trx, central.engine, { vendorId: central.vendor.vendorId, currencyId: central.vendor.quickPayCurrencyId, holderType: 'user', holderId: userId });
      await postEntry(trx, central.engine, account, { amount: 2500, kind: 'reload' });
    });
    const a: StoreHandle = keep(await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor));
    // Points earned at the store.
    await placeOrder(a.engine, await a.scope(), { identification: 'forfeit@chain.test', receiptNumber: 'FF-1', subtotal: 9 });
    clock.advance(1000);
    await a.client.syncOnce();
    const balances = (store: { engine: typeof central.engine }) =>
      store.engine.db.selectFrom('ledger_accounts').select(['currency_id', 'balance']).where('holder_type', '=', 'user').where('holder_id', '=', userId).orderBy('currency_id').execute();
    const held = (rows: Array<{ currency_id: number; balance: number | bigint }>) => rows.map((row) => [Number(row.currency_id), Number(row.balance)]);
    const before = [
      [central.vendor.loyaltyCurrencyId, 9],
      [central.vendor.quickPayCurrencyId, 2500],
    ].sort((x, y) => x[0]! - y[0]!);
    expect(held(await balances(central))).toEqual(before);
    expect(held(await balances(a))).toEqual(before);

    const code = await issueCode(central.engine.db, central.engine, { userId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code, forfeitBalances: true });
    clock.advance(1000);
    await a.client.syncOnce();

    for (const node of [central, a]) {
      expect(held(await balances(node)).map(([, balance]) => balance)).toEqual([0, 0]);
      const forfeits = await node.engine.db.selectFrom('ledger_entries').select('amount').where('kind', '=', 'forfeit').orderBy('amount').execute();
      expect(forfeits.map((entry) => Number(entry.amount))).toEqual([-2500, -9]);
      expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
    }
  });
});
