import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDashboard } from '../../src/core/dashboard/dashboard';
import { listStoreNodeHealth } from '../../src/core/chain-health/chain-health';
import { searchCustomers } from '../../src/core/customer-care/search-customers';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { type Engine, startEngine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { issuePairingCode, pairNode } from '../../src/core/sync/central/pairing';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { addOwner } from '../../src/core/staff/add-owner';
import { programChanges } from '../../src/core/program-admin/change-program';
import { programOverview } from '../../src/core/program-admin/program-overview';
import { webhookAdmin } from '../../src/core/webhooks-admin/change-webhooks';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

// The back office's own queries on PostgreSQL (the API tests run them on SQLite): the dashboard's
// day buckets and sums, the name search through the folded-name indexes (migration 0036), and a
// paired node's health.
describe('back-office queries on PostgreSQL', () => {
  let pg: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let vendor: VendorCredentials;
  const clock = new ManualClock();

  beforeAll(async () => {
    pg = await openTestPostgres();
    engine = await startEngine({ database: pg.database, nodeKey: randomBytes(32), clock, role: 'central' });
    vendor = await setUpVendor(engine, { name: 'PG Café', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const today = clock.now();
    clock.set(today - 2 * 86_400_000);
    await registerInStore(engine, scope, { email: 'ana@pg.test', firstName: 'Ana', lastName: 'Zambrano' });
    await placeOrder(engine, scope, { identification: 'ana@pg.test', receiptNumber: 'R1', subtotal: 12 });
    clock.set(today);
    await placeOrder(engine, scope, { identification: 'ana@pg.test', receiptNumber: 'R2', subtotal: 5 });
  });

  afterAll(async () => {
    await engine?.close();
    await pg?.drop();
  });

  it('counts the dashboard’s days and stores exactly', async () => {
    const d = await loadDashboard(engine, vendor.vendorId, null);
    expect(d.today).toMatchObject({ orders: 1, pointsIssued: 5, checkIns: 0 });
    expect(d.last30Days).toMatchObject({ orders: 2, pointsIssued: 17, checkIns: 1 });
    expect(d.days[27]).toMatchObject({ orders: 1, checkIns: 1, pointsIssued: 12 });
    expect(d.stores).toEqual([expect.objectContaining({ id: vendor.storeId, orders: 2, pointsIssued: 17 })]);
    expect(d.outstandingStoredValue).toBe(0);
  });

  it('finds a customer by the start of a name in any case, and not by the middle', async () => {
    expect((await searchCustomers(engine, vendor.vendorId, null, 'ZAMB', 25)).map((h) => h.lastName)).toEqual(['Zambrano']);
    expect(await searchCustomers(engine, vendor.vendorId, null, 'mbra', 25)).toEqual([]);
  });

  it('reads a paired node’s health', async () => {
    const { code } = await issuePairingCode(engine, vendor.vendorId, vendor.storeId);
    await pairNode(engine, code, 'pg store');
    const [node] = await listStoreNodeHealth(engine, vendor.vendorId, null);
    expect(node).toMatchObject({ label: 'pg store', lastEvent: 0, rejectedEvents: 0, openExceptions: 0 });
  });

  it('runs a program change and its audit record in one transaction: both, or neither', async () => {
    const { staff: owner } = await addOwner(engine, { vendorId: vendor.vendorId, email: 'owner@pg.test', password: 'correct horse battery' });
    const staff = { sessionId: 0, staffId: owner.id, vendorId: vendor.vendorId, email: 'owner@pg.test', name: 'Owner', role: 'owner' as const, storeId: null };
    const audits = async () => (await engine.db.selectFrom('audit_log').select('action').where('vendor_id', '=', vendor.vendorId).where('object_type', '=', 'earning_rule').execute()).map((r) => r.action);
    const [rule] = (await programOverview(engine, vendor.vendorId, 'central')).earningRules;
    const changed = await programChanges.updateEarningRule(engine, staff, rule!.publicId, { points: 4 });
    expect(changed.points).toBe(4);
    expect(await audits()).toEqual(['earning_rule.update']);
    await expect(programChanges.updateEarningRule(engine, staff, rule!.publicId, { points: 5, currency: 'curr_none' })).rejects.toMatchObject({ code: 'unknown_currency' });
    expect((await programOverview(engine, vendor.vendorId, 'central')).earningRules[0]!.points).toBe(4);
    expect(await audits()).toEqual(['earning_rule.update']);
  });

  it('runs a webhook change and its audit record in one transaction: both, or neither', async () => {
    const { staff: owner } = await addOwner(engine, { vendorId: vendor.vendorId, email: 'hooks@pg.test', password: 'correct horse battery' });
    const staff = { sessionId: 0, staffId: owner.id, vendorId: vendor.vendorId, email: 'hooks@pg.test', name: 'Owner', role: 'owner' as const, storeId: null };
    const policy = { allowPrivate: false };
    const audits = async () => (await engine.db.selectFrom('audit_log').select('action').where('vendor_id', '=', vendor.vendorId).where('object_type', '=', 'webhook').orderBy('id').execute()).map((r) => r.action);
    const { endpoint } = await webhookAdmin.create(engine, staff, { url: 'https://hooks.example.com/pg', events: ['order.placed'] }, policy);
    await webhookAdmin.update(engine, staff, endpoint.id, { status: 'paused' }, policy);
    const { eventId } = await webhookAdmin.sendTest(engine, staff, endpoint.id);
    expect(await webhookAdmin.replay(engine, staff, endpoint.id, eventId)).toEqual({ queued: 1, endpointStatus: 'paused' });
    expect(await audits()).toEqual(['webhook.create', 'webhook.update', 'webhook.test', 'webhook.replay']);
    expect((await webhookAdmin.deliveries(engine, staff, endpoint.id, {})).items.map((d) => d.status)).toEqual(['pending', 'pending']);

    await expect(webhookAdmin.update(engine, staff, endpoint.id, { status: 'enabled', url: 'http://10.0.0.1/x' }, policy)).rejects.toMatchObject({ code: 'webhook_url_not_allowed' });
    expect((await webhookAdmin.list(engine, staff)).find((e) => e.id === endpoint.id)).toMatchObject({ status: 'paused', url: 'https://hooks.example.com/pg' });
    expect(await audits()).toHaveLength(4);
  });
});
