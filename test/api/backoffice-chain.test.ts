import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ManualClock } from '../support/clock';
import { http, type TestNode } from '../support/test-node';
import { programChanges } from '../../src/core/program-admin/change-program';
import { programOverview } from '../../src/core/program-admin/program-overview';
import { addStore, type CentralHandle, pairStore, startCentral } from '../sync/support/chain';
import { sql } from 'kysely';
import { pendingChangesQuery } from '../../src/core/chain-health/chain-health';
import { queryPlan } from '../support/query-plan';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { SCHEMA_LEVEL, SCHEMA_LEVEL_HEADER } from '../../src/core/sync/schema-level';

// The chain's health in central's back office over real HTTP: store nodes pair, push (one event
// central rejects) and pull through central's own sync endpoints; the back office shows each
// node's last contact, changes to pull, first sync, rejected events and the exceptions, scoped by
// role and store; resolving one is audited.

const clock = new ManualClock();
let central: CentralHandle;
let app: FastifyInstance;
let url: string;
let owner: SignedInStaff;
let storeManagerB: SignedInStaff;
let storeB: { storeId: number; apiKey: string };
const credentials: Record<string, string> = {};

const pair = async (storeId: number, label: string) => {
  const code = await http(`${url}/sync/pairing-codes`, { method: 'POST', token: central.vendor.accessToken, body: { store: storeId } });
  expect(code.status, JSON.stringify(code.body)).toBe(201);
  const paired = await http(`${url}/sync/pair`, { method: 'POST', body: { code: code.body.code, label } });
  expect(paired.status, JSON.stringify(paired.body)).toBe(201);
  return paired.body.credential as string;
};

beforeAll(async () => {
  central = await startCentral(clock);
  app = await buildApp({ engine: central.engine, role: 'central', version: 'test' });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  const node = { url, engine: central.engine } as TestNode;
  owner = await ownerOf(node, central.vendor.vendorId);
  storeB = await addStore(central, 'B');
  storeManagerB = await invitedStaff(node, owner, 'store_manager', storeB.storeId);
  credentials['A'] = await pair(central.vendor.storeId, 'store A');
  credentials['B'] = await pair(storeB.storeId, 'store B');
  // Store A pulls everything once (its first sync) and pushes an event central must reject.
  clock.advance(60_000);
  let cursor = 0;
  for (;;) {
    const page = await http(`${url}/sync/pull?after=${cursor}`, { token: credentials['A'] });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    cursor = page.body.cursor;
    if (!page.body.more) break;
  }
  const pushed = await http(`${url}/sync/push`, {
    method: 'POST',
    token: credentials['A'],
    body: { events: [{ node_seq: 1, event_id: 'evt-1', type: 'local.write', offline: false, created_at: clock.now(), changes: [{ tbl: 'vendors', op: 'upsert', data: { id: 1 } }] }] },
  });
  expect(pushed.body.results[0]).toMatchObject({ verdict: 'rejected', code: 'table_not_accepted' });
});

afterAll(async () => {
  await app?.close();
  await central?.close();
});

const chain = async (who: SignedInStaff, query = '') => {
  const reply = await staffCall({ url } as TestNode, who.token, 'GET', `/backoffice/chain${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
};

describe('chain health at central', () => {
  it('shows each store node: last seen, last event, changes to pull, first sync, rejected events, open exceptions', async () => {
    const c = await chain(owner);
    expect(c.role).toBe('central');
    const [a, b] = c.nodes;
    expect(a).toMatchObject({ store: central.vendor.storeId, label: 'store A', last_event: 1, pending_changes: 0, pending_changes_capped: false, first_sync: 'done', rejected_events: 1, open_exceptions: 1, revoked_at: null });
    expect(a.last_seen_at).toBe(new Date(clock.now()).toISOString());
    expect(b).toMatchObject({ store: storeB.storeId, store_name: 'B', label: 'store B', last_event: 0, first_sync: 'waiting', rejected_events: 0, open_exceptions: 0 });
    // Paired (central saw it then), nothing pulled yet.
    expect(b.last_seen_at).toBe(new Date(clock.now() - 60_000).toISOString());
    expect(b.pending_changes).toBeGreaterThan(0);
    expect(b.pending_changes_capped).toBe(false);
    expect(c.exceptions).toHaveLength(1);
    expect(c.exceptions[0]).toMatchObject({ store: central.vendor.storeId, kind: 'event_rejected', subject: 'event 1 (local.write)', resolved_at: null });
  });

  it('a store taking its snapshot shows its first sync in progress, not waiting', async () => {
    const snapshot = await http(`${url}/sync/snapshot?table=users&estimate=true`, { token: credentials['B'] });
    expect(snapshot.status, JSON.stringify(snapshot.body)).toBe(200);
    const b = (await chain(owner)).nodes.find((n: { label: string }) => n.label === 'store B');
    expect(b).toMatchObject({ first_sync: 'in_progress', last_event: 0 });
    expect(b.last_seen_at).toBe(new Date(clock.now()).toISOString());
  });

  it('lists each store’s version as its last pull said it, beside central’s (an upgrade store by store)', async () => {
    const versionOfA = async () => (await chain(owner)).nodes.find((n: { label: string }) => n.label === 'store A');
    // Store A pulled above without the header (a store before it): not known.
    expect(await versionOfA()).toMatchObject({ schema_level: null, version: null });
    const pullAs = async (level: string) => {
      const page = await http(`${url}/sync/pull?after=0&limit=1`, { token: credentials['A'], headers: { [SCHEMA_LEVEL_HEADER]: level } });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
    };
    await pullAs(SCHEMA_LEVEL);
    expect(await versionOfA()).toMatchObject({ schema_level: SCHEMA_LEVEL, version: 'same' });
    await pullAs('0040-stored-value-paybacks');
    expect(await versionOfA()).toMatchObject({ schema_level: '0040-stored-value-paybacks', version: 'older' });
    await pullAs('9999-from-the-future');
    expect(await versionOfA()).toMatchObject({ schema_level: '9999-from-the-future', version: 'newer' });
    // Not a level: kept as not known, never echoed.
    await pullAs('<script>');
    expect(await versionOfA()).toMatchObject({ schema_level: null, version: null });
    // The bearer API's node list says it too.
    await pullAs(SCHEMA_LEVEL);
    const nodes = await http(`${url}/sync/nodes`, { token: central.vendor.accessToken });
    expect(nodes.body.items.find((n: { label: string }) => n.label === 'store A')).toMatchObject({ schema_level: SCHEMA_LEVEL });
  });

  it('a store manager sees their own store’s node only, and may not resolve', async () => {
    const c = await chain(storeManagerB);
    expect(c.nodes.map((n: { label: string }) => n.label)).toEqual(['store B']);
    expect(c.exceptions).toEqual([]);
    const id = (await chain(owner)).exceptions[0].id;
    const refused = await staffCall({ url } as TestNode, storeManagerB.token, 'POST', `/backoffice/chain/exceptions/${id}/resolve`, { note: 'Looked at it' });
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
  });

  it('one store asked for: its node; a store of another program, or none, is 404 store_not_found (not an empty page)', async () => {
    expect((await chain(owner, `?store=${storeB.storeId}`)).nodes.map((n: { label: string }) => n.label)).toEqual(['store B']);
    const other = await setUpVendor(central.engine, { name: 'Elsewhere', currency: 'USD', country: 'US', store: { name: 'Far', address1: '9 Far Road', city: 'Ogdenville' } });
    for (const store of [other.storeId, 999_999_999]) {
      const refused = await staffCall({ url } as TestNode, owner.token, 'GET', `/backoffice/chain?store=${store}`);
      expect([refused.status, refused.body.code], JSON.stringify(refused.body)).toEqual([404, 'store_not_found']);
    }
    // A store manager asking for any store but theirs is refused first, as on the dashboard.
    const manager = await staffCall({ url } as TestNode, storeManagerB.token, 'GET', `/backoffice/chain?store=${other.storeId}`);
    expect([manager.status, manager.body.code]).toEqual([403, 'forbidden']);
  });

  it('resolving an exception needs a note, closes it once, and is audited', async () => {
    const id = (await chain(owner)).exceptions[0].id;
    const call = (note: string) => staffCall({ url } as TestNode, owner.token, 'POST', `/backoffice/chain/exceptions/${id}/resolve`, { note });
    expect((await call(' ')).body.field).toBe('note');
    const resolved = await call('The store’s software was updated');
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body.resolved_at).toBe(new Date(clock.now()).toISOString());
    expect([(await call('Again')).status, (await call('Again')).body.code]).toEqual([404, 'sync_exception_not_found']);
    const c = await chain(owner);
    expect(c.exceptions).toEqual([]);
    expect(c.nodes[0].open_exceptions).toBe(0);
    expect((await chain(owner, '?resolved=true')).exceptions.map((e: { id: number }) => e.id)).toEqual([id]);
    const audit = await staffCall({ url } as TestNode, owner.token, 'GET', '/backoffice/audit?object_type=sync_exception&limit=1');
    expect(audit.body.items[0]).toMatchObject({ actor: owner.email, action: 'sync_exception.resolve', object_id: String(id), before: { kind: 'event_rejected', resolved: false }, after: { resolved: true, note: 'The store’s software was updated' } });
  });

  it('offline caps are set in central’s back office and audited', async () => {
    const set = await staffCall({ url } as TestNode, owner.token, 'PUT', '/backoffice/program/offline-caps', { quick_pay_per_order: 2000, points_per_day: 500 });
    expect(set.body).toEqual({ apply: 'set_here', quick_pay_per_order: 2000, quick_pay_per_day: null, points_per_order: null, points_per_day: 500 });
    expect((await staffCall({ url } as TestNode, owner.token, 'GET', '/backoffice/program')).body.offline_caps.apply).toBe('set_here');
    const audit = await staffCall({ url } as TestNode, owner.token, 'GET', '/backoffice/audit?object_type=program&limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'program.update_offline_caps', before: { quickPayPerOrder: null }, after: { quickPayPerOrder: 2000, pointsPerDay: 500 } });
  });

  it('null removes an offline cap, in the back office and the bearer API (it was coerced to a cap of 0, stopping every offline sale)', async () => {
    const caps = (body: Record<string, unknown>) => staffCall({ url } as TestNode, owner.token, 'PUT', '/backoffice/program/offline-caps', body);
    expect((await caps({ quick_pay_per_order: null, points_per_order: 0 })).body).toEqual({ apply: 'set_here', quick_pay_per_order: null, quick_pay_per_day: null, points_per_order: 0, points_per_day: 500 });
    const policy = (body: Record<string, unknown>) => http(`${url}/sync/offline-policy`, { method: 'PUT', token: central.vendor.accessToken, body });
    expect((await policy({ quick_pay_per_day: 700, points_per_order: null })).body).toEqual({ quick_pay_per_order: null, quick_pay_per_day: 700, points_per_order: null, points_per_day: 500 });
    expect((await policy({ quick_pay_per_day: null })).body).toEqual({ quick_pay_per_order: null, quick_pay_per_day: null, points_per_order: null, points_per_day: 500 });
    // as the next test expects
    expect((await caps({ quick_pay_per_order: 2000 })).body.quick_pay_per_order).toBe(2000);
  });

  it('a paired store shows central’s program read-only, its offline caps as central’s, and refuses program changes', async () => {
    const storeC = await addStore(central, 'C');
    const store = await pairStore(central, clock, storeC, central.transportFor);
    try {
      const staff = { sessionId: 0, staffId: 0, vendorId: central.vendor.vendorId, email: 'o@c.test', name: 'O', role: 'owner' as const, storeId: null };
      const overview = await programOverview(store.engine, central.vendor.vendorId, 'store');
      expect(overview.editable).toBe(false);
      expect(overview.offlineCaps).toMatchObject({ apply: 'from_central', quickPayPerOrder: 2000, pointsPerDay: 500 });
      expect(overview.earningRules.map((r) => r.name)).toEqual((await programOverview(central.engine, central.vendor.vendorId, 'central')).earningRules.map((r) => r.name));
      await expect(programChanges.updateSettings(store.engine, staff, { pointsExpiryDays: 30 })).rejects.toMatchObject({ code: 'program_managed_by_central', status: 409 });
    } finally {
      await store.close();
    }
  });
});

describe('a node far behind', () => {
  it('counts the changes it has to pull up to 10,000 and says there are more, not reading the whole log', async () => {
    // 10,001 more changes of the program than store A has pulled (a node away for weeks, or paired
    // and never synced on a year-old central): counting them all read every entry, per node, per view.
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 10001)
      insert into sync_changes (tbl, row_id, op, vendor_id, data) select 'stores', ${central.vendor.storeId}, 'upsert', ${central.vendor.vendorId}, '{}' from n`.execute(central.engine.db);
    const a = (await chain(owner)).nodes.find((n: { label: string }) => n.label === 'store A');
    expect(a).toMatchObject({ pending_changes: 10_000, pending_changes_capped: true });
    expect(await queryPlan(central.engine.db, pendingChangesQuery(central.engine.db, central.vendor.vendorId, 5).compile())).toMatch(/SEARCH sync_changes USING COVERING INDEX sync_changes_vendor \(vendor_id=\? AND seq>\?\)/);
  });
});
