import { afterAll, describe, expect, it } from 'vitest';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { FORM, freshEmail } from '../support/customers';
import { createServerDatabase } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';
import { eventually } from '../support/eventually';

// The referral page (POST /join) on a store node paired with a central node. Joining registers a
// customer account, and accounts are central's (docs/sync.md, "What runs where"): registered
// locally, the account reached central through the store's outbox without its password (password
// hashes never leave a node), so the friend who just joined could not sign in anywhere.

const dirs = [makeTempDir('punchcard-join-central-'), makeTempDir('punchcard-join-store-')];
let central: RunningNode | null = null;
let store: RunningNode | null = null;
let dropDatabase: (() => Promise<void>) | null = null;

afterAll(async () => {
  await store?.close();
  await central?.close();
  await dropDatabase?.();
  for (const dir of dirs) dir.remove();
});

describe('POST /join on a paired store', () => {
  it('registers the friend once, at central, who can sign in; the referrer is credited once, everywhere', async () => {
    let database: string | undefined;
    if (process.env.PG_URL) {
      const scratch = await createServerDatabase(process.env.PG_URL, 'punchcard_join');
      dropDatabase = scratch.drop;
      database = scratch.url;
    }
    central = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0, database });
    const chain = await setUpVendor(central.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    const bearer = { authorization: `Bearer ${chain.accessToken}` };
    expect((await http(`${central.url}/program/settings`, { method: 'PUT', headers: bearer, body: { referral_points: 50 } })).body.referral_points).toBe(50);
    const referrerEmail = freshEmail('referrer');
    const member = await http(`${central.url}/user/register`, { method: 'POST', body: { first_name: 'Rosa', last_name: 'Ruiz', email_address: referrerEmail, password: 'correct horse 1', terms: true, vendor: chain.vendorId } });
    expect(member.status, JSON.stringify(member.body)).toBe(200);
    const referrer = await central.engine.db.selectFrom('users as u').innerJoin('user_vendors as uv', 'uv.user_id', 'u.id').select(['u.id', 'uv.referral_code']).where('u.email', '=', referrerEmail).executeTakeFirstOrThrow();

    const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);
    await pairStoreWithCentral({ dataDir: dirs[1]!.path, central: central.url, code });
    store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0 });
    const storeUrl = store.url;
    await eventually('the first sync', async () => ((await http(`${storeUrl}/sync/status`)).body.first_sync.done ? true : undefined));

    // The page is served by the store (the referrer's membership has come down from central).
    const page = await fetch(`${storeUrl}/join?code=${referrer.referral_code}&lang=en`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Rosa invited you');

    const email = freshEmail('friend');
    const joined = await fetch(`${storeUrl}/join?lang=en`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ code: referrer.referral_code!, first_name: 'Noor', last_name: 'Haddad', email_address: email, password: 'a good long password', terms: 'true' }).toString(),
    });
    const joinedPage = await joined.text();
    expect(joined.status, joinedPage).toBe(201);
    expect(joinedPage).toContain('Welcome, Noor!');

    // One account at central (whichever way it got there), and the same one at the store once it has pulled.
    const atCentral = await eventually('the friend at central', async () => {
      const rows = await central!.engine.db.selectFrom('users').select(['id', 'status']).where('email_key', '=', email.toLowerCase()).execute();
      return rows.length > 0 ? rows : undefined;
    });
    expect(atCentral).toEqual([{ id: atCentral[0]!.id, status: 'active' }]);
    const friendId = atCentral[0]!.id;
    await eventually('the friend at the store', async () => {
      const rows = await store!.engine.db.selectFrom('users').select('id').where('email_key', '=', email.toLowerCase()).execute();
      return rows.length === 1 && rows[0]!.id === friendId ? true : undefined;
    });

    // The friend signs in (the app, or this store: sign-in is central's) with the password chosen on the page.
    const signIn = await http(`${storeUrl}/user/authenticate`, { method: 'POST', body: { email_address: email, password: 'a good long password', vendor: chain.vendorId } });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
    expect((await http(`${central.url}/user/authenticate`, { method: 'POST', body: { email_address: email, password: 'a good long password', vendor: chain.vendorId } })).status).toBe(200);

    // The referrer is credited once, at central and at the store.
    const referralEntries = (db: RunningNode['engine']['db']) => db.selectFrom('ledger_entries').select(['amount']).where('kind', '=', 'referral').where('reference_id', '=', String(friendId)).execute();
    expect(await referralEntries(central.engine.db)).toEqual([{ amount: 50 }]);
    await eventually('the credit at the store', async () => ((await referralEntries(store!.engine.db)).length === 1 ? true : undefined));
    expect(await referralEntries(store.engine.db)).toEqual([{ amount: 50 }]);
    const status = await eventually('the outbox empty', async () => {
      const s = (await http(`${storeUrl}/sync/status`)).body;
      return s.pending === 0 ? s : undefined;
    });
    expect(status.rejected).toBe(0);

    // Central away: the sign-up is refused (503 central_unreachable) with a page in the friend's
    // language, as the page's other refusals (the browser posted a form: no JSON), and nothing is
    // registered here.
    await central.close();
    central = null;
    const later = freshEmail('friend');
    const submit = (query: string, headers: Record<string, string> = {}) =>
      fetch(`${storeUrl}/join${query}`, {
        method: 'POST',
        headers: { ...FORM, ...headers },
        body: new URLSearchParams({ code: referrer.referral_code!, first_name: 'Lea', last_name: 'Haddad', email_address: later, password: 'a good long password', terms: 'true' }).toString(),
      });
    const refused = await submit('?lang=en');
    const refusedPage = await refused.text();
    expect([refused.status, refused.headers.get('content-type')], refusedPage).toEqual([503, 'text/html; charset=utf-8']);
    expect(refusedPage).toContain('<html lang="en">');
    expect(refusedPage).toContain('<h1>We could not sign you up</h1>');
    expect(refusedPage).toContain('<p class="error" role="alert" data-code="central_unreachable">We cannot reach the program right now, so we could not sign you up.');
    const enSpanol = await submit('', { 'accept-language': 'es-EC,es;q=0.9' });
    const enSpanolPage = await enSpanol.text();
    expect(enSpanol.status, enSpanolPage).toBe(503);
    expect(enSpanolPage).toContain('<html lang="es">');
    expect(enSpanolPage).toContain('<h1>No pudimos darle de alta</h1>');
    expect(enSpanolPage).toContain('data-code="central_unreachable">Ahora mismo no podemos comunicarnos con el programa');
    expect(await store.engine.db.selectFrom('users').select('id').where('email_key', '=', later.toLowerCase()).execute()).toEqual([]);
    // The node's other forwarded calls keep their JSON refusal.
    const register = await http(`${storeUrl}/user/register`, { method: 'POST', body: { first_name: 'Lea', last_name: 'Haddad', email_address: later, password: 'a good long password', terms: true, vendor: chain.vendorId } });
    expect([register.status, register.body.error.errors[0].reason]).toEqual([503, 'central_unreachable']);
  }, 120_000);
});
