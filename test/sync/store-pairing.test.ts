import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { issuePairingCode, revokeSyncNode } from '../../src/core/sync/central/pairing';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { openNodeEngine, type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { unpairStore } from '../../src/server/sync/pair-store';
import { createPairingControl } from '../../src/server/sync/pairing-control';
import { ServiceError } from '../../src/shared/errors';
import { run } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';
import { eventually } from '../support/eventually';
import { NOT_PAIRED_STATUS } from '../../src/server/sync/store-sync';

// Pairing a running store node from its Settings screen (POST /sync/pairing) and unpairing it
// (DELETE /sync/pairing): refusals change nothing; success restarts the node in-process on the
// same address, paired (or unpaired), with the store's previous database set aside, never deleted.

const dirs = [makeTempDir('punchcard-central-'), makeTempDir('punchcard-store-'), makeTempDir('punchcard-unpaired-')];
let central: RunningNode | null = null;
let store: RunningNode | null = null;

afterAll(async () => {
  await store?.close();
  await central?.close();
  for (const dir of dirs) dir.remove();
});

const setAside = (dir: string, label: string) => readdirSync(dir).filter((name) => name.startsWith(`punchcard.db.${label}-`) && !name.endsWith('-wal') && !name.endsWith('-shm'));

/** A central and a till with a program of its own, paired from the till's screens (its data set aside), first sync done. */
async function tillPairedFromItsScreens() {
  const [centralDir, storeDir] = [makeTempDir('punchcard-central-'), makeTempDir('punchcard-store-')];
  dirs.push(centralDir, storeDir);
  const hub = await startStoreNode({ dataDir: centralDir.path, role: 'central', port: 0 });
  const till = await startStoreNode({ dataDir: storeDir.path, port: 0 });
  const chain = await setUpVendor(hub.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
  const { code } = await issuePairingCode(hub.engine, chain.vendorId, chain.storeId);
  const local = await setUpVendor(till.engine, { name: 'Corner Shop', currency: 'USD', country: 'US', store: { name: 'Corner', address1: '2 Lane', city: 'Shelbyville' } });
  const paired = await http(`${till.url}/sync/pairing?api_key=${local.apiKey}`, { method: 'POST', body: { central: hub.url, code, replace_local_data: true } });
  expect(paired.status, JSON.stringify(paired.body)).toBe(202);
  await eventually('the first sync', async () => ((await http(`${till.url}/sync/status`)).body.first_sync?.done ? true : undefined));
  return { centralDir, storeDir, hub, till, chain };
}

describe('pairing and unpairing a running store node from its screens', () => {
  it('refuses what it must without changing anything, then pairs, serves the chain, and unpairs', async () => {
    central = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0 });
    const chain = await setUpVendor(central.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0 });
    const local: VendorCredentials = await setUpVendor(store.engine, { name: 'Corner Shop', currency: 'USD', country: 'US', store: { name: 'Corner', address1: '2 Lane', city: 'Shelbyville' } });
    const storeUrl = store.url;
    const pair = (apiKey: string, body: Record<string, unknown>) => http(`${storeUrl}/sync/pairing?api_key=${apiKey}`, { method: 'POST', body });
    const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);

    // Refusals: a kiosk key, a store with data of its own, a wrong code, an address nobody answers at.
    expect((await pair(local.kioskApiKey, { central: central.url, code, replace_local_data: true })).status).toBe(403);
    const withData = await pair(local.apiKey, { central: central.url, code });
    expect([withData.status, withData.body.code]).toEqual([409, 'pairing_needs_empty_store']);
    const wrong = await pair(local.apiKey, { central: central.url, code: 'ABCD-EFGH', replace_local_data: true });
    expect([wrong.status, wrong.body.code]).toEqual([400, 'pairing_code_invalid']);
    const nobody = await pair(local.apiKey, { central: 'http://127.0.0.1:9', code, replace_local_data: true });
    expect([nobody.status, nobody.body.code]).toEqual([503, 'central_unreachable']);
    const notUrl = await pair(local.apiKey, { central: 'central.example', code, replace_local_data: true });
    expect([notUrl.status, notUrl.body.code]).toEqual([400, 'validation_failed']);
    // an unpaired node has no link to be down: `none`, not the `down` of a paired store offline
    // The same body as `punchcard sync status` prints for an unpaired folder (test/cli/cli.test.ts).
    expect((await http(`${storeUrl}/sync/status`)).body).toEqual(NOT_PAIRED_STATUS);
    expect((await http(`${storeUrl}/app/terminal?api_key=${local.apiKey}`)).status).toBe(200);
    expect(setAside(dirs[1]!.path, 'before-pairing')).toEqual([]);

    // Pairing: 202, the node restarts on the same address, paired, and takes the chain's program.
    const paired = await pair(local.apiKey, { central: `${central.url}/`, code: code.toLowerCase(), replace_local_data: true });
    expect(paired.status, JSON.stringify(paired.body)).toBe(202);
    expect(paired.body).toMatchObject({ object: 'pairing', status: 'restarting', central: central.url, store_id: chain.storeId, store_name: 'Harbour' });
    const status = await eventually('the first sync', async () => {
      const s = (await http(`${storeUrl}/sync/status`)).body;
      return s.paired && s.first_sync.done ? s : undefined;
    });
    expect(status).toMatchObject({ central: central.url, link: 'up', store: chain.storeId, node_id: paired.body.node_id });
    // Paired or not, one set of fields: the not-paired body names every field a paired node gives.
    expect(Object.keys(NOT_PAIRED_STATUS)).toEqual(expect.arrayContaining(Object.keys(status)));
    expect(store.url).toBe(storeUrl);
    expect((await http(`${storeUrl}/app/terminal?api_key=${chain.apiKey}`)).body.vendor.name).toBe('Chain Café');
    expect((await http(`${storeUrl}/app/terminal?api_key=${local.apiKey}`)).status).toBe(401);
    expect(setAside(dirs[1]!.path, 'before-pairing')).toHaveLength(1);
    const again = await pair(chain.apiKey, { central: central.url, code, replace_local_data: true });
    expect([again.status, again.body.code]).toEqual([409, 'store_already_paired']);

    // A sale made while central is away waits to be sent: unpairing is refused, unless discarding it is asked for.
    await central.close();
    central = null;
    const sale = await http(`${storeUrl}/onscreen/register?api_key=${chain.apiKey}`, { method: 'POST', body: { email: 'walk.in@example.com' } });
    expect([200, 201]).toContain(sale.status);
    const unpair = (query = '') => http(`${storeUrl}/sync/pairing?api_key=${chain.apiKey}${query}`, { method: 'DELETE' });
    const refused = await unpair();
    expect([refused.status, refused.body.code]).toEqual([409, 'unsent_sales']);
    expect(refused.body.message).toMatch(/^\d+ changes? made here .*discard_unsent=true/);
    expect((await http(`${storeUrl}/sync/status`)).body.paired).toBe(true);
    const unpaired = await unpair('&discard_unsent=true');
    expect(unpaired.status).toBe(202);
    expect(unpaired.body.discarded).toBeGreaterThan(0);
    await eventually('the node unpaired', async () => ((await http(`${storeUrl}/sync/status`)).body.paired === false ? true : undefined));
    expect(existsSync(join(dirs[1]!.path, 'central.json'))).toBe(false);
    expect(setAside(dirs[1]!.path, 'unpaired')).toHaveLength(1);
    // The node is empty now: no program of its own, no fork of the chain's.
    expect(await store.engine.db.selectFrom('vendors').select('id').execute()).toEqual([]);
    expect((await unpair()).status).toBe(401);
  }, 120_000);

  it('unpairing from the screens does not set aside a sale that lands while the node stops', async () => {
    const { storeDir, hub, till, chain } = await tillPairedFromItsScreens();
    try {

      // A sale that lands after the unpairing was answered (nothing was waiting then) and before the
      // node stopped (central away, so it stays unsent): the restart's work on the files must not take it away.
      await hub.close();
      let restarted: Promise<void> = Promise.resolve();
      const control = createPairingControl(
        {
          get engine() {
            return till.engine;
          },
          restart: (between) =>
            (restarted = (async () => {
              await registerInStore(till.engine, await authenticateApiKey(till.engine, chain.apiKey), { email: 'late.sale@example.com' });
              await till.close();
              await between?.();
            })()),
        } as RunningNode,
        { dataDir: storeDir.path },
      );
      expect(await control.unpair({ discardUnsent: false })).toEqual({ discarded: 0 });
      await new Promise((resolve) => setImmediate(resolve));
      await expect(restarted).rejects.toMatchObject({ code: 'unsent_sales' });
      expect(setAside(storeDir.path, 'unpaired')).toEqual([]);
      expect(existsSync(join(storeDir.path, 'central.json'))).toBe(true);
    } finally {
      await till.close();
      await hub.close();
    }
  }, 120_000);

  it('a node central revoked refuses sales over HTTP, and `unpair` sets its unsendable sale aside without --discard-unsent', async () => {
    const { centralDir, storeDir, hub: firstHub, till, chain } = await tillPairedFromItsScreens();
    let hub = firstHub;
    try {
      const sell = (receipt: string) => http(`${till.url}/order?api_key=${chain.apiKey}`, { method: 'POST', body: { card_number: 'rev@example.com', receipt_number: receipt, subtotal: 5 } });
      await registerInStore(till.engine, await authenticateApiKey(till.engine, chain.apiKey), { email: 'rev@example.com' });
      await eventually('the registration at central', async () => ((await http(`${till.url}/sync/status`)).body.pending === 0 ? true : undefined));

      // Central revokes the node while the link is down: the node sells on until it hears.
      // (Revoking with the link up raced the node's next pull, which could hear before R-1 was sold.)
      const port = Number(new URL(hub.url).port);
      await hub.close();
      const sold = await sell('R-1');
      expect(sold.status, JSON.stringify(sold.body)).toBe(200);
      const centralEngine = await openNodeEngine({ dataDir: centralDir.path, role: 'central' });
      await revokeSyncNode(centralEngine, chain.vendorId, till.engine.nodeId);
      await centralEngine.close();
      hub = await startStoreNode({ dataDir: centralDir.path, role: 'central', port });

      const reason = (reply: { body: any }) => reply.body.error?.errors?.[0]?.reason;
      await eventually('the node hears it was revoked', async () => (till.engine.centralLink.unpaired ? true : undefined));
      const refused = await sell('R-2');
      expect([refused.status, reason(refused), refused.body.error.errors[0].message]).toEqual([409, 'store_unpaired_at_central', new ServiceError('store_unpaired_at_central').message]);
      await till.close();
      await unpairStore({ dataDir: storeDir.path });
      expect(existsSync(join(storeDir.path, 'central.json'))).toBe(false);
      const [aside] = setAside(storeDir.path, 'unpaired');
      const kept = new BetterSqlite3(join(storeDir.path, aside!), { readonly: true });
      expect(kept.prepare("select receipt_number from orders where receipt_number like 'R-%'").all()).toEqual([{ receipt_number: 'R-1' }]);
      kept.close();
    } finally {
      await till.close();
      await hub.close();
    }
  }, 120_000);

  it("refuses one program's cashier pairing a node that also holds another program, which keeps working", async () => {
    const dir = makeTempDir('punchcard-two-programs-');
    const shared = await startStoreNode({ dataDir: dir.path, port: 0 });
    try {
      const a = await setUpVendor(shared.engine, { name: 'A', currency: 'USD', country: 'US', store: { name: 'A', address1: '1 Road', city: 'Ogdenville' } });
      const b = await setUpVendor(shared.engine, { name: 'B', currency: 'USD', country: 'US', store: { name: 'B', address1: '2 Road', city: 'Ogdenville' } });
      const reply = await http(`${shared.url}/sync/pairing?api_key=${a.apiKey}`, { method: 'POST', body: { central: 'http://127.0.0.1:9', code: 'ABCD-EFGH', replace_local_data: true } });
      expect([reply.status, reply.body.code]).toEqual([409, 'pairing_other_programs']);
      expect(setAside(dir.path, 'before-pairing')).toEqual([]);
      expect((await http(`${shared.url}/app/terminal?api_key=${b.apiKey}`)).status).toBe(200);
    } finally {
      await shared.close();
      dir.remove();
    }
  });

  it('refuses to pair from the screens a node whose database is not its data folder’s file', async () => {
    const dir = makeTempDir('punchcard-elsewhere-');
    const elsewhere = await startStoreNode({ dataDir: dir.path, database: join(dir.path, 'elsewhere.db'), port: 0 });
    try {
      const own = await setUpVendor(elsewhere.engine, { name: 'Elsewhere', currency: 'USD', country: 'US', store: { name: 'E', address1: '3 Road', city: 'Ogdenville' } });
      const reply = await http(`${elsewhere.url}/sync/pairing?api_key=${own.apiKey}`, { method: 'POST', body: { central: 'http://127.0.0.1:9', code: 'ABCD-EFGH', replace_local_data: true } });
      expect([reply.status, reply.body.code]).toEqual([409, 'pairing_unavailable']);
      expect(readdirSync(dir.path).filter((name) => name.startsWith('elsewhere.db.'))).toEqual([]);
    } finally {
      await elsewhere.close();
      dir.remove();
    }
  });

  it('`punchcard unpair`, `store --pair` and a second `punchcard store` refuse a folder a store node runs on', async () => {
    // `unpair` renamed the database under a running node, which went on writing to the renamed file.
    const dir = makeTempDir('punchcard-running-');
    const running = await startStoreNode({ dataDir: dir.path, port: 0 });
    try {
      expect(readFileSync(join(dir.path, 'node.pid'), 'utf8').trim()).toBe(String(process.pid));
      // (`unpair` on this never-paired node says there is nothing to unpair: test/cli/central-folder.test.ts.)
      for (const args of [
        ['store', '--data', dir.path, '--central', 'http://127.0.0.1:9', '--pair', 'ABCD-EFGH', '--port', '0'],
        ['store', '--data', dir.path, '--port', '0'],
      ]) {
        const refused = await run(args);
        expect(refused.code, args[0]).not.toBe(0);
        expect(refused.stderr, args[0]).toContain(`(process ${process.pid}) is running on ${dir.path}`);
      }
      expect(readdirSync(dir.path).filter((name) => name.startsWith('punchcard.db.'))).toEqual([]);
      expect((await http(`${running.url}/health`)).status).toBe(200);
    } finally {
      await running.close();
    }
    // Stopped, the mark is gone; a mark left by a node killed without stopping counts for nothing.
    expect(existsSync(join(dir.path, 'node.pid'))).toBe(false);
    writeFileSync(join(dir.path, 'node.pid'), '999999999\n');
    const notPaired = await run(['unpair', '--data', dir.path]);
    expect(notPaired.stderr).toContain('not paired');
    dir.remove();
  }, 120_000);

  it('`punchcard unpair` refuses a data folder that is not paired', async () => {
    const result = await run(['unpair', '--data', dirs[2]!.path, '--json']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('not paired');
  }, 90_000);
});
