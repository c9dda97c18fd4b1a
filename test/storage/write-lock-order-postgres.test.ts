import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { voidOrder } from '../../src/core/orders/void-order';
import { installChangeCapture } from '../../src/core/sync/capture/install-capture';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { writesOrLocks } from '../../src/core/storage/write-lock';
import { createServerDatabase, openTestPostgres } from '../support/postgres';
import { openPostgres } from '../../src/core/storage/database';
import { REPLICATED_TABLES } from '../../src/core/sync/replicated-tables';
import { authenticateApiKey, type StoreScope } from '../../src/core/credentials/authenticate';

// A void locks the customer's ledger account, then takes an object id; an order holds the id
// counter (and the change log's lock) and then writes to that account. Run together for one
// customer on a central, PostgreSQL found the circle and aborted one of them after its 1 s
// deadlock timeout (2 in 10 pairs; at two central processes a quarter of them ran out of retries:
// 503s, and a reload's settlement after its card was charged). Every command now takes the
// node's write lock before its first statement that writes or locks (storage/write-lock.ts, in the
// driver): PostgreSQL counts no deadlock.
describe('what takes the write lock first', () => {
  it('every statement that writes a row or takes a lock; plain reads do not', () => {
    for (const statement of [
      'insert into "orders" ("id") values ($1)',
      ' update "ledger_accounts" set "balance" = "balance" + $1 where "id" = $2',
      'delete from "barcode_tokens" where "user_id" = $1',
      'with moved as (update "pos_sessions" set "status" = $1 returning *) select * from moved',
      'select * from "orders" where "id" = $1 for update',
      'select "id" from "user_vendors" where "id" = $1 for no key update',
      'select pg_advisory_xact_lock(hashtext($1))',
      'create index if not exists "x" on "orders" ("id")',
    ]) {
      expect(writesOrLocks(statement), statement).toBe(true);
    }
    for (const statement of ['select "updated_at", "deleted_at" from "orders" where "id" = $1', 'select count(*) from "user_updates_log"', 'begin', 'commit']) {
      expect(writesOrLocks(statement), statement).toBe(false);
    }
  });
});

describe.skipIf(!process.env.PG_URL)('orders and voids of one customer at once on a central, on PostgreSQL (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let scope: StoreScope;

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), role: 'central' });
    await installChangeCapture(engine.db, 'postgres', 'central');
    const vendor = await setUpVendor(engine, { name: 'Lock Order', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    scope = await authenticateApiKey(engine, vendor.apiKey);
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('all commit, and PostgreSQL counts no deadlock', async () => {
    const email = 'lock.order@example.com';
    await registerInStore(engine, scope, { email });
    const rounds = 10;
    for (let round = 0; round < rounds; round += 1) {
      await Promise.all([0, 1].map((i) => placeOrder(engine, scope, { identification: email, receiptNumber: `A-${round}-${i}`, subtotal: 3 })));
      const results = await Promise.all([0, 1].flatMap((i) => [voidOrder(engine, scope, `A-${round}-${i}`), placeOrder(engine, scope, { identification: email, receiptNumber: `B-${round}-${i}`, subtotal: 2 })]));
      expect(results.map((r) => r.status)).toEqual(['Voided', 'Complete', 'Voided', 'Complete']);
    }
    // A backend reports its deadlocks to the statistics when it exits: end the pool, then read.
    await engine.close();
    const observer = new pg.Client({ connectionString: database.url });
    await observer.connect();
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { rows } = await observer.query('select deadlocks::int as n from pg_stat_database where datname = current_database()');
      expect(rows[0].n).toBe(0);
    } finally {
      await observer.end();
    }
  }, 120_000);
});

describe.skipIf(!process.env.PG_URL)("a captured table's write outside a command, on PostgreSQL (PG_URL)", () => {
  it("an API key's last-used minute, written while a command holds the lock and waits for that key's row: no deadlock", async () => {
    const scratch = await createServerDatabase(process.env.PG_URL!, 'punchcard_lastused');
    const engine = await startEngine({ database: openPostgres(scratch.url, 4, { capturedTables: new Set(REPLICATED_TABLES.map((t) => t.name)) }), nodeKey: randomBytes(32), role: 'central' });
    try {
      await installChangeCapture(engine.db, 'postgres', 'central');
      const vendor = await setUpVendor(engine, { name: 'Last Used', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
      await engine.db.updateTable('api_keys').set({ last_used_at: null }).where('vendor_id', '=', vendor.vendorId).execute();
      // The command takes the lock (a change of its program), then, a moment later, the key's row;
      // meanwhile the key is used: its minute is written outside any command.
      let commandLocked!: () => void;
      const locked = new Promise<void>((resolve) => (commandLocked = resolve));
      const command = transact(engine, async (trx) => {
        await trx.updateTable('vendors').set({ updated_at: Date.now() }).where('id', '=', vendor.vendorId).execute();
        commandLocked();
        await new Promise((resolve) => setTimeout(resolve, 300));
        await trx.updateTable('api_keys').set({ label: 'renamed' }).where('vendor_id', '=', vendor.vendorId).execute();
      });
      await locked;
      const started = Date.now();
      await Promise.all([command, authenticateApiKey(engine, vendor.apiKey)]);
      expect(Date.now() - started, 'waited for a deadlock timeout').toBeLessThan(900);
    } finally {
      await engine.close();
    }
    const observer = new pg.Client({ connectionString: scratch.url });
    await observer.connect();
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await observer.query('select deadlocks::int as n from pg_stat_database where datname = current_database()')).rows[0].n).toBe(0);
    } finally {
      await observer.end();
      await scratch.drop();
    }
  }, 60_000);
});
