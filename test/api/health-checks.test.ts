import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { startEngine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { openSqlite } from '../../src/core/storage/database';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { ManualClock } from '../support/clock';
import { createServerDatabase } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';
import { relayTo } from '../support/tcp-relay';
import { http, startTestNode, type TestNode } from '../support/test-node';
import { eventually } from '../support/eventually';

// GET /health tells a monitor what it needs: 200 ok; 200 degraded when the node sells but needs
// attention (data folder's disk low, a paired store's sync behind); 503 unavailable when it cannot
// serve (SQLite refusing writes, PostgreSQL gone). Real nodes over HTTP; no write on a healthy poll.

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const totalChanges = async (node: TestNode) => Number((await sql<{ n: number }>`select total_changes() as n`.execute(node.engine.db)).rows[0]!.n);

describe("a store node's health", () => {
  it('is ok with its checks, and a poll writes nothing', async () => {
    const node = await startTestNode();
    cleanups.push(() => node.close());
    const before = await totalChanges(node);
    for (let i = 0; i < 5; i += 1) await http(`${node.url}/health`);
    expect(await totalChanges(node)).toBe(before);
    const reply = await http(`${node.url}/health`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'ok', role: 'store', database: 'sqlite', node_id: node.engine.nodeId, version: 'test' });
    expect(reply.body.checks).toEqual({
      database: { status: 'ok', reachable: true, writable: true, problem: null, since: null },
      disk: { status: 'ok', free_bytes: expect.any(Number), total_bytes: expect.any(Number), low_below_bytes: 1024 ** 3 },
      sync: null,
    });
    expect(reply.body.checks.disk.free_bytes).toBeGreaterThan(0);
    expect(reply.body.checks.disk.total_bytes).toBeGreaterThanOrEqual(reply.body.checks.disk.free_bytes);
  });

  it('is 503 unavailable while its SQLite file is full or read-only, and ok again once a test write succeeds', async () => {
    const node = await startTestNode();
    cleanups.push(() => node.close());
    const { accessToken } = await node.addVendor();
    let n = 0;
    const addCard = () => http(`${node.url}/cards`, { method: 'POST', token: accessToken, body: { number: `HEALTH${++n}` } });
    const health = () => http(`${node.url}/health`);
    expect((await addCard()).status).toBe(201);

    // Full: the file may not grow by a page (SQLITE_FULL, as on a full disk).
    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(node.engine.db)).rows[0]!.page_count);
    await sql.raw(`pragma max_page_count = ${pages}`).execute(node.engine.db);
    let refused = await addCard();
    for (let i = 0; refused.status === 201 && i < 2_000; i += 1) refused = await addCard();
    expect(refused.body.code).toBe('storage_unavailable');
    const full = await health();
    expect(full.status).toBe(503);
    expect(full.body).toMatchObject({ status: 'unavailable', role: 'store', node_id: node.engine.nodeId });
    expect(full.body.checks.database).toEqual({ status: 'unavailable', reachable: true, writable: false, problem: 'disk_full', since: new Date(node.clock.now()).toISOString() });
    expect(JSON.stringify(full.body)).not.toMatch(/SQLITE|max_page/);
    // Its test write (every 5 s at most) is refused as the sale was: still unavailable.
    node.clock.advance(5_000);
    expect((await health()).body.checks.database).toMatchObject({ writable: false, problem: 'disk_full' });

    // Room again: the next test write succeeds and the node is ok without a sale.
    await sql`pragma max_page_count = 1073741823`.execute(node.engine.db);
    node.clock.advance(5_000);
    const again = await health();
    expect([again.status, again.body.status, again.body.checks.database.writable]).toEqual([200, 'ok', true]);

    // Read-only: the write connection may not write (SQLITE_READONLY).
    await sql`pragma query_only = ON`.execute(node.engine.db);
    expect((await addCard()).status).toBe(503);
    const readOnly = await health();
    expect([readOnly.status, readOnly.body.status, readOnly.body.checks.database.problem]).toEqual([503, 'unavailable', 'read_only']);
    await sql`pragma query_only = OFF`.execute(node.engine.db);
    node.clock.advance(5_000);
    expect((await health()).body.status).toBe('ok');
    expect((await addCard()).status).toBe(201);
  }, 120_000);

  it('is degraded (still 200) when the data folder’s disk has less free space than the threshold', async () => {
    const dir = makeTempDir('h-health-disk-');
    cleanups.push(() => dir.remove());
    const engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), clock: new ManualClock(), role: 'store' });
    cleanups.push(() => engine.close());
    // No test can fill the machine's disk: the threshold is raised above what it has free.
    const app = await buildApp({ engine, role: 'store', version: 'test', diskLowBytes: Number.MAX_SAFE_INTEGER });
    cleanups.push(() => app.close());
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const reply = await http(`${url}/health`);
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('degraded');
    expect(reply.body.checks.disk).toMatchObject({ status: 'degraded', low_below_bytes: Number.MAX_SAFE_INTEGER });
    expect(reply.body.checks.database.status).toBe('ok');
  });
});

describe('a paired store whose central is gone', () => {
  it('is degraded once its oldest unsent event or its last pull is older than 15 minutes, and ok again when central is back', async () => {
    const [centralDir, storeDir] = [makeTempDir('h-health-central-'), makeTempDir('h-health-store-')];
    cleanups.push(() => centralDir.remove(), () => storeDir.remove());
    let hub: RunningNode = await startStoreNode({ dataDir: centralDir.path, role: 'central', port: 0 });
    cleanups.push(() => hub.close());
    const clock = new ManualClock(Date.now());
    const till = await startStoreNode({ dataDir: storeDir.path, port: 0, clock });
    cleanups.push(() => till.close());
    const chain = await setUpVendor(hub.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    const { code } = await issuePairingCode(hub.engine, chain.vendorId, chain.storeId);
    const local = await setUpVendor(till.engine, { name: 'Corner Shop', currency: 'USD', country: 'US', store: { name: 'Corner', address1: '2 Lane', city: 'Shelbyville' } });
    const paired = await http(`${till.url}/sync/pairing?api_key=${local.apiKey}`, { method: 'POST', body: { central: hub.url, code, replace_local_data: true } });
    expect(paired.status, JSON.stringify(paired.body)).toBe(202);
    await eventually('the first sync', async () => ((await http(`${till.url}/sync/status`)).body.first_sync?.done ? true : undefined), 60_000);
    const health = () => http(`${till.url}/health`);

    const linked = await health();
    expect([linked.status, linked.body.status]).toEqual([200, 'ok']);
    expect(linked.body.checks.sync).toMatchObject({ status: 'ok', problem: null, link: 'up', pending: 0, oldest_pending_at: null, behind_after_seconds: 900 });
    expect(linked.body.checks.sync.last_pull_at).not.toBeNull();

    // Central stops; the store sells on (a registration waits in its outbox).
    const port = Number(new URL(hub.url).port);
    await hub.close();
    await registerInStore(till.engine, await authenticateApiKey(till.engine, chain.apiKey), { email: 'waiting@example.com' });
    const soon = await health();
    expect([soon.status, soon.body.status]).toEqual([200, 'ok']);
    expect(soon.body.checks.sync).toMatchObject({ status: 'ok', pending: 1, oldest_pending_age_seconds: 0 });

    clock.advance(16 * 60_000);
    const behind = await health();
    expect([behind.status, behind.body.status]).toEqual([200, 'degraded']);
    expect(behind.body.checks.sync).toMatchObject({ status: 'degraded', problem: 'events_unsent', link: 'down', pending: 1, oldest_pending_age_seconds: 960 });
    expect(behind.body.checks.sync.last_pull_age_seconds).toBeGreaterThanOrEqual(960);
    expect(behind.body.checks.database.status).toBe('ok');

    // Central back on its address: the event leaves, a pull succeeds, the store is ok again.
    hub = await startStoreNode({ dataDir: centralDir.path, role: 'central', port });
    const back = await eventually('the store caught up', async () => {
      const reply = await health();
      return reply.body.status === 'ok' ? reply : undefined;
    }, 60_000);
    expect(back.body.checks.sync).toMatchObject({ status: 'ok', link: 'up', pending: 0 });
  }, 180_000);
});

describe.skipIf(!process.env.PG_URL)('a central whose PostgreSQL is gone (PG_URL)', () => {
  it('is 503 unavailable while PostgreSQL refuses or never answers, and ok once it is back', async () => {
    const scratch = await createServerDatabase(process.env.PG_URL!, 'h_health');
    cleanups.push(() => scratch.drop());
    const relay = await relayTo(new URL(process.env.PG_URL!));
    cleanups.push(() => relay.close());
    const viaRelay = new URL(scratch.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    const dir = makeTempDir('h-health-pg-');
    cleanups.push(() => dir.remove());
    const central = await startStoreNode({ dataDir: dir.path, role: 'central', port: 0, database: viaRelay.toString() });
    cleanups.push(() => central.close());
    const health = () => http(`${central.url}/health`);
    const ok = await health();
    expect([ok.status, ok.body.status, ok.body.database, ok.body.role]).toEqual([200, 'ok', 'postgres', 'central']);
    expect(ok.body.checks.sync).toBeNull();

    // Nothing listens where PostgreSQL was.
    await relay.down();
    const gone = await eventually('central sees PostgreSQL gone', async () => {
      const reply = await health();
      return reply.status === 503 ? reply : undefined;
    }, 60_000);
    expect(gone.body).toMatchObject({ status: 'unavailable', role: 'central', database: 'postgres' });
    expect(gone.body.checks.database).toMatchObject({ status: 'unavailable', reachable: false, writable: false, problem: 'unreachable' });
    expect(JSON.stringify(gone.body)).not.toContain(String(relay.port));
    await relay.up();
    await eventually('central serves again', async () => ((await health()).body.status === 'ok' ? true : undefined), 60_000);

    // PostgreSQL accepts but never answers: /health says so in about 2 s, not after the pool's 15.
    relay.silence();
    const silent = await eventually('central sees PostgreSQL silent', async () => {
      const reply = await health();
      return reply.status === 503 ? reply : undefined;
    }, 60_000);
    expect(silent.body.checks.database).toMatchObject({ reachable: false, problem: expect.stringMatching(/^(no_answer|unreachable)$/) });
    relay.relay();
    await eventually('central serves again', async () => ((await health()).body.status === 'ok' ? true : undefined), 60_000);
  }, 180_000);
});
