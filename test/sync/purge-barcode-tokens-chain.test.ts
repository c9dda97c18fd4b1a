import { describe, expect, it, vi } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { BARCODE_TOKEN_TYPE, requestBarcodeToken } from '../../src/core/customers/barcode-token';
import { BARCODE_TOKEN_GRACE_MS, purgeExpiredBarcodeTokens } from '../../src/core/customers/purge-expired-barcode-tokens';
import { endAllSessions } from '../../src/core/customers/sessions';
import { type Engine, transact } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { getMeta } from '../../src/core/storage/node-meta';
import { logHead } from '../../src/core/sync/central/read-snapshot';
import { applyPulledChanges } from '../../src/core/sync/store/apply-pulled-changes';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { startJobs } from '../../src/server/node/jobs';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { makeTempDir } from '../support/temp-dir';
import { closedAfterEach, pairFirstStore, startCentralOn } from './support/chain';

// App barcodes are central's rows, copied to every store of the program (pull only). An expired
// one is useless everywhere, and each node judges expiry by its own clock at check-in, so each
// node purges its own copies by the same rule, a day past expiry: central's purge is quiet (no
// delete per barcode in the log that every store would pull, and keep after compaction), a store's
// purge is never pushed, and the log's versions of a barcode a store already purged change nothing
// that matters. Revoking barcodes (a password change) is an ordinary write and still travels.

const keep = closedAfterEach();

describe.each(BACKENDS)('purging expired app barcodes in a chain (central on $name)', (backend) => {
  async function chain() {
    const clock = new ManualClock();
    const central = await startCentralOn(backend, clock, keep);
    const { store } = await pairFirstStore(central, clock);
    keep(store);
    const registered = await registerInStore(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { email: 'ana@chain-purge.test' });
    const ana = { sessionId: 0, userId: Number(registered.session.user_id), vendorId: central.vendor.vendorId };
    return { clock, central, store, ana };
  }

  const tokenIds = async (engine: Engine) => (await engine.db.selectFrom('barcode_tokens').select('id').orderBy('id').execute()).map((r) => Number(r.id));
  const storeOutbox = async (engine: Engine) => ({
    changes: (await engine.db.selectFrom('sync_changes').select('seq').execute()).length,
    events: (await engine.db.selectFrom('sync_events').select('node_seq').execute()).length,
  });

  /** The store's hourly jobs, as its node runs them (the first run one second after start). */
  async function runStoreJobs(engine: Engine): Promise<void> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] });
    try {
      const stop = startJobs(engine);
      await vi.advanceTimersByTimeAsync(1_000);
      await stop();
    } finally {
      vi.useRealTimers();
    }
  }

  it('central’s purge sends the stores nothing; a paired store purges its copies itself and pushes nothing', async () => {
    const { clock, central, store, ana } = await chain();
    const old = await requestBarcodeToken(central.engine, ana, BARCODE_TOKEN_TYPE);
    await store.client.syncOnce();
    clock.set(old.expiresAt + BARCODE_TOKEN_GRACE_MS + 1);
    const fresh = await requestBarcodeToken(central.engine, ana, BARCODE_TOKEN_TYPE);
    await store.client.syncOnce();
    expect(await tokenIds(store.engine)).toEqual([old.id, fresh.id]);
    const outboxBefore = await storeOutbox(store.engine);

    // Central: the row goes, the log gets nothing new and forgets the purged barcode's versions.
    const head = await logHead(central.engine.db);
    const versionsOf = async (id: number) => (await central.engine.db.selectFrom('sync_changes').select('seq').where('tbl', '=', 'barcode_tokens').where('row_id', '=', id).execute()).length;
    expect([await versionsOf(old.id), await versionsOf(fresh.id)]).toEqual([1, 1]);
    expect(await purgeExpiredBarcodeTokens(central.engine)).toBe(1);
    expect(await tokenIds(central.engine)).toEqual([fresh.id]);
    expect(await logHead(central.engine.db)).toBe(head);
    expect([await versionsOf(old.id), await versionsOf(fresh.id)]).toEqual([0, 1]);
    await store.client.syncOnce();
    expect(await tokenIds(store.engine)).toEqual([old.id, fresh.id]);

    // The store: its own hourly jobs purge its copy; nothing is captured, no event is made.
    await runStoreJobs(store.engine);
    expect(await tokenIds(store.engine)).toEqual([fresh.id]);
    expect(await storeOutbox(store.engine)).toEqual(outboxBefore);
    const round = await store.client.syncOnce();
    expect(round).toMatchObject({ pushed: 0 });
    expect(await tokenIds(central.engine)).toEqual([fresh.id]);

    // A barcode revoked at central (a password change) is an ordinary delete: it still travels.
    await transact(central.engine, (trx) => endAllSessions(trx, central.engine, ana.userId));
    await store.client.syncOnce();
    expect(await tokenIds(store.engine)).toEqual([]);
  });

  it('central’s log keeps its head, even a purged barcode’s version: a seq is never given twice', async () => {
    const { clock, central, store, ana } = await chain();
    const old = await requestBarcodeToken(central.engine, ana, BARCODE_TOKEN_TYPE);
    const head = await logHead(central.engine.db);
    const atHead = await central.engine.db.selectFrom('sync_changes').select(['tbl', 'row_id']).where('seq', '=', head).executeTakeFirstOrThrow();
    expect([atHead.tbl, Number(atHead.row_id)]).toEqual(['barcode_tokens', old.id]);
    await store.client.syncOnce();
    clock.set(old.expiresAt + BARCODE_TOKEN_GRACE_MS + 1);
    expect(await purgeExpiredBarcodeTokens(central.engine)).toBe(1);
    expect(await logHead(central.engine.db)).toBe(head);
    // the next change comes after the store's cursor, and the store reads it
    const next = await requestBarcodeToken(central.engine, ana, BARCODE_TOKEN_TYPE);
    expect(await logHead(central.engine.db)).toBeGreaterThan(head);
    await store.client.syncOnce();
    expect(await tokenIds(store.engine)).toContain(next.id);
  });

  it('the log’s versions of a barcode the store already purged, and a delete of it, apply without failing', async () => {
    const { clock, central, store, ana } = await chain();
    const old = await requestBarcodeToken(central.engine, ana, BARCODE_TOKEN_TYPE);
    await store.client.syncOnce();
    // (the barcode's version in central's log, which central's purge forgets)
    const version = await central.engine.db.selectFrom('sync_changes').select(['seq', 'data']).where('tbl', '=', 'barcode_tokens').where('row_id', '=', old.id).executeTakeFirstOrThrow();
    clock.set(old.expiresAt + BARCODE_TOKEN_GRACE_MS + 1);
    expect(await purgeExpiredBarcodeTokens(central.engine)).toBe(1);
    expect(await purgeExpiredBarcodeTokens(store.engine)).toBe(1);
    expect(await tokenIds(store.engine)).toEqual([]);

    // A version of it read late (a page pulled before central's purge, applied after the store's)
    // writes it again, and the store purges it again.
    const data = JSON.parse(version.data) as Record<string, unknown>;
    const cursor = Number(await getMeta(store.engine.db, 'sync_cursor'));
    const apply = (changes: Parameters<typeof applyPulledChanges>[3]) => transact(store.engine, (trx) => applyPulledChanges(trx, store.engine, central.vendor.vendorId, changes, cursor));
    await apply([{ seq: Number(version.seq), tbl: 'barcode_tokens', op: 'upsert', data: { ...data, created_at: Number(data['created_at']) + 1 } }]);
    expect(await tokenIds(store.engine)).toEqual([old.id]);
    expect(await purgeExpiredBarcodeTokens(store.engine)).toBe(1);
    // A delete of a row already gone changes nothing and fails nothing.
    await apply([{ seq: Number(version.seq), tbl: 'barcode_tokens', op: 'delete', data }]);
    expect(await tokenIds(store.engine)).toEqual([]);
    expect((await storeOutbox(store.engine)).changes).toBe(0);
    await store.client.syncOnce();
    expect(await tokenIds(store.engine)).toEqual([]);
  });
});

describe('a paired store node purges its copies among its hourly jobs', () => {
  async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('as `punchcard store` starts it, paired: the first run, a second after start, removes a barcode a day past expiry', async () => {
    const dirs = [makeTempDir('punchcard-purge-central-'), makeTempDir('punchcard-purge-store-')];
    keep({ close: async () => dirs.forEach((dir) => dir.remove()) });
    const central: RunningNode = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0 });
    keep(central);
    const chain = await setUpVendor(central.engine, { name: 'Chain', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    const registered = await registerInStore(central.engine, await authenticateApiKey(central.engine, chain.apiKey), { email: 'ana@node-purge.test' });
    const userId = Number(registered.session.user_id);
    const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);
    await pairStoreWithCentral({ dataDir: dirs[1]!.path, central: central.url, code });
    const store: RunningNode = await startStoreNode({ dataDir: dirs[1]!.path, port: 0 });
    keep(store);
    expect(store.engine.programRole).toBe('replica');
    await eventually('the customer at the store', async () => (await store.engine.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined);

    // A copy a day and more past its expiry (central purged its own long ago).
    const now = Date.now();
    await store.engine.db
      .insertInto('barcode_tokens')
      .values({ id: 9_000_000_000_001, user_id: userId, vendor_id: chain.vendorId, token_hash: 'stale', token_type: BARCODE_TOKEN_TYPE, created_at: now - 3 * 86_400_000, expires_at: now - 3 * 86_400_000 + 900_000 })
      .execute();
    await store.restart();
    await eventually('the purge', async () => (await tokenIdsOf(store.engine)).length === 0);
    expect(await store.engine.db.selectFrom('sync_events').select('node_seq').where('acked_at', 'is', null).execute()).toEqual([]);
  });
});

async function tokenIdsOf(engine: Engine): Promise<number[]> {
  return (await engine.db.selectFrom('barcode_tokens').select('id').execute()).map((r) => Number(r.id));
}
