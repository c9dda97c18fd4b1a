import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { openDataDir } from '../../src/server/node/data-dir';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { writePairing } from '../../src/server/sync/pairing-file';
import { runInProcess, withoutPunchcardEnv } from '../support/cli-in-process';
import { makeTempDir } from '../support/temp-dir';
import { http, startTestNode, type TestNode } from '../support/test-node';

// What pairing tells an operator (left by "Tenth round: a chain operator's week"): `store --pair`
// on a folder still paired (a store central revoked keeps its central.json) names the command that
// unpairs it; pairing, from the CLI or a till's Settings screen (POST /sync/pairing), with an address
// that answers but is no central (another Punchcard node, a web page) says so, not "No central node
// answered", and changes nothing.

const dirs: Array<ReturnType<typeof makeTempDir>> = [];
let notCentral: TestNode;
let webPage: Server;
let webPageUrl: string;
let till: RunningNode | null = null;

beforeAll(async () => {
  notCentral = await startTestNode();
  webPage = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Router</title>'));
  await new Promise<void>((resolve) => webPage.listen(0, '127.0.0.1', resolve));
  webPageUrl = `http://127.0.0.1:${(webPage.address() as AddressInfo).port}`;
});
afterEach(() => vi.unstubAllEnvs());
afterAll(async () => {
  await till?.close();
  await notCentral?.close();
  await new Promise((resolve) => webPage?.close(resolve));
  for (const dir of dirs) dir.remove();
});

const folder = (prefix: string) => {
  const dir = makeTempDir(prefix);
  dirs.push(dir);
  return dir.path;
};

describe('punchcard store --pair', () => {
  it('on a folder still paired (as a revoked store is) names `punchcard unpair --data DIR`', async () => {
    withoutPunchcardEnv();
    const dir = folder('punchcard-revoked-');
    writePairing(openDataDir(dir), { central: 'http://127.0.0.1:9', node_id: 7, vendor_id: 1, store_id: 1, store_name: 'Harbour', credential: 'pcn_x', paired_at: new Date().toISOString() });
    const run = await runInProcess(['store', '--data', dir, '--port', '0', '--central', notCentral.url, '--pair', 'ABCD-EFGH']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('already paired with http://127.0.0.1:9');
    expect(run.stderr).toContain(`Unpair it first: \`punchcard unpair --data ${dir}\`, then pair with the new code.`);
  });

  it('quotes a folder with a space so the command can be pasted', async () => {
    withoutPunchcardEnv();
    const dir = join(folder('punchcard-revoked-'), 'my till');
    writePairing(openDataDir(dir), { central: 'http://127.0.0.1:9', node_id: 7, vendor_id: 1, store_id: 1, credential: 'pcn_x', paired_at: new Date().toISOString() });
    const run = await runInProcess(['store', '--data', dir, '--port', '0', '--central', notCentral.url, '--pair', 'ABCD-EFGH']);
    expect(run.stderr).toContain(`\`punchcard unpair --data '${dir}'\``);
  });

  it('with an address that answers but is not a central says so, and pairs nothing', async () => {
    withoutPunchcardEnv();
    for (const [address, status] of [
      [notCentral.url, 404],
      [webPageUrl, 200],
    ] as const) {
      const dir = folder('punchcard-fresh-');
      const run = await runInProcess(['store', '--data', dir, '--port', '0', '--central', address, '--pair', 'ABCD-EFGH']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${address} is not a Punchcard central node (it answered ${status} to /sync/pair): check the central address.`);
      expect(run.stderr).not.toContain('No central node answered');
      expect(existsSync(join(dir, 'central.json'))).toBe(false);
    }
  });
});

describe('pairing from the Settings screen (POST /sync/pairing)', () => {
  it('with an address that is not a central: 400 on `central`, the same words, nothing changed', async () => {
    const dir = folder('punchcard-till-');
    till = await startStoreNode({ dataDir: dir, port: 0 });
    const local = await setUpVendor(till.engine, { name: 'Corner Shop', currency: 'USD', country: 'US', store: { name: 'Corner', address1: '2 Lane', city: 'Shelbyville' } });
    const pair = await http(`${till.url}/sync/pairing?api_key=${local.apiKey}`, { method: 'POST', body: { central: notCentral.url, code: 'ABCD-EFGH', replace_local_data: true } });
    expect([pair.status, pair.body.code, pair.body.field]).toEqual([400, 'validation_failed', 'central']);
    expect(pair.body.message).toBe(`${notCentral.url} is not a Punchcard central node (it answered 404 to /sync/pair): check the central address.`);
    expect((await http(`${till.url}/sync/status`)).body).toMatchObject({ paired: false, link: 'none' });
    expect(existsSync(join(dir, 'central.json'))).toBe(false);
  });
});
