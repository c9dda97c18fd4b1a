import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoteTiers } from '../../src/core/rules/tiers/demote-tiers';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS } from '../support/customers';
import { inStoreApi, receiptCounter } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// A program's tiers count one loyalty currency (program settings' `tier_currency`, by default the
// program's first), not every loyalty currency added up: with "Points" (1 a dollar) and "Stamps" (10
// a dollar) a sale of 10.00 earned 110 "points" toward Gold (50). Real HTTP on a real SQLite file.

const DAY = 24 * 3600_000;
let node: TestNode;
const store = inStoreApi(() => node);
const receipt = receiptCounter('TC');
let emails = 0;

interface Cafe {
  vendor: VendorCredentials;
  points: string;
  stamps: string;
  quickPay: string;
}

/** A program with Points (its own, 1 a dollar), Stamps (10 a dollar) and Gold at 50 earned in `windowDays`. */
async function cafe(name: string, windowDays: number | null): Promise<Cafe> {
  const vendor = await node.addVendor(name);
  const bearer = { token: vendor.accessToken };
  const made = await http(`${node.url}/currencies`, { method: 'POST', ...bearer, body: { name: 'Stamps' } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const rule = await http(`${node.url}/earning-rules`, { method: 'POST', ...bearer, body: { name: '10 stamps a dollar', currency: made.body.id, points: 10, per_amount: 1 } });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  const gold = await http(`${node.url}/tiers`, { method: 'POST', ...bearer, body: { name: 'Gold', threshold: 50, window_days: windowDays } });
  expect(gold.status, JSON.stringify(gold.body)).toBe(201);
  const listed = (await http(`${node.url}/currencies`, bearer)).body.items as Array<{ id: string; name: string; code: string | null }>;
  return { vendor, points: listed.find((c) => c.name === 'Points')!.id, stamps: made.body.id, quickPay: listed.find((c) => c.code !== null)!.id };
}

/** A new customer registered at the counter of `c`: their email. */
async function newCustomer(c: Cafe): Promise<string> {
  const email = `tiers.${++emails}@example.com`;
  const reply = await http(`${node.url}/onscreen/register?api_key=${c.vendor.apiKey}`, { method: 'POST', body: { email, first_name: 'Tia' } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  await store.closeOk(c.vendor.apiKey, reply.body.pos_session.hash);
  return email;
}
const buy = async (c: Cafe, email: string, subtotal: number) => (await store.orderOk(c.vendor.apiKey, { card_number: email, receipt_number: receipt(), subtotal })).tier.current.name as string;
async function tierOnPanel(c: Cafe, email: string): Promise<string> {
  const session = await store.checkInSessionOk(c.vendor.apiKey, email);
  const panel = await store.retrieveOk(c.vendor.apiKey, session.hash);
  await store.closeOk(c.vendor.apiKey, session.hash);
  return panel.user.tier.name;
}
/** What the counter's panel says tiers count (rules.tier.currency), and the name of the loyalty balance of that id. */
async function tierCurrencyOnPanel(c: Cafe, email: string): Promise<{ counted: string; balance: string }> {
  const session = await store.checkInSessionOk(c.vendor.apiKey, email);
  const panel = await store.retrieveOk(c.vendor.apiKey, session.hash);
  await store.closeOk(c.vendor.apiKey, session.hash);
  const { currency } = panel.rules.tier;
  expect(currency.code).toBeNull();
  return { counted: currency.name, balance: panel.loyalty_balance.data.find((b: { currency: { id: number } }) => b.currency.id === currency.id).currency.name };
}
const settings = async (c: Cafe) => (await http(`${node.url}/program/settings`, { token: c.vendor.accessToken })).body;
const setTierCurrency = (c: Cafe, currency: unknown) => http(`${node.url}/program/settings`, { method: 'PUT', token: c.vendor.accessToken, body: { tier_currency: currency } });
function expectRefusal(reply: HttpReply, status: number, code: string, field?: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body.code).toBe(code);
  if (field) expect(reply.body.field).toBe(field);
  expect(reply.body.message.length).toBeGreaterThan(0);
}

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});
afterAll(() => node?.close());

describe('tiers count the program’s tier currency', () => {
  let c: Cafe;
  beforeAll(async () => {
    c = await cafe('Café de Sellos', null);
  });

  it('by default the program’s own first loyalty currency: stamps alone no longer promote, points do', async () => {
    expect((await settings(c)).tier_currency).toBe(c.points);
    const email = await newCustomer(c);
    // 10 points, 100 stamps: Gold (50) counted both added up.
    expect(await buy(c, email, 10)).toBe('Member');
    expect(await tierOnPanel(c, email)).toBe('Member');
    // 55 points.
    expect(await buy(c, email, 45)).toBe('Gold');
    expect(await tierOnPanel(c, email)).toBe('Gold');
  });

  it('a change of the tier currency over the API is in force on the next order (the order reply and the counter’s panel)', async () => {
    const email = await newCustomer(c);
    // 4 points, 40 stamps; then 5 points, 50 stamps: Gold counts Points.
    expect(await buy(c, email, 4)).toBe('Member');
    expect(await buy(c, email, 1)).toBe('Member');
    expect(await tierCurrencyOnPanel(c, email)).toStrictEqual({ counted: 'Points', balance: 'Points' });
    const changed = await setTierCurrency(c, c.stamps);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ tier_currency: c.stamps, points_expiry_days: null, referral_points: 0 });
    // 6 points, 60 stamps: the next order counts the stamps.
    expect(await buy(c, email, 1)).toBe('Gold');
    expect(await tierOnPanel(c, email)).toBe('Gold');
    expect(await tierCurrencyOnPanel(c, email)).toStrictEqual({ counted: 'Stamps', balance: 'Stamps' });
    // Back to Points through the back office's route, as the Program screen saves it.
    const owner = await ownerOf(node, c.vendor.vendorId);
    const back = await staffCall(node, owner.token, 'PUT', '/backoffice/program/settings', { tier_currency: c.points });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect((await staffCall(node, owner.token, 'GET', '/backoffice/program')).body.settings.tier_currency).toBe(c.points);
  });

  it('refuses a currency that is not an active loyalty currency of the program (422, its code), and nothing changes', async () => {
    const other = await cafe('Otro Café', null);
    const archived = await http(`${node.url}/currencies`, { method: 'POST', token: c.vendor.accessToken, body: { name: 'Old stamps' } });
    expect((await http(`${node.url}/currencies/${archived.body.id}`, { method: 'PUT', token: c.vendor.accessToken, body: { status: 'ARCHIVED' } })).status).toBe(200);
    const before = await settings(c);
    const stored = () => node.engine.db.selectFrom('vendors').select(['tier_currency_id', 'points_expiry_days', 'updated_at']).where('id', '=', c.vendor.vendorId).executeTakeFirstOrThrow();
    const rowBefore = await stored();
    expectRefusal(await setTierCurrency(c, 'curr_00000000000000000000'), 422, 'unknown_currency', 'tier_currency');
    expectRefusal(await setTierCurrency(c, other.stamps), 422, 'unknown_currency', 'tier_currency');
    expectRefusal(await setTierCurrency(c, c.quickPay), 422, 'currency_not_loyalty', 'tier_currency');
    expectRefusal(await setTierCurrency(c, archived.body.id), 422, 'currency_not_active', 'tier_currency');
    expectRefusal(await setTierCurrency(c, ''), 400, 'validation_failed');
    // With another change in the same body: none of it is made.
    const mixed = await http(`${node.url}/program/settings`, { method: 'PUT', token: c.vendor.accessToken, body: { tier_currency: c.quickPay, points_expiry_days: 90 } });
    expectRefusal(mixed, 422, 'currency_not_loyalty', 'tier_currency');
    expect(await settings(c)).toStrictEqual(before);
    expect(await stored()).toStrictEqual(rowBefore);
  });

  it('the tier currency cannot be deleted or given an ISO code until tiers count another; archived, it still counts', async () => {
    const bearer = { token: c.vendor.accessToken };
    const visits = (await http(`${node.url}/currencies`, { method: 'POST', ...bearer, body: { name: 'Visits' } })).body.id as string;
    expect((await setTierCurrency(c, visits)).status).toBe(200);
    expectRefusal(await http(`${node.url}/currencies/${visits}`, { method: 'DELETE', ...bearer }), 409, 'currency_in_use');
    expectRefusal(await http(`${node.url}/currencies/${visits}`, { method: 'PUT', ...bearer, body: { code: 'EUR' } }), 409, 'currency_in_use', 'code');
    expect((await http(`${node.url}/currencies/${visits}`, { method: 'PUT', ...bearer, body: { status: 'ARCHIVED' } })).status).toBe(200);
    expect((await settings(c)).tier_currency).toBe(visits);
    expect((await setTierCurrency(c, c.points)).status).toBe(200);
    expect((await http(`${node.url}/currencies/${visits}`, { method: 'DELETE', ...bearer })).status).toBe(200);
    // The program's own Points, counted by default, are refused the same way.
    expectRefusal(await http(`${node.url}/currencies/${c.points}`, { method: 'DELETE', ...bearer }), 409, 'currency_in_use');
  });
});

describe('a void takes a tier back on the tier currency only', () => {
  it('the stamps left do not keep the Gold a voided sale’s points got', async () => {
    const c = await cafe('Café Anulado', null);
    const email = await newCustomer(c);
    const big = receipt();
    expect((await store.orderOk(c.vendor.apiKey, { card_number: email, receipt_number: big, subtotal: 60 })).tier.current.name).toBe('Gold');
    // 10 points and 100 stamps stand once the 60.00 is voided.
    expect(await buy(c, email, 10)).toBe('Gold');
    await store.voidOk(c.vendor.apiKey, big);
    expect(await tierOnPanel(c, email)).toBe('Member');
  });
});

describe('the hourly demotion counts the tier currency only', () => {
  it('stamps earned in the window do not keep a member in Gold', async () => {
    const c = await cafe('Café Mensual', 30);
    const email = await newCustomer(c);
    expect(await buy(c, email, 60)).toBe('Gold');
    node.clock.advance(25 * DAY);
    // 10 points and 100 stamps in the window.
    await buy(c, email, 10);
    node.clock.advance(6 * DAY);
    await demoteTiers(node.engine);
    expect(await tierOnPanel(c, email)).toBe('Member');
  });
});
