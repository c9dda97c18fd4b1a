import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { startEngine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { programData } from '../../src/core/program-cache/program-data';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { openTestPostgres } from '../support/postgres';
import { resourceApi } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { testVendor } from '../support/backends';

// Issue 13: the vendor's program data (settings, stores, currencies, rules, rewards, tiers) is kept
// in memory and reloaded when a trigger-moved version row says it changed. A change made through
// the admin API is in force on the very next order; a change written by another process on the same
// PostgreSQL is seen by this process's next call.

describe('program cache on a store node (SQLite, real HTTP)', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  });
  afterAll(async () => {
    await node?.close();
  });

  it('an earning rule changed by the admin API is in force on the next order and the next retrieve', async () => {
    const vendor = await node.addVendor('Cache Coffee');
    const customer = await signUpAt(node, vendor.vendorId);
    const { orderOk, checkInSessionOk } = inStoreApi(() => node);
    const rules = resourceApi(() => node, '/earning-rules');

    // Warm the cache: an order and a retrieve under the default rule (1 point per unit).
    expect((await orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'C-1', subtotal: 10 })).points_earned).toBe(10);
    const [rule] = await rules.listAll(vendor.accessToken);
    const changed = await rules.put(vendor.accessToken, rule.id, { points: 3 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'C-2', subtotal: 10 })).points_earned).toBe(30);

    const session = await checkInSessionOk(vendor.apiKey, customer.email);
    const earningShown = async () => {
      const reply = await http(`${node.url}/onscreen?api_key=${encodeURIComponent(vendor.apiKey)}&pos_session_hash=${session.hash}`);
      expect(reply.status).toBe(200);
      return (reply.body.rules.earning.data as Array<{ name: string; points: number }>).map((r) => `${r.name}: ${r.points}`);
    };
    expect(await earningShown()).toEqual([`${rule.name}: 3`]);
    // Deactivated: gone from the next retrieve, and the next order earns nothing.
    expect((await rules.put(vendor.accessToken, rule.id, { status: 'INACTIVE' })).status).toBe(200);
    expect(await earningShown()).toEqual([]);
    expect((await orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'C-3', subtotal: 10 })).points_earned).toBe(0);
  });

  it('a write that rolls back leaves the cache on the committed data', async () => {
    const vendor = await node.addVendor('Rollback Coffee');
    const before = await programData(node.engine.db, vendor.vendorId);
    await expect(
      node.engine.db.transaction().execute(async (trx) => {
        await trx.updateTable('earning_rules').set({ points: 99 }).where('vendor_id', '=', vendor.vendorId).execute();
        // Read inside the transaction: the transaction's own (uncommitted) rule.
        expect((await programData(node.engine.db, vendor.vendorId, trx)).earningRules[0]!.points).toBe(99);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const after = await programData(node.engine.db, vendor.vendorId);
    expect(after.earningRules[0]!.points).toBe(before.earningRules[0]!.points);
  });
});

describe.skipIf(!process.env.PG_URL)('program cache on central (PostgreSQL at PG_URL)', () => {
  it('a rule changed by another process on the same PostgreSQL is in force on this process’s next order', { timeout: 60_000 }, async () => {
    const pg = await openTestPostgres();
    const engine = await startEngine({ database: pg.database, nodeKey: randomBytes(32), role: 'central' });
    try {
      const vendor = await setUpVendor(engine, testVendor('Central Cache'));
      const scope = await authenticateApiKey(engine, vendor.apiKey);
      await registerInStore(engine, scope, { email: 'cache@example.com', firstName: 'Cache', lastName: 'Test' });
      const order = async (receipt: string) => (await placeOrder(engine, scope, { identification: 'cache@example.com', receiptNumber: receipt, subtotal: 10 })).pointsEarned;
      expect(await order('P-1')).toBe(10);

      // Another process (its own connection) changes the rule.
      const script = `const pg = require('pg'); const c = new pg.Client({ connectionString: process.argv[1] });
        c.connect().then(() => c.query('update earning_rules set points = 4 where vendor_id = $1', [process.argv[2]])).then(() => c.end());`;
      const child = spawn(process.execPath, ['-e', script, pg.url!, String(vendor.vendorId)], { stdio: 'inherit' });
      expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);

      expect(await order('P-2')).toBe(40);
    } finally {
      await engine.close();
      await pg.drop();
    }
  });
});
