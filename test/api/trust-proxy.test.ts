import { afterEach, describe, expect, it } from 'vitest';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode, type StoreNodeOptions } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { FORM, freshEmail } from '../support/customers';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// Per-client rate limits behind a reverse proxy (--trust-proxy): every client of a proxy has the
// proxy's address, so without the option they all share one count; with it the node counts by the
// address in X-Forwarded-For — only when a trusted proxy sent it. Off by default: a client writing
// X-Forwarded-For itself gets nothing from it. Real nodes (startStoreNode, as `punchcard store`
// and `central` run them) over real HTTP; every client here is 127.0.0.1.

const open: RunningNode[] = [];
const dirs: Array<{ remove(): void }> = [];
afterEach(async () => {
  for (const node of open.splice(0).reverse()) await node.close();
  for (const dir of dirs.splice(0)) dir.remove();
});

async function start(options: Omit<StoreNodeOptions, 'dataDir'> = {}): Promise<RunningNode> {
  const dir = makeTempDir('punchcard-proxy-');
  dirs.push(dir);
  const node = await startStoreNode({ dataDir: dir.path, port: 0, ...options });
  open.push(node);
  return node;
}

/** A wrong back-office sign-in (401 until the client's 20th in 15 minutes: staffSignIn), a fresh email each time. */
const signIn = async (node: RunningNode, forwardedFor?: string) => {
  const reply = await http(`${node.url}/backoffice/sign-in`, { method: 'POST', body: { email: freshEmail('staff'), password: 'Summer2026!' }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
  return reply.status;
};

async function useUp(node: RunningNode, forwardedFor: (i: number) => string | undefined): Promise<void> {
  for (let i = 0; i < 20; i++) expect(await signIn(node, forwardedFor(i))).toBe(401);
}

describe('--trust-proxy', () => {
  it('off (the default), X-Forwarded-For is ignored; naming the proxy, each address in it has its own count', async () => {
    // Off: whatever X-Forwarded-For says, every request counts for the peer.
    const plain = await start();
    await useUp(plain, (i) => `203.0.113.${i + 1}`);
    expect(await signIn(plain, '198.51.100.7')).toBe(429);
    expect(await signIn(plain)).toBe(429);

    // A proxy not named (the node trusts 10.0.0.5 and fd00::/8): its X-Forwarded-For is ignored too.
    const other = await start({ trustProxy: { addresses: ['10.0.0.5', 'fd00::/8'] } });
    await useUp(other, (i) => `203.0.113.${i + 1}`);
    expect(await signIn(other, '198.51.100.7')).toBe(429);

    // --trust-proxy 127.0.0.1: two clients of the proxy, two counts.
    const node = await start({ trustProxy: { addresses: ['127.0.0.1'] } });
    await useUp(node, () => '203.0.113.1');
    expect(await signIn(node, '203.0.113.1')).toBe(429);
    // The client wrote an entry of its own: the proxy appended the address it saw, which is what counts.
    expect(await signIn(node, '198.51.100.99, 203.0.113.1')).toBe(429);
    expect(await signIn(node, '203.0.113.2')).toBe(401);
    // The proxy itself (no header) is one more client.
    expect(await signIn(node)).toBe(401);
  });

  it('a hop count: the address one proxy in front appended counts, whatever the client wrote before it', async () => {
    const node = await start({ trustProxy: { hops: 1 } });
    await useUp(node, (i) => `10.9.9.${i}, 203.0.113.5`);
    expect(await signIn(node, '203.0.113.5')).toBe(429);
    expect(await signIn(node, '10.9.9.1, 203.0.113.6')).toBe(401);
  });

  it('at central: pairing-code guesses count per client (10 a minute)', async () => {
    const central = await start({ role: 'central', trustProxy: { addresses: ['loopback'] } });
    const pair = async (forwardedFor: string) => (await http(`${central.url}/sync/pair`, { method: 'POST', body: { code: 'ABCD-EFGH' }, headers: { 'x-forwarded-for': forwardedFor } })).body.code;
    for (let i = 0; i < 10; i++) expect(await pair('203.0.113.1')).toBe('pairing_code_invalid');
    expect(await pair('203.0.113.1')).toBe('rate_limited');
    expect(await pair('203.0.113.2')).toBe('pairing_code_invalid');
  });

  it('a call a paired store forwards to central counts for the client the store saw, when central trusts the store', async () => {
    const central = await start({ role: 'central', trustProxy: { addresses: ['127.0.0.1'] } });
    const chain = await setUpVendor(central.engine, { name: 'Chain', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);
    const storeDir = makeTempDir('punchcard-proxy-store-');
    dirs.push(storeDir);
    await pairStoreWithCentral({ dataDir: storeDir.path, central: central.url, code });
    // The store is behind a proxy of its own; a client's X-Forwarded-For to it is forged.
    const store = await startStoreNode({ dataDir: storeDir.path, port: 0, trustProxy: { addresses: ['127.0.0.1'] } });
    open.push(store);
    // POST /join is central's (20 sign-ups per client in 10 minutes); an unknown code still counts.
    const join = async (forwardedFor: string, extra: Record<string, string> = {}) => {
      const response = await fetch(`${store.url}/join?lang=en`, {
        method: 'POST',
        headers: { ...FORM, 'x-forwarded-for': forwardedFor, ...extra },
        body: new URLSearchParams({ code: 'nope', first_name: 'Noor', last_name: 'Haddad', email_address: freshEmail('friend'), password: 'a good long password', terms: 'true' }).toString(),
      });
      await response.text();
      return response.status;
    };
    for (let i = 0; i < 20; i++) expect(await join('203.0.113.1')).toBe(404);
    expect(await join('203.0.113.1')).toBe(429);
    expect(await join('203.0.113.2')).toBe(404);
    // Counted at central, under the client's address (keys are stored as digests).
    const hitsAt = async (node: RunningNode, client: string) =>
      (await node.engine.db.selectFrom('rate_limit_windows').select('hits').where('key_hash', '=', node.engine.sealer.digest(`join:ip:${client}`)).executeTakeFirst())?.hits;
    expect(await hitsAt(central, '203.0.113.1')).toBe(21);
    expect(await hitsAt(central, '203.0.113.2')).toBe(1);
    expect(await hitsAt(store, '203.0.113.1')).toBeUndefined();
  }, 60_000);
});
