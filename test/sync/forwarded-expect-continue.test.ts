import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { freshEmail } from '../support/customers';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// A call a paired store forwards to central (accounts are central's), sent with `Expect:
// 100-continue` as many HTTP clients do for a body: the store answered 100 Continue, read the body,
// then passed the header on to fetch, which refuses it — a 503 `central_unreachable` with central
// up. The header belongs to the client's hop and is not forwarded.

const dirs = [makeTempDir('punchcard-expect-central-'), makeTempDir('punchcard-expect-store-')];
let central: RunningNode | null = null;
let store: RunningNode | null = null;

afterAll(async () => {
  await store?.close();
  await central?.close();
  for (const dir of dirs) dir.remove();
});

/** A POST with a JSON body sent only once the server says 100 Continue (as curl and .NET do). */
function postExpectingContinue(url: string, body: unknown): Promise<{ status: number; continued: boolean; body: any }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), expect: '100-continue' } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (data += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, continued, body: data ? JSON.parse(data) : null }));
    });
    req.on('continue', () => {
      continued = true;
      req.end(text);
    });
    req.on('error', reject);
  });
}

describe('a forwarded call with Expect: 100-continue', () => {
  it('reaches central and answers as central does', async () => {
    central = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0 });
    const chain = await setUpVendor(central.engine, { name: 'Expect Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);
    await pairStoreWithCentral({ dataDir: dirs[1]!.path, central: central.url, code });
    store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0 });

    const email = freshEmail('expect');
    const registered = await postExpectingContinue(`${store.url}/user/register`, { first_name: 'Noor', last_name: 'Haddad', email_address: email, password: 'a good long password', terms: true, vendor: chain.vendorId });
    expect(registered.continued).toBe(true);
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    // Registered at central, where accounts live.
    const atCentral = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', email.toLowerCase()).execute();
    expect(atCentral).toHaveLength(1);
    // And the same call without the header still works (signing in).
    const signedIn = await http(`${store.url}/user/authenticate`, { method: 'POST', body: { email_address: email, password: 'a good long password', vendor: chain.vendorId } });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
  }, 60_000);
});
