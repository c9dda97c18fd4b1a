import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { migrateToLatest } from '../../src/core/storage/database';
import { installChangeCapture } from '../../src/core/sync/capture/install-capture';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { issuePairingCode, pairNode } from '../../src/core/sync/central/pairing';
import { hashSecret } from '../../src/core/credentials/secrets';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { scannerScopeResolver } from '../../src/server/node/scanner-scope';
import { silentLogger } from '../../src/devices/hid/hid-device';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { http } from '../support/test-node';
import { addStore, freshDatabase, pairStore, startCentral as startChain } from './support/chain';

// What a paired node's credential reaches at central, over real HTTP, on SQLite and PostgreSQL:
// a revoked node is cut off everywhere (its open poke stream too), and bad input from a node is a
// 400 or a refused event, never a 500.

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

interface Central {
  engine: Engine;
  vendor: VendorCredentials;
  url: string;
  app: FastifyInstance;
  /** Pairs a node for the vendor's first store over HTTP: its id and credential. */
  pair(): Promise<{ nodeId: number; credential: string }>;
}

async function startCentral(kind: 'sqlite' | 'postgres'): Promise<Central> {
  const pg = kind === 'postgres' ? await openTestPostgres() : null;
  const database = pg ? pg.database : await freshDatabase();
  if (pg) await migrateToLatest(database.db);
  const engine = await startEngine({ database, nodeKey: randomBytes(32), clock: new ManualClock(), role: 'central' });
  open.push(async () => (pg ? pg.drop() : engine.close()));
  await installChangeCapture(engine.db, engine.dialect, 'central');
  const vendor = await setUpVendor(engine, { name: 'Chain', currency: 'USD', country: 'US', store: { name: 'A', address1: '1 Main', city: 'Springfield' } });
  const app = await buildApp({ engine, role: 'central', version: 'test' });
  open.push(async () => void (await app.close()));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    engine,
    vendor,
    url,
    app,
    async pair() {
      const { code } = await issuePairingCode(engine, vendor.vendorId, vendor.storeId);
      const paired = await http(`${url}/sync/pair`, { method: 'POST', body: { code } });
      expect(paired.status, JSON.stringify(paired.body)).toBe(201);
      return { nodeId: paired.body.node_id as number, credential: paired.body.credential as string };
    },
  };
}

/** Reads an open event stream until it ends or `ms` pass: whether it ended, and what it said. */
async function readStream(body: ReadableStream<Uint8Array>, ms: number): Promise<{ ended: boolean; text: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) {
      await reader.cancel();
      return { ended: false, text };
    }
    const next = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), left))]);
    if (next === null) continue;
    if (next.done) return { ended: true, text };
    text += decoder.decode(next.value, { stream: true });
  }
}

describe.each(['sqlite', 'postgres'] as const)('a node credential at central (%s)', (kind) => {
  it('revoked, a node’s open poke stream ends, and it is refused everywhere', async () => {
    const central = await startCentral(kind);
    const { nodeId, credential } = await central.pair();
    const abort = new AbortController();
    open.push(async () => abort.abort());
    const stream = await fetch(`${central.url}/sync/stream`, { headers: { authorization: `Bearer ${credential}` }, signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('x-content-type-options')).toBe('nosniff');
    const revoked = await http(`${central.url}/sync/nodes/${nodeId}`, { method: 'DELETE', token: central.vendor.accessToken });
    expect(revoked.status).toBe(200);
    const read = await readStream(stream.body!, 6_000);
    expect(read.ended, 'the stream of a revoked node must end').toBe(true);
    for (const call of [
      http(`${central.url}/sync/stream`, { token: credential }),
      http(`${central.url}/sync/pull?after=0`, { token: credential }),
      http(`${central.url}/sync/snapshot?table=users`, { token: credential }),
      http(`${central.url}/sync/customer`, { method: 'POST', token: credential, body: { card_number: 'x@example.com' } }),
      http(`${central.url}/sync/push`, { method: 'POST', token: credential, body: { events: [] } }),
    ]) {
      expect(await call).toMatchObject({ status: 401, body: { code: 'node_revoked' } });
    }
  });

  it('keeps a pairing code only as a keyed digest: a copy of the database does not give it away', async () => {
    const central = await startCentral(kind);
    const { code } = await issuePairingCode(central.engine, central.vendor.vendorId, central.vendor.storeId);
    const plain = code.replace('-', '');
    const stored = await central.engine.db.selectFrom('sync_pairing_codes').select('code_hash').execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.code_hash).not.toBe(hashSecret(plain));
    expect(stored[0]!.code_hash).not.toContain(plain);
    expect(await pairNode(central.engine, code, 'till')).toMatchObject({ node_id: expect.any(Number) });
  });

  it('answers a malformed push with 400 and a code, and refuses an event with numbers no column holds, never a 500', async () => {
    const central = await startCentral(kind);
    const { nodeId, credential } = await central.pair();
    const push = (events: unknown[]) => http(`${central.url}/sync/push`, { method: 'POST', token: credential, body: { events } });
    const event = (nodeSeq: number, extra: Record<string, unknown>) => ({ node_seq: nodeSeq, event_id: `e${nodeSeq}`, type: 'order.placed', offline: false, created_at: 1, changes: [], ...extra });
    for (const malformed of [
      { changes: [null] },
      { changes: ['x'] },
      { changes: [{ tbl: 'orders', op: 'upsert', data: null }] },
      { changes: [{ tbl: 'orders', op: 'upsert', data: [] }] },
      { changes: [{ tbl: 5, op: 'upsert', data: {} }] },
      { believed_available: 5 },
      { believed_available: [null] },
      { believed_available: [{ holder_type: 'user', holder_id: 'x', currency_id: 1, balance: 5 }] },
      { believed_available: [{ holder_type: 'user', holder_id: 1, currency_id: 1, balance: 1.5 }] },
      // The event's own fields: "applied" was answered while nothing was kept, and the store would drop it.
      { node_seq: 0 },
      { node_seq: -5 },
      { created_at: 'yesterday' },
      { created_at: 1e300 },
      { offline: 'maybe' },
      { type: '' },
      { type: 'x'.repeat(101) },
      { type: undefined },
    ]) {
      const reply = await push([event(1, malformed)]);
      expect([reply.status, reply.body?.code], JSON.stringify(malformed)).toEqual([400, 'validation_failed']);
    }
    // Well-formed but not a row any store writes: the event is refused (an exception for staff) and the queue moves on.
    const base = nodeId * 2 ** 32;
    const order = { id: base + 6, vendor_id: central.vendor.vendorId, store_id: central.vendor.storeId, user_id: base + 1, receipt_number: 'R', status: 'placed', created_at: 1 };
    const session = { id: base + 5, vendor_id: central.vendor.vendorId, store_id: central.vendor.storeId, user_id: 1.5, status: 'active', created_at: 1, updated_at: 1 };
    const membership = { id: base + 2, user_id: 1e300, vendor_id: central.vendor.vendorId };
    const reply = await push([
      event(1, { changes: [{ tbl: 'orders', op: 'upsert', data: { ...order, id: 1e300 } }] }),
      event(2, { changes: [{ tbl: 'pos_sessions', op: 'upsert', data: session }] }),
      event(3, { changes: [{ tbl: 'user_vendors', op: 'upsert', data: membership }] }),
      event(4, {}),
    ]);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.results.map((r: { verdict: string; code: string | null }) => [r.verdict, r.code])).toEqual([
      ['rejected', 'invalid_row'],
      ['rejected', 'invalid_row'],
      ['rejected', 'invalid_row'],
      ['applied', null],
    ]);
  });

  it('POST /sync/customer says nothing of another program’s customers, whatever their state', async () => {
    const central = await startCentral(kind);
    const { credential } = await central.pair();
    const other = await setUpVendor(central.engine, { name: 'Other', currency: 'USD', country: 'US', store: { name: 'O', address1: '9 Side St', city: 'Elsewhere' } });
    const theirs = await authenticateApiKey(central.engine, other.apiKey);
    await registerInStore(central.engine, theirs, { email: 'sleeping@other.test' });
    await central.engine.db.updateTable('users').set({ status: 'inactive' }).where('email_key', '=', 'sleeping@other.test').execute();
    const ask = (card: string) => http(`${central.url}/sync/customer`, { method: 'POST', token: credential, body: { card_number: card } });
    // Told apart from a stranger, it would say the address has an account elsewhere, and asleep.
    expect(await ask('sleeping@other.test')).toMatchObject({ status: 404, body: { code: 'customer_not_found' } });
    expect(await ask('nobody@other.test')).toMatchObject({ status: 404, body: { code: 'customer_not_found' } });
  });
});

describe('a paired store node', () => {
  it('takes the keys of its own store only: another store’s sales would be refused by central and lost', async () => {
    const clock = new ManualClock();
    const central = await startChain(clock);
    open.push(() => central.close());
    const other = await addStore(central, 'B');
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => central.transportFor(credential));
    open.push(() => store.close());
    expect((await store.scope()).storeId).toBe(central.vendor.storeId);
    await expect(authenticateApiKey(store.engine, other.apiKey)).rejects.toMatchObject({ code: 'forbidden' });
    // At central, and at B's own node, the key is as good as ever.
    expect((await authenticateApiKey(central.engine, other.apiKey)).storeId).toBe(other.storeId);
  });

  it('checks scans in at its own store, not at the chain’s first', async () => {
    const clock = new ManualClock();
    const central = await startChain(clock);
    open.push(() => central.close());
    const second = await addStore(central, 'B');
    const store = await pairStore(central, clock, second, (credential) => central.transportFor(credential));
    open.push(() => store.close());
    const scope = await scannerScopeResolver(store.engine, {}, silentLogger)();
    expect(scope?.storeId).toBe(second.storeId);
  });
});
