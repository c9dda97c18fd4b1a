import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { adjustBalance } from '../../src/core/customer-care/adjust-balance';
import type { Engine } from '../../src/core/engine';
import { findBalanceMismatches, holderBalance } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { tierPoints } from '../../src/core/orders/tier-points';
import { voidOrder } from '../../src/core/orders/void-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { addOwner } from '../../src/core/staff/add-owner';
import { migrateToLatest, openSqlite } from '../../src/core/storage/database';
import { ManualClock } from '../support/clock';
import { type CentralHandle, pairStore, startCentral, type StoreHandle, Switch } from './support/chain';

// One order voided at two nodes (docs/sync.md, "Conflicts"). A void gives every ledger entry of the
// order one compensating entry; applied twice, the customer would get spent points and quick pay
// back twice. Whichever node voids, and whenever the voids meet, the order must end reversed once,
// the same ledger on every node, and every balance equal to the sum of its entries.
// Central and stores on SQLite files.

type Node = { name: string; engine: Engine };
type LinkedStore = StoreHandle & { link: Switch };

interface Chain {
  clock: ManualClock;
  central: CentralHandle;
  stores: LinkedStore[];
  apiKey: string;
  userId: number;
  points: number;
  quickPay: number;
  orderId: number;
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function onDisk(dir: string, name: string) {
  const database = openSqlite(join(dir, `${name}.db`));
  await migrateToLatest(database.db);
  return database;
}

/**
 * Central and `nodes` store nodes of one store (store A, the vendor's first), each on its own file.
 * A customer earns 20 points (R-1), gets $10 of quick pay at central, then R-2 spends 8 points on a
 * reward and $4 of quick pay and earns 5: the order a test voids. Everything is synced everywhere.
 */
async function chain(nodes: number): Promise<Chain> {
  const dir = mkdtempSync(join(tmpdir(), 'pc-chain-voids-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const clock = new ManualClock(Date.UTC(2026, 10, 2, 9));
  const central = await startCentral(clock, await onDisk(dir, 'central'));
  cleanup.push(() => central.close());
  const { vendorId, storeId, apiKey, loyaltyCurrencyId, quickPayCurrencyId } = central.vendor;
  const currency = (id: number) => central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', id).executeTakeFirstOrThrow();
  const reward = await createSpendingRule(central.engine, { vendorId }, { name: 'Coffee', cost: 8, currency: (await currency(loyaltyCurrencyId)).public_id });
  const stores: LinkedStore[] = [];
  for (let i = 0; i < nodes; i += 1) {
    let link: Switch | undefined;
    const handle = await pairStore(central, clock, { storeId, apiKey }, (credential) => (link = new Switch(central.transportFor(credential))), await onDisk(dir, `store-${i}`));
    cleanup.push(() => handle.close());
    stores.push(Object.assign(handle, { link: link! }));
  }
  const [first] = stores;
  const registered = await registerInStore(first!.engine, await first!.scope(), { email: 'vi@example.com', firstName: 'Vi' });
  const userId = Number(registered.session.user_id);
  await placeOrder(first!.engine, await first!.scope(), { identification: 'vi@example.com', receiptNumber: 'R-1', subtotal: 20 });
  await syncAll(stores);
  const { staff } = await addOwner(central.engine, { vendorId, email: 'owner@example.com' });
  const principal = { sessionId: 0, staffId: staff.id, vendorId, email: staff.email, name: staff.name, role: staff.role, storeId: null };
  await adjustBalance(central.engine, principal, userId, { currency: (await currency(quickPayCurrencyId)).public_id, amount: 1000, reason: 'quick pay for the test' });
  await syncAll(stores);
  const placed = await placeOrder(first!.engine, await first!.scope(), { identification: 'vi@example.com', receiptNumber: 'R-2', subtotal: 5, quickPay: 4, redemptions: [reward.publicId] });
  await syncAll(stores);
  const c: Chain = { clock, central, stores, apiKey, userId, points: loyaltyCurrencyId, quickPay: quickPayCurrencyId, orderId: Number(placed.orderId) };
  // Before any void: 20 - 8 + 5 points, 1000 - 400 cents of quick pay, on every node.
  for (const node of nodesOf(c)) expect(await balances(c, node.engine), node.name).toEqual({ points: 17, quickPay: 600 });
  return c;
}

async function syncAll(stores: LinkedStore[], rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round += 1) for (const store of stores) await store.client.syncOnce();
}

async function offline(...stores: LinkedStore[]): Promise<void> {
  for (const store of stores) {
    store.link.down = true;
    await store.client.syncOnce().catch(() => undefined);
  }
}

async function heal(c: Chain): Promise<void> {
  for (const store of c.stores) store.link.down = false;
  await syncAll(c.stores);
}

const nodesOf = (c: Chain): Node[] => [{ name: 'central', engine: c.central.engine }, ...c.stores.map((s, i) => ({ name: `store node ${i + 1}`, engine: s.engine }))];

async function balances(c: Chain, engine: Engine) {
  const of = (currencyId: number) => holderBalance(engine.db, { holderType: 'user', holderId: c.userId, currencyId });
  return { points: await of(c.points), quickPay: await of(c.quickPay) };
}

async function orderEntries(c: Chain, engine: Engine) {
  return engine.db
    .selectFrom('ledger_entries')
    .select(['id', 'kind', 'amount', 'reverses_id', 'origin_node'])
    .where('reference_type', '=', 'order')
    .where('reference_id', '=', String(c.orderId))
    .orderBy('id')
    .execute();
}

/** What each node holds of the order, printed so a failure shows where the entries are. */
async function describeNodes(c: Chain) {
  const out: Record<string, unknown> = {};
  for (const node of nodesOf(c)) {
    const order = await node.engine.db.selectFrom('orders').select(['status', 'void_reply']).where('id', '=', c.orderId).executeTakeFirst();
    const voids = await node.engine.db.selectFrom('transactions').select(['id', 'status']).where('order_id', '=', c.orderId).where('kind', '=', 'void').execute();
    out[`${node.name} (node ${node.engine.nodeId})`] = {
      balances: await balances(c, node.engine),
      entries: (await orderEntries(c, node.engine)).map((e) => `${e.id} ${e.kind} ${e.amount}${e.reverses_id ? ` reverses ${e.reverses_id}` : ''} (by node ${e.origin_node})`),
      order: order && { status: order.status, voidReplyBalances: order.void_reply ? (JSON.parse(order.void_reply) as { balances: unknown }).balances : null },
      voidRecords: voids.map((v) => `${v.id} ${v.status}`),
      mismatches: await findBalanceMismatches(node.engine.db),
    };
  }
  out['central exceptions'] = await c.central.engine.db.selectFrom('sync_exceptions').select(['kind', 'subject', 'message']).execute();
  out['central rejections'] = await c.central.engine.db.selectFrom('sync_verdicts').select(['node_id', 'node_seq', 'code']).where('verdict', '=', 'rejected').execute();
  console.log(JSON.stringify(out, null, 2));
}

/** The order reversed once, everywhere alike. */
async function expectVoidedOnce(c: Chain): Promise<void> {
  await describeNodes(c);
  const ledgers = new Map<string, number[]>();
  for (const node of nodesOf(c)) {
    expect(await findBalanceMismatches(node.engine.db), `${node.name}: cached balances`).toEqual([]);
    const entries = await orderEntries(c, node.engine);
    const originals = entries.filter((e) => e.reverses_id === null);
    expect(originals.map((e) => e.kind).sort(), `${node.name}: the order's entries`).toEqual(['earn', 'redeem', 'spend']);
    // Entries are immutable: a void that arrives second may leave its reversals in the ledger, but
    // then compensated (reversed in turn), so each entry of the order stays reversed exactly once.
    const reversedIds = new Set(entries.map((e) => Number(e.reverses_id)));
    for (const original of originals) {
      const standing = entries.filter((e) => Number(e.reverses_id) === Number(original.id) && !reversedIds.has(Number(e.id)));
      expect(standing.length, `${node.name}: standing reversals of ${original.kind} entry ${original.id}`).toBe(1);
    }
    expect(await balances(c, node.engine), `${node.name}: the customer's balances`).toEqual({ points: 20, quickPay: 1000 });
    // Toward a tier the voided sale counts once too: R-1's 20 points, R-2's 5 earned and voided.
    expect(await tierPoints(node.engine.db, { vendorId: c.central.vendor.vendorId, userId: c.userId }, null, c.clock.now()), `${node.name}: tier points`).toBe(20);
    const order = await node.engine.db.selectFrom('orders').select(['status', 'void_reply']).where('id', '=', c.orderId).executeTakeFirstOrThrow();
    expect(order.status, `${node.name}: the order`).toBe('voided');
    // The customer's history shows the order voided once (a void that came second is not a second refund).
    const voids = await node.engine.db.selectFrom('transactions').select('id').where('order_id', '=', c.orderId).where('kind', '=', 'void').where('status', '=', 'Voided').execute();
    expect(voids.length, `${node.name}: void records in the history`).toBe(1);
    const reply = JSON.parse(order.void_reply ?? '{}') as { balances?: { loyalty: Array<{ amount: number }>; quickPay: { amount: number } } };
    expect({ points: reply.balances?.loyalty[0]?.amount, quickPay: reply.balances?.quickPay.amount }, `${node.name}: the void's stored reply`).toEqual({ points: 20, quickPay: 1000 });
    ledgers.set(node.name, (await node.engine.db.selectFrom('ledger_entries').select('id').orderBy('id').execute()).map((e) => Number(e.id)));
  }
  const [centralLedger] = ledgers.values();
  for (const [name, ledger] of ledgers) expect(ledger, `${name}: the same ledger entries as central`).toEqual(centralLedger);
  // Voiding once more answers the stored result everywhere, with the balances as they are.
  for (const node of nodesOf(c)) {
    const again = await voidOrder(node.engine, await authenticateApiKey(node.engine, c.apiKey), 'R-2');
    expect(again.status, `${node.name}: void again`).toBe('Voided');
    expect(await balances(c, node.engine), `${node.name}: balances after voiding again`).toEqual({ points: 20, quickPay: 1000 });
  }
}

/** Staff at central see the later void as a repeat, and its history record is not a second void. */
async function expectRepeatReported(c: Chain): Promise<void> {
  const exceptions = await c.central.engine.db.selectFrom('sync_exceptions').select(['subject', 'message']).where('kind', '=', 'void_repeated').execute();
  // The receipt names the sale for staff (an order id alone found nothing in the back office).
  expect(exceptions).toEqual([{ subject: `order ${c.orderId}`, message: expect.stringMatching(/^receipt R-2 voided here after another node had voided it/) }]);
  const repeats = await c.central.engine.db.selectFrom('transactions').select('id').where('order_id', '=', c.orderId).where('kind', '=', 'void').where('status', '=', 'Duplicate').execute();
  expect(repeats).toHaveLength(1);
}

describe('one order voided at two nodes', () => {
  it('(a) the store and central both void while partitioned: reversed once after healing', async () => {
    const c = await chain(1);
    const [store] = c.stores;
    await offline(store!);
    await voidOrder(store!.engine, await store!.scope(), 'R-2');
    await voidOrder(c.central.engine, await authenticateApiKey(c.central.engine, c.apiKey), 'R-2');
    await heal(c);
    await expectVoidedOnce(c);
    await expectRepeatReported(c);
  });

  it('(b) central voids after the store’s offline void was pushed: its void answers the stored result', async () => {
    const c = await chain(1);
    const [store] = c.stores;
    await offline(store!);
    await voidOrder(store!.engine, await store!.scope(), 'R-2');
    await heal(c);
    const atCentral = await voidOrder(c.central.engine, await authenticateApiKey(c.central.engine, c.apiKey), 'R-2');
    expect(atCentral.status).toBe('Voided');
    await syncAll(c.stores);
    await expectVoidedOnce(c);
  });

  it('(c) two nodes of one store both void offline: reversed once after healing', async () => {
    const c = await chain(2);
    const [first, second] = c.stores;
    await offline(first!, second!);
    await voidOrder(first!.engine, await first!.scope(), 'R-2');
    await voidOrder(second!.engine, await second!.scope(), 'R-2');
    await heal(c);
    await expectVoidedOnce(c);
    await expectRepeatReported(c);
  });
});
