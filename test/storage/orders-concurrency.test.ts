import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { placeOrder } from '../../src/core/orders/place-order';
import { creditQuickPay } from '../../src/core/payments/quick-pay/credit-quick-pay';
import { isServiceError } from '../../src/shared/errors';
import { type Database, openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';

// Two orders spending the same quick-pay balance at the same moment (two tills, or a till and an
// integration): on PostgreSQL, with a connection pool, they run truly at once. Only one may take
// the last of the balance; the other is refused with insufficient_balance and changes nothing.

const backends = [
  {
    name: 'sqlite',
    async open(): Promise<{ database: Database; close(): Promise<void> }> {
      const dir = makeTempDir();
      return { database: openSqlite(`${dir.path}/orders.db`), close: async () => dir.remove() };
    },
  },
  {
    name: process.env.PG_URL ? 'postgres (PG_URL)' : 'postgres (embedded PGlite)',
    async open(): Promise<{ database: Database; close(): Promise<void> }> {
      const pg = await openTestPostgres();
      return { database: pg.database, close: () => pg.drop() };
    },
  },
];

describe.each(backends)('concurrent spends on $name', (backend) => {
  let engine: Engine;
  let closeBackend: () => Promise<void>;

  beforeAll(async () => {
    const opened = await backend.open();
    closeBackend = opened.close;
    engine = await startEngine({ database: opened.database, nodeKey: randomBytes(32), clock: new ManualClock(), role: 'store' });
  });

  afterAll(async () => {
    await engine?.close();
    await closeBackend?.();
  });

  it('lets only one of two simultaneous orders take the last of the quick-pay balance', async () => {
    const vendor = await setUpVendor(engine, { name: 'Two Tills', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main Street', city: 'Springfield' } });
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const email = 'race@example.com';
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Rae', lastName: 'Race', email, password: 'correct horse 1', terms: true });
    await transact(engine, (trx) =>
      creditQuickPay(trx, engine, { vendorId: vendor.vendorId, userId: user.id, amountMinor: 1000, kind: 'reload', referenceType: 'test', referenceId: 'seed', receipts: [] }),
    );

    const spend = (till: string) => placeOrder(engine, scope, { identification: email, receiptNumber: `R-${till}`, subtotal: 8, quickPay: 8 });
    const outcomes = await Promise.allSettled([spend('a'), spend('b')]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    const reason = (refused[0] as PromiseRejectedResult).reason as unknown;
    expect(isServiceError(reason) && reason.code).toBe('insufficient_balance');

    const account = await engine.db
      .selectFrom('ledger_accounts')
      .select('balance')
      .where('holder_type', '=', 'user')
      .where('holder_id', '=', user.id)
      .where('currency_id', '=', vendor.quickPayCurrencyId)
      .executeTakeFirstOrThrow();
    expect(Number(account.balance)).toBe(200);
    const orders = await engine.db.selectFrom('orders').select('receipt_number').where('user_id', '=', user.id).execute();
    expect(orders).toHaveLength(1);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });
});
