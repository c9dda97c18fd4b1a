import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// Two vendors on one node: every request acts for exactly one vendor and nothing crosses over.

let node: TestNode;
let a: VendorCredentials;
let b: VendorCredentials;

beforeAll(async () => {
  node = await startTestNode();
  a = await node.addVendor('Vendor A');
  b = await node.addVendor('Vendor B');
});

afterAll(async () => {
  await node?.close();
});

async function post(token: string, path: string, body: Record<string, unknown>) {
  const reply = await http(`${node.url}${path}`, { method: 'POST', token, body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

async function listIds(token: string, path: string): Promise<string[]> {
  const ids: string[] = [];
  let url: string | null = `${node.url}${path}?limit=100`;
  while (url) {
    const reply: HttpReply = await http(url, { token });
    expect(reply.status).toBe(200);
    ids.push(...reply.body.items.map((item: { id: string }) => item.id));
    url = reply.body.next;
  }
  return ids;
}

async function oauthToken(creds: VendorCredentials): Promise<string> {
  const reply = await http(`${node.url}/oauth/access_token`, {
    method: 'POST',
    body: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret },
  });
  expect(reply.status).toBe(200);
  return reply.body.access_token;
}

describe('vendor isolation', () => {
  it('allows the same currency name and card number in both vendors', async () => {
    const currencyA = await post(a.accessToken, '/currencies', { name: 'Stars', code: 'EUR' });
    const currencyB = await post(b.accessToken, '/currencies', { name: 'Stars', code: 'GBP' });
    expect(currencyA.id).not.toBe(currencyB.id);
    const cardA = await post(a.accessToken, '/cards', { number: 'SAME0001', pin: '1111' });
    const cardB = await post(b.accessToken, '/cards', { number: 'SAME0001', pin: '2222' });
    expect(cardA.id).not.toBe(cardB.id);
    // Within one vendor the same name and number still clash.
    const dupe = await http(`${node.url}/currencies`, { method: 'POST', token: a.accessToken, body: { name: 'stars' } });
    expect(dupe.status).toBe(409);
    expect(dupe.body.code).toBe('currency_name_taken');
    const dupeCard = await http(`${node.url}/cards`, { method: 'POST', token: b.accessToken, body: { number: 'same0001' } });
    expect(dupeCard.status).toBe(409);
    expect(dupeCard.body.code).toBe('card_number_taken');

    const byNumberA = await http(`${node.url}/cards?query=n:SAME0001`, { token: a.accessToken });
    expect(byNumberA.body.items.map((c: { id: string; pin: string }) => [c.id, c.pin])).toEqual([[cardA.id, '1111']]);
    const byNumberB = await http(`${node.url}/cards?query=n:SAME0001`, { token: b.accessToken });
    expect(byNumberB.body.items.map((c: { id: string; pin: string }) => [c.id, c.pin])).toEqual([[cardB.id, '2222']]);
    const byNameB = await http(`${node.url}/currencies?query=n:Stars`, { token: b.accessToken });
    expect(byNameB.body.items.map((c: { id: string; code: string }) => [c.id, c.code])).toEqual([[currencyB.id, 'GBP']]);
  });

  it("never lists the other vendor's currencies or cards", async () => {
    const bCurrency = await post(b.accessToken, '/currencies', { name: 'B Only Coins' });
    const bCard = await post(b.accessToken, '/cards', { number: 'BONLY1' });
    const aCard = await post(a.accessToken, '/cards', { number: 'AONLY1' });

    for (const token of [a.accessToken, await oauthToken(a)]) {
      const currencies = await listIds(token, '/currencies');
      const cards = await listIds(token, '/cards');
      expect(currencies).not.toContain(bCurrency.id);
      expect(cards).not.toContain(bCard.id);
      expect(cards).toContain(aCard.id);
      const search = await http(`${node.url}/cards?query=n:BONLY`, { token });
      expect(search.body.items).toEqual([]);
      const searchCurrency = await http(`${node.url}/currencies?query=${encodeURIComponent('n:"B Only"')}`, { token });
      expect(searchCurrency.status).toBe(200);
      expect(searchCurrency.body.items).toEqual([]);
    }

    const aCurrencies = new Set(await listIds(a.accessToken, '/currencies'));
    const bCurrencies = new Set(await listIds(b.accessToken, '/currencies'));
    const aCards = new Set(await listIds(a.accessToken, '/cards'));
    const bCards = new Set(await listIds(b.accessToken, '/cards'));
    expect([...aCurrencies].filter((id) => bCurrencies.has(id))).toEqual([]);
    expect([...aCards].filter((id) => bCards.has(id))).toEqual([]);
    expect(bCards.has(bCard.id)).toBe(true);
    expect(bCurrencies.has(bCurrency.id)).toBe(true);
    const bSearch = await http(`${node.url}/currencies?query=${encodeURIComponent('n:"B Only"')}`, { token: b.accessToken });
    expect(bSearch.body.items.map((c: { id: string }) => c.id)).toEqual([bCurrency.id]);
    expect(aCards.has(bCard.id)).toBe(false);
  });

  it("answers 404 for the other vendor's ids on GET, PUT and DELETE and leaves them unchanged", async () => {
    const bCurrency = await post(b.accessToken, '/currencies', { name: 'Guarded Coins', code: 'CAD' });
    const bCard = await post(b.accessToken, '/cards', { number: 'GUARD1', pin: '4444', data: { owner: 'b' } });
    const bCurrencyBefore = (await http(`${node.url}/currencies/${bCurrency.id}`, { token: b.accessToken })).body;
    const bCardBefore = (await http(`${node.url}/cards/${bCard.id}`, { token: b.accessToken })).body;
    node.clock.advance(5_000);

    for (const token of [a.accessToken, await oauthToken(a)]) {
      const attempts: Array<[string, string, unknown, string]> = [
        ['GET', `/currencies/${bCurrency.id}`, undefined, 'currency_not_found'],
        ['GET', `/currencies/${bCurrency.id}.json`, undefined, 'currency_not_found'],
        ['PUT', `/currencies/${bCurrency.id}`, { name: 'Hijacked', status: 'ARCHIVED' }, 'currency_not_found'],
        ['DELETE', `/currencies/${bCurrency.id}`, undefined, 'currency_not_found'],
        ['GET', `/cards/${bCard.id}`, undefined, 'card_not_found'],
        ['PUT', `/cards/${bCard.id}`, { data: { owner: 'a' }, status: 'INACTIVE' }, 'card_not_found'],
        ['DELETE', `/cards/${bCard.id}`, undefined, 'card_not_found'],
      ];
      for (const [method, path, body, code] of attempts) {
        const reply = await http(`${node.url}${path}`, { method, token, body });
        expect(reply.status, `${method} ${path}`).toBe(404);
        expect(reply.body, `${method} ${path}`).toEqual({ internal_code: null, message: expect.any(String), code });
        // The reply is the same as for an id that never existed: nothing tells that the id is taken.
        const ghost = await http(`${node.url}${path.replace(/(curr|card)_[^/.]+/, '$1_doesnotexist')}`, { method, token, body });
        expect(ghost.status).toBe(404);
        expect(ghost.body).toEqual(reply.body);
      }
    }

    const bCurrencyAfter = await http(`${node.url}/currencies/${bCurrency.id}`, { token: b.accessToken });
    expect(bCurrencyAfter.status).toBe(200);
    expect(bCurrencyAfter.body).toEqual(bCurrencyBefore);
    const bCardAfter = await http(`${node.url}/cards/${bCard.id}`, { token: b.accessToken });
    expect(bCardAfter.status).toBe(200);
    expect(bCardAfter.body).toEqual(bCardBefore);
    expect(bCardAfter.body).toMatchObject({ pin: '4444', data: { owner: 'b' }, status: 'ACTIVE' });

    // B itself can still change and delete them.
    const put = await http(`${node.url}/cards/${bCard.id}`, { method: 'PUT', token: b.accessToken, body: { status: 'INACTIVE' } });
    expect(put.status).toBe(200);
    const del = await http(`${node.url}/currencies/${bCurrency.id}`, { method: 'DELETE', token: b.accessToken });
    expect(del.status).toBe(200);
  });

  it('resolves each token to exactly one vendor', async () => {
    const tokensA = [a.accessToken, await oauthToken(a)];
    const tokensB = [b.accessToken, await oauthToken(b)];
    const made = await post(tokensA[1]!, '/currencies', { name: 'Made With Oauth A' });
    const seenA = await Promise.all(tokensA.map((t) => listIds(t, '/currencies')));
    const seenB = await Promise.all(tokensB.map((t) => listIds(t, '/currencies')));
    // All tokens of one vendor see the same set; the sets of A and B are disjoint.
    expect(seenA[0]!.slice().sort()).toEqual(seenA[1]!.slice().sort());
    expect(seenB[0]!.slice().sort()).toEqual(seenB[1]!.slice().sort());
    expect(seenA[0]).toContain(made.id);
    expect(seenB[0]).not.toContain(made.id);
    expect(seenA[0]!.filter((id) => seenB[0]!.includes(id))).toEqual([]);

    // One vendor's client id with the other's secret is no credential at all.
    const mixed = await http(`${node.url}/oauth/access_token`, {
      method: 'POST',
      body: { grant_type: 'client_credentials', client_id: a.clientId, client_secret: b.clientSecret },
    });
    expect(mixed.status).toBe(401);
    expect(mixed.body.code).toBe('invalid_client');
  });

  it('keeps a deleted name free only in its own vendor', async () => {
    const aCur = await post(a.accessToken, '/currencies', { name: 'Shared Later' });
    await post(b.accessToken, '/currencies', { name: 'Shared Later' });
    const del = await http(`${node.url}/currencies/${aCur.id}`, { method: 'DELETE', token: a.accessToken });
    expect(del.status).toBe(200);
    // A's delete does not touch B's currency of the same name.
    const bSearch = await http(`${node.url}/currencies?query=n:Shared`, { token: b.accessToken });
    expect(bSearch.body.items.map((c: { name: string }) => c.name)).toEqual(['Shared Later']);
    // B still cannot create a second one; A can create it again.
    expect((await http(`${node.url}/currencies`, { method: 'POST', token: b.accessToken, body: { name: 'Shared Later' } })).status).toBe(409);
    expect((await http(`${node.url}/currencies`, { method: 'POST', token: a.accessToken, body: { name: 'Shared Later' } })).status).toBe(201);
  });
});
