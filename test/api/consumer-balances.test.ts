import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { consumerApi, type ConsumerCustomer as Customer, legacyErrorCheck } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// GET /user/quick-pay/balance and GET /user/currency/balance over real HTTP. Balances are written
// straight into the ledger (the in-store issue writes them for real); these calls only read.

const DAY = 24 * 3600_000;

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const { login, customer, sessionUrl } = consumerApi(() => node, { emailPrefix: 'balance', firstName: 'Ana', lastName: 'Pérez' });
const expectLegacyError = legacyErrorCheck({ depth: 'basic', moreInfoNull: true });

/** Posts ledger entries on a holder's account in one currency; returns the entry ids. */
async function post(
  holder: { type: 'user' | 'card'; id: number },
  vendorId: number,
  currencyId: number,
  entries: Array<{ amount: number; expiresAt?: number | null; reversesId?: number }>,
): Promise<number[]> {
  return transact(node.engine, async (trx) => {
    const account = await openAccount(trx, node.engine, { vendorId, currencyId, holderType: holder.type, holderId: holder.id });
    const ids: number[] = [];
    for (const e of entries) ids.push((await postEntry(trx, node.engine, account, { amount: e.amount, kind: 'test', expiresAt: e.expiresAt ?? null, reversesId: e.reversesId ?? null })).id);
    return ids;
  });
}

const quickPay = (c: Customer) => http(sessionUrl('/user/quick-pay/balance', c));
const balances = (c: Customer) => http(sessionUrl('/user/currency/balance', c));
const seconds = (ms: number) => Math.floor(ms / 1000);

// ---------------------------------------------------------------------------------------------

describe('GET /user/quick-pay/balance', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Quick Café');
  });

  it('answers 0 in the quick-pay currency before the customer has an account', async () => {
    const c = await customer(v.vendorId);
    const reply = await quickPay(c);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ amount: 0, currency: { id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' } });
    expect(Number.isInteger(reply.body.currency.id)).toBe(true);
  });

  it('answers the balance in major units (1250 cents -> 12.5), following every entry', async () => {
    const c = await customer(v.vendorId);
    await post({ type: 'user', id: c.userId }, v.vendorId, v.quickPayCurrencyId, [{ amount: 1000 }, { amount: 250 }]);
    expect((await quickPay(c)).body.amount).toBe(12.5);
    await post({ type: 'user', id: c.userId }, v.vendorId, v.quickPayCurrencyId, [{ amount: -249 }]);
    expect((await quickPay(c)).body.amount).toBe(10.01);
  });

  it('ignores loyalty points, other customers, gift cards and the same person at another vendor', async () => {
    const c = await customer(v.vendorId);
    const other = await customer(v.vendorId);
    const w = await node.addVendor('Elsewhere');
    await post({ type: 'user', id: c.userId }, v.vendorId, v.loyaltyCurrencyId, [{ amount: 500 }]);
    await post({ type: 'user', id: other.userId }, v.vendorId, v.quickPayCurrencyId, [{ amount: 700 }]);
    await post({ type: 'card', id: c.userId }, v.vendorId, v.quickPayCurrencyId, [{ amount: 900 }]);
    const atW = await login(c.email, c.password, w.vendorId); // the first login links the account to w
    await post({ type: 'user', id: c.userId }, w.vendorId, w.quickPayCurrencyId, [{ amount: 300 }]);

    expect((await quickPay(c)).body).toEqual({ amount: 0, currency: { id: v.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' } });
    expect((await quickPay(other)).body.amount).toBe(7);
    const atWReply = await http(`${node.url}/user/quick-pay/balance?session_key=${atW}`);
    expect(atWReply.body).toEqual({ amount: 3, currency: { id: w.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' } });
  });

  it('uses the digits of the currency (JPY has none)', async () => {
    const yen = await setUpVendor(node.engine, { name: 'Kissa', currency: 'JPY', country: 'JP', store: { name: 'Ginza', address1: '1-1', city: 'Tokyo' } });
    const c = await customer(yen.vendorId);
    await post({ type: 'user', id: c.userId }, yen.vendorId, yen.quickPayCurrencyId, [{ amount: 1500 }]);
    expect((await quickPay(c)).body).toEqual({ amount: 1500, currency: { id: yen.quickPayCurrencyId, name: 'Quick Pay JPY', code: 'JPY', object: 'currency' } });
  });

  it('answers 422 quick_pay_not_offered when the vendor has no (living) quick-pay currency', async () => {
    const w = await node.addVendor();
    const c = await customer(w.vendorId);
    await node.engine.db.updateTable('currencies').set({ deleted_at: node.clock.now() }).where('id', '=', w.quickPayCurrencyId).execute();
    expectLegacyError(await quickPay(c), 422, 'quick_pay_not_offered');
    await node.engine.db.updateTable('vendors').set({ quick_pay_currency_id: null }).where('id', '=', w.vendorId).execute();
    expectLegacyError(await quickPay(c), 422, 'quick_pay_not_offered');
  });

  it('still shows the money when the vendor pauses or archives the quick-pay currency', async () => {
    const w = await node.addVendor();
    const c = await customer(w.vendorId);
    await post({ type: 'user', id: c.userId }, w.vendorId, w.quickPayCurrencyId, [{ amount: 420 }]);
    for (const status of ['INACTIVE', 'ARCHIVED']) {
      await node.engine.db.updateTable('currencies').set({ status }).where('id', '=', w.quickPayCurrencyId).execute();
      const reply = await quickPay(c);
      expect(reply.status).toBe(200);
      expect(reply.body.amount).toBe(4.2);
    }
  });

  it('accepts the .json suffix', async () => {
    const c = await customer(v.vendorId);
    const reply = await http(`${node.url}/user/quick-pay/balance.json?session_key=${c.sessionKey}`);
    expect(reply.status).toBe(200);
    expect(reply.body.amount).toBe(0);
  });
});

describe('GET /user/currency/balance', () => {
  let v: VendorCredentials;
  beforeAll(async () => {
    v = await node.addVendor('Balances Bakery');
  });

  const points = (vendor: VendorCredentials) => ({ id: vendor.loyaltyCurrencyId, name: 'Points', code: null, object: 'currency' });
  const usd = (vendor: VendorCredentials) => ({ id: vendor.quickPayCurrencyId, name: 'Quick Pay USD', code: 'USD', object: 'currency' });

  it('lists every active currency of the vendor with 0 before any activity', async () => {
    const c = await customer(v.vendorId);
    const reply = await balances(c);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { object: 'currency_balance', currency: points(v), quick_pay: false, balance: 0, expiring: [] },
      { object: 'currency_balance', currency: usd(v), quick_pay: true, balance: 0, expiring: [] },
    ]);
  });

  it('shows balances in each currency (points whole, money in major units)', async () => {
    const c = await customer(v.vendorId);
    await post({ type: 'user', id: c.userId }, v.vendorId, v.loyaltyCurrencyId, [{ amount: 150 }]);
    await post({ type: 'user', id: c.userId }, v.vendorId, v.quickPayCurrencyId, [{ amount: 1999 }]);
    const body = (await balances(c)).body;
    expect(body.map((b: any) => [b.currency.id, b.balance])).toEqual([
      [v.loyaltyCurrencyId, 150],
      [v.quickPayCurrencyId, 19.99],
    ]);
  });

  it('leaves out paused, archived and deleted currencies and adds new active ones', async () => {
    const w = await node.addVendor();
    const c = await customer(w.vendorId);
    const created = await http(`${node.url}/currencies`, { method: 'POST', token: w.accessToken, body: { name: 'Stars' } });
    expect(created.status).toBe(201);
    const stars = await node.engine.db.selectFrom('currencies').select('id').where('public_id', '=', created.body.id).executeTakeFirstOrThrow();
    let body = (await balances(c)).body;
    expect(body.map((b: any) => b.currency.name)).toEqual(['Points', 'Quick Pay USD', 'Stars']);
    expect(body[2]).toEqual({ object: 'currency_balance', currency: { id: stars.id, name: 'Stars', code: null, object: 'currency' }, quick_pay: false, balance: 0, expiring: [] });

    await http(`${node.url}/currencies/${created.body.id}`, { method: 'PUT', token: w.accessToken, body: { status: 'INACTIVE' } });
    expect((await balances(c)).body.map((b: any) => b.currency.name)).toEqual(['Points', 'Quick Pay USD']);
    await http(`${node.url}/currencies/${created.body.id}`, { method: 'PUT', token: w.accessToken, body: { status: 'ACTIVE' } });
    expect((await balances(c)).body.map((b: any) => b.currency.name)).toEqual(['Points', 'Quick Pay USD', 'Stars']);
    await http(`${node.url}/currencies/${created.body.id}`, { method: 'PUT', token: w.accessToken, body: { status: 'ARCHIVED' } });
    expect((await balances(c)).body.map((b: any) => b.currency.name)).toEqual(['Points', 'Quick Pay USD']);
    await node.engine.db.updateTable('currencies').set({ deleted_at: node.clock.now() }).where('id', '=', w.loyaltyCurrencyId).execute();
    body = (await balances(c)).body;
    expect(body.map((b: any) => b.currency.name)).toEqual(['Quick Pay USD']);
  });

  it('groups future expirations by UTC day, soonest first, leaving out past, reversed and non-expiring credits', async () => {
    const c = await customer(v.vendorId);
    const now = node.clock.now();
    const dayStart = Math.floor(now / DAY) * DAY;
    const in10a = dayStart + 10 * DAY + 10 * 3600_000; // 10:00 UTC
    const in10b = dayStart + 10 * DAY + 15 * 3600_000; // 15:00 UTC, same day
    const in20late = dayStart + 20 * DAY + 23.5 * 3600_000; // 23:30 UTC
    const in21early = dayStart + 21 * DAY + 0.5 * 3600_000; // 00:30 UTC the next day
    const [, , , , , reversible] = await post({ type: 'user', id: c.userId }, v.vendorId, v.loyaltyCurrencyId, [
      { amount: 30, expiresAt: in20late },
      { amount: 100, expiresAt: in10a },
      { amount: 50, expiresAt: in10b },
      { amount: 20, expiresAt: now - DAY }, // already past
      { amount: 40 }, // never expires
      { amount: 70, expiresAt: dayStart + 5 * DAY }, // reversed below
      { amount: 5, expiresAt: in21early },
    ]);
    await post({ type: 'user', id: c.userId }, v.vendorId, v.loyaltyCurrencyId, [{ amount: -70, reversesId: reversible! }]);
    const entry = (await balances(c)).body.find((b: any) => b.currency.id === v.loyaltyCurrencyId);
    expect(entry.balance).toBe(245);
    expect(entry.expiring).toEqual([
      { date: seconds(in10a), amount: 150 },
      { date: seconds(in20late), amount: 30 },
      { date: seconds(in21early), amount: 5 },
    ]);
  });

  it('never shows more expiring than the balance: spending uses the soonest-expiring value first', async () => {
    const c = await customer(v.vendorId);
    const now = node.clock.now();
    const first = now + 3 * DAY;
    const second = first + 3600_000;
    const later = now + 30 * DAY;
    await post({ type: 'user', id: c.userId }, v.vendorId, v.loyaltyCurrencyId, [
      { amount: 100, expiresAt: first },
      { amount: 50, expiresAt: second },
      { amount: 30, expiresAt: later },
      { amount: -140 },
    ]);
    const entry = (await balances(c)).body.find((b: any) => b.currency.id === v.loyaltyCurrencyId);
    expect(entry.balance).toBe(40);
    // 140 spent: the 100 lot is gone, 40 of the 50 lot too; 10 + 30 remain to expire.
    expect(entry.expiring).toEqual([
      { date: seconds(second), amount: 10 },
      { date: seconds(later), amount: 30 },
    ]);
    await post({ type: 'user', id: c.userId }, v.vendorId, v.loyaltyCurrencyId, [{ amount: -40 }]);
    const empty = (await balances(c)).body.find((b: any) => b.currency.id === v.loyaltyCurrencyId);
    expect(empty).toEqual({ object: 'currency_balance', currency: points(v), quick_pay: false, balance: 0, expiring: [] });
  });

  it('shows expiring money in major units', async () => {
    const c = await customer(v.vendorId);
    const at = node.clock.now() + 7 * DAY;
    await post({ type: 'user', id: c.userId }, v.vendorId, v.quickPayCurrencyId, [{ amount: 1050, expiresAt: at }, { amount: 500 }]);
    const entry = (await balances(c)).body.find((b: any) => b.quick_pay);
    expect(entry).toEqual({ object: 'currency_balance', currency: usd(v), quick_pay: true, balance: 15.5, expiring: [{ date: seconds(at), amount: 10.5 }] });
  });

  it('moves an expiration out of the list once its moment has passed', async () => {
    const w = await node.addVendor();
    const c = await customer(w.vendorId);
    const at = node.clock.now() + 2 * 3600_000;
    await post({ type: 'user', id: c.userId }, w.vendorId, w.loyaltyCurrencyId, [{ amount: 10, expiresAt: at }]);
    expect((await balances(c)).body[0].expiring).toEqual([{ date: seconds(at), amount: 10 }]);
    node.clock.advance(2 * 3600_000);
    expect((await balances(c)).body[0].expiring).toEqual([]);
  });

  it('shows nothing of other customers or of the same person at another vendor', async () => {
    const w = await node.addVendor();
    const c = await customer(w.vendorId);
    const other = await customer(w.vendorId);
    const x = await node.addVendor();
    await post({ type: 'user', id: other.userId }, w.vendorId, w.loyaltyCurrencyId, [{ amount: 80, expiresAt: node.clock.now() + DAY }]);
    await login(c.email, c.password, x.vendorId);
    await post({ type: 'user', id: c.userId }, x.vendorId, x.loyaltyCurrencyId, [{ amount: 60, expiresAt: node.clock.now() + DAY }]);
    expect((await balances(c)).body).toEqual([
      { object: 'currency_balance', currency: points(w), quick_pay: false, balance: 0, expiring: [] },
      { object: 'currency_balance', currency: usd(w), quick_pay: true, balance: 0, expiring: [] },
    ]);
  });
});
