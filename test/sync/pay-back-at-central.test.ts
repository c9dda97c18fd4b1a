import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { transact } from '../../src/core/engine';
import { findBalanceMismatches, openAccount, postEntry } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { payBackStoredValue } from '../../src/core/payments/pay-back/pay-back-stored-value';
import { addOwner } from '../../src/core/staff/add-owner';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { type Database, openPostgres } from '../../src/core/storage/database';
import { ManualClock } from '../support/clock';
import { createServerDatabase } from '../support/postgres';
import { closedAfterEach, freshDatabase, pairStore, startCentral, type StoreHandle } from './support/chain';

// Stored value paid back at central (docs/decisions.md, "Ninth round: stored value paid back") is
// a `payback` ledger entry written where the program lives: it reaches the program's stores as any
// entry made at central does, so every node's balance falls and stays the sum of its entries. A
// paired store refuses to pay back itself (the balance's record is central's).

const keep = closedAfterEach();

/** Central's database: an SQLite file, and PostgreSQL (this helper's `h4_` prefix) when PG_URL is set. */
const DATABASES: Array<{ name: string; open(): Promise<Database> }> = [
  { name: 'sqlite', open: () => freshDatabase() },
  ...(process.env.PG_URL
    ? [
        {
          name: 'postgres',
          async open() {
            const scratch = await createServerDatabase(process.env.PG_URL!, 'h4_pay_back_sync');
            keep({ close: () => scratch.drop() });
            return openPostgres(scratch.url, 4);
          },
        },
      ]
    : []),
];

/**
 * Central with a customer holding 25.00 of quick pay (credited there, as a reload is), a store paired
 * after it (its first sync holds the balance), and an owner to pay back as.
 */
async function chainWithMoney(open: () => Promise<Database>, email: string) {
  const clock = new ManualClock();
  const central = keep(await startCentral(clock, await open()));
  const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
  const joined = await registerInStore(central.engine, scope, { email, firstName: 'Pia' });
  const userId = Number(joined.session.user_id);
  await transact(central.engine, async (trx) => {
    const account = await openAccount(trx, central.engine, { vendorId: central.vendor.vendorId, currencyId: central.vendor.quickPayCurrencyId, holderType: 'user', holderId: userId });
    await postEntry(trx, central.engine, account, { amount: 2500, kind: 'reload' });
  });
  const store: StoreHandle = keep(await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor));
  const { staff } = await addOwner(central.engine, { vendorId: central.vendor.vendorId, email: 'owner@chain.test', password: 'correct horse battery' });
  const owner: StaffPrincipal = { sessionId: 0, staffId: staff.id, vendorId: central.vendor.vendorId, email: 'owner@chain.test', name: 'Owner', role: 'owner', storeId: null };
  return { clock, central, store, userId, owner };
}

describe.each(DATABASES)('stored value paid back at central, at the stores ($name)', ({ open }) => {
  it('the payback entry reaches the store: its balance falls, equal to its entries; the store itself refuses to pay back', async () => {
    const { clock, central, store: a, userId, owner } = await chainWithMoney(open, 'payback@chain.test');
    const quickPay = (node: { engine: typeof central.engine }) =>
      node.engine.db
        .selectFrom('ledger_accounts')
        .select('balance')
        .where('holder_type', '=', 'user')
        .where('holder_id', '=', userId)
        .where('currency_id', '=', central.vendor.quickPayCurrencyId)
        .executeTakeFirstOrThrow()
        .then((row) => Number(row.balance));
    expect(await quickPay(a)).toBe(2500);

    const paid = await payBackStoredValue(central.engine, owner, userId, { amount: 1000, method: 'cash', idempotencyKey: 'sync-1' });
    expect([paid.status, paid.balance]).toEqual(['paid', 1500]);
    clock.advance(1000);
    await a.client.syncOnce();

    for (const node of [central, a]) {
      expect(await quickPay(node)).toBe(1500);
      const entries = await node.engine.db.selectFrom('ledger_entries').select(['amount', 'reference_id']).where('kind', '=', 'payback').execute();
      expect(entries.map((entry) => [Number(entry.amount), entry.reference_id])).toEqual([[-1000, String(paid.id)]]);
      expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
    }

    // At the store: central's to do, nothing moves there.
    await expect(payBackStoredValue(a.engine, owner, userId, { amount: 500, method: 'cash', idempotencyKey: 'sync-2' })).rejects.toMatchObject({ code: 'payback_managed_by_central', status: 409 });
    expect(await quickPay(a)).toBe(1500);
  });

  it('a store that had not heard of a pay-back sells the same money: the overdraft says central paid it back', async () => {
    const { clock, central, store: a, userId, owner } = await chainWithMoney(open, 'both@chain.test');
    // All of it paid out in cash at central; the store, not synced since, sells 25.00 of it.
    await payBackStoredValue(central.engine, owner, userId, { amount: 2500, method: 'cash', idempotencyKey: 'both-1' });
    await placeOrder(a.engine, await a.scope(), { identification: 'both@chain.test', receiptNumber: 'PB-1', subtotal: 25, quickPay: 25 });
    clock.advance(1000);
    await a.client.syncOnce();
    const exception = await central.engine.db.selectFrom('sync_exceptions').select('message').where('kind', '=', 'offline_overdraft').executeTakeFirstOrThrow();
    expect(exception.message).toMatch(/left a balance of -25\.00 USD .*; central paid 25\.00 USD back to the customer in the last 7 days, which the store may not have heard of when it sold: the customer may hold both$/);
  });
});
