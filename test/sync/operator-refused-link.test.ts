import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { issuePairingCode, revokeSyncNode } from '../../src/core/sync/central/pairing';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { run } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';
import { eventually } from '../support/eventually';

// What an operator is told when central will not take a store's sync, and waiting will not mend it:
// central revoked the node, the store's central.json names an address that is no central, or two
// copies of one node sell into the chain. Real nodes over HTTP (central on SQLite), their logs read.

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = makeTempDir(prefix);
  cleanups.push(() => dir.remove());
  return dir.path;
}

/** A pino logger whose lines land in `lines`, parsed. */
function capturedLogger(): { logger: pino.Logger; lines: Array<{ level: number; msg: string } & Record<string, unknown>> } {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function started(options: Parameters<typeof startStoreNode>[0]): Promise<RunningNode> {
  const node = await startStoreNode(options);
  cleanups.push(() => node.close().catch(() => undefined));
  return node;
}

/** A central (SQLite) with a program, and a store folder paired with it (not started). */
async function chainWithPairedFolder(logger?: pino.Logger) {
  const hub = await started({ dataDir: tempDir('punchcard-op-central-'), role: 'central', port: 0, ...(logger ? { logger } : {}) });
  const chain = await setUpVendor(hub.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
  const storeDir = tempDir('punchcard-op-store-');
  const { code } = await issuePairingCode(hub.engine, chain.vendorId, chain.storeId);
  const pairing = await pairStoreWithCentral({ dataDir: storeDir, central: hub.url, code });
  return { hub, chain, storeDir, pairing };
}

const statusOf = async (node: RunningNode) => (await http(`${node.url}/sync/status`)).body;
const firstSynced = (node: RunningNode) => eventually('the first sync', async () => ((await statusOf(node)).first_sync?.done ? true : undefined));

describe('a store central will not take', () => {
  it('revoked at central: /health is degraded at once, and the log does not say it sells offline', async () => {
    const { hub, chain, storeDir, pairing } = await chainWithPairedFolder();
    const { logger, lines } = capturedLogger();
    const till = await started({ dataDir: storeDir, port: 0, logger });
    await firstSynced(till);
    expect((await http(`${till.url}/health`)).body.checks.sync).toMatchObject({ status: 'ok', problem: null });

    await revokeSyncNode(hub.engine, chain.vendorId, pairing.node_id);
    till.sync!.client.poke();
    const health = await eventually('the store hears it was revoked', async () => {
      const reply = await http(`${till.url}/health`);
      return reply.body.checks.sync.link === 'down' ? reply : undefined;
    });
    // Not 15 minutes later: the store refuses every sale now.
    expect([health.status, health.body.status]).toEqual([200, 'degraded']);
    expect(health.body.checks.sync).toMatchObject({ status: 'degraded', problem: 'unpaired_at_central' });
    const sale = await http(`${till.url}/onscreen/register?api_key=${chain.apiKey}`, { method: 'POST', body: { email: 'walk.in@example.com' } });
    expect([sale.status, sale.body.error?.errors?.[0]?.reason]).toEqual([409, 'store_unpaired_at_central']);
    const told = await eventually('the log line', async () => lines.find((line) => line.level === 50));
    expect(told.msg).toContain('takes no check-ins or sales');
    expect(told.msg).toContain('punchcard unpair');
    expect(lines.some((line) => line.msg.includes('sells offline'))).toBe(false);

    // Stopped, its folder still says so (not merely "no store node is running"), with the way out.
    await till.close();
    const folder = await run(['sync', 'status', '--data', storeDir, '--json'], {}, 120_000);
    expect(folder.code, folder.stderr).toBe(0);
    expect(JSON.parse(folder.stdout)).toMatchObject({
      paired: true,
      unpaired_at_central: expect.stringMatching(/^\d{4}-/),
      link: 'down',
      last_error: expect.stringContaining(`it takes no check-ins or sales; stop it, run \`punchcard unpair --data ${storeDir}\`, then pair it with a new code`),
    });
    const unpaired = await run(['unpair', '--data', storeDir], {}, 120_000);
    expect(unpaired.code, unpaired.stderr).toBe(0);
  }, 90_000);

  it('whose central.json names an address that is no central: said so, and /health is degraded at once', async () => {
    const { chain, storeDir } = await chainWithPairedFolder();
    const synced = await started({ dataDir: storeDir, port: 0 });
    await firstSynced(synced);
    await synced.close();
    // Another Punchcard node answers there (a store's till, not central): its 404 is no refusal of the store's data.
    const other = await started({ dataDir: tempDir('punchcard-op-other-'), port: 0 });
    const file = join(storeDir, 'central.json');
    writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), central: other.url }));
    const { logger, lines } = capturedLogger();
    const till = await started({ dataDir: storeDir, port: 0, logger });

    const status = await eventually('the store gives up on the address', async () => {
      const s = await statusOf(till);
      return s.last_error ? s : undefined;
    });
    expect(status.link).toBe('down');
    expect(status.last_error).toBe(`${other.url} is not a Punchcard central node (it answered 404 to /sync/pull): check the central address this store was paired with (central.json in its data folder)`);
    const health = await http(`${till.url}/health`);
    expect([health.status, health.body.status, health.body.checks.sync.problem]).toEqual([200, 'degraded', 'central_refused']);
    // The log calls it what /health calls it.
    await eventually('the log line', async () => (lines.some((line) => line.msg.startsWith("central refused this store's sync")) ? true : undefined));
    expect(lines.find((line) => line.msg.startsWith("central refused this store's sync"))).toMatchObject({ level: 50, last_error: status.last_error });
    // The store still sells (offline, within the caps): nothing about it was refused.
    const sale = await http(`${till.url}/onscreen/register?api_key=${chain.apiKey}`, { method: 'POST', body: { email: 'walk.in@example.com' } });
    expect([200, 201]).toContain(sale.status);
  }, 60_000);

  it('whose central fails with its own error (500): an error in the log, but no refusal, in the log as in /health', async () => {
    const { storeDir } = await chainWithPairedFolder();
    // Central's bug, not a refusal of this store: every sync call answers 500 in central's own shape.
    const failing = createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'internal_error', message: 'Something went wrong on our side.' }));
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => failing.close(resolve)));
    const file = join(storeDir, 'central.json');
    writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), central: `http://127.0.0.1:${(failing.address() as AddressInfo).port}` }));
    const { logger, lines } = capturedLogger();
    const till = await started({ dataDir: storeDir, port: 0, logger });

    const told = await eventually('the log line', async () => lines.find((line) => line.msg.startsWith("this store's sync with central fails")));
    expect(told).toMatchObject({ level: 50, last_error: 'Something went wrong on our side.' });
    expect(lines.some((line) => line.msg.startsWith("central refused this store's sync"))).toBe(false);
    const health = await http(`${till.url}/health`);
    expect(health.body.checks.sync).toMatchObject({ link: 'down' });
    expect(health.body.checks.sync.problem).not.toBe('central_refused');
  }, 60_000);

  it('two copies of one node selling: both central and the copy that follows say so in their logs', async () => {
    const central = capturedLogger();
    const { hub, chain, storeDir } = await chainWithPairedFolder(central.logger);
    // The first machine sells and sends; a copy of its folder is taken; it sells and sends again.
    const first = await started({ dataDir: storeDir, port: 0 });
    await firstSynced(first);
    const sell = async (node: RunningNode, email: string) => {
      await registerInStore(node.engine, await authenticateApiKey(node.engine, chain.apiKey), { email });
      await eventually('the sale sent', async () => ((await statusOf(node)).pending === 0 ? true : undefined));
    };
    await sell(first, 'one@example.com');
    await first.close();
    const copyDir = tempDir('punchcard-op-copy-');
    cpSync(storeDir, copyDir, { recursive: true });
    const again = await started({ dataDir: storeDir, port: 0 });
    await sell(again, 'two@example.com');

    // The copy (a restored folder, or the old machine started by mistake) sells: central took other events at its numbers.
    const copy = capturedLogger();
    const second = await started({ dataDir: copyDir, port: 0, logger: copy.logger });
    await sell(second, 'three@example.com');
    const followed = copy.lines.find((line) => line.msg.startsWith('central holds other sales of this node'));
    expect(followed).toMatchObject({ level: 40, msg: expect.stringContaining('another machine runs as this node (stop one)') });
    const warned = central.lines.find((line) => String(line.msg).includes('sent other events than central took'));
    expect(warned).toMatchObject({ level: 40, msg: expect.stringContaining('two machines run as this node (stop one)') });
    // Nothing was lost: central has the three customers.
    const emails = (await hub.engine.db.selectFrom('users').select('email').execute()).map((u) => u.email).sort();
    expect(emails).toEqual(expect.arrayContaining(['one@example.com', 'three@example.com', 'two@example.com']));
  }, 90_000);
});
