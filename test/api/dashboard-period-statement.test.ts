import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openParams } from '../../src/core/messaging/sealed-params';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, signIn, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { type AddedStore, inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The bookkeeper's month end (fifteenth round): November 2026 of a three-store program in Quito
// (UTC−5), asked of the node over real HTTP on a real SQLite file, the node's clock set by the test.
// The month holds every use case that moves stored value — reloads, sales paid with it at three
// stores, the void in November of an October sale, adjustments both ways, a pay-back, a leaver's
// forfeit — and the edges a wrong count fails on: a reload at 20:00 on 31 October (1 November in
// UTC), a sale at 23:30 on 30 November (December in UTC), and a sale and a reload after the month
// (the closing balance must not hold them). The opening and closing are checked against the sums of
// the balances the dashboard showed at those moments, not against the statement's own figures.
// An eGift sold on 25 November is claimed in December, another sold then: November still closes
// with the first owed, December opens with it.

let node: TestNode;
let vendor: VendorCredentials;
let norte: AddedStore;
let sur: AddedStore;
let owner: SignedInStaff;
let surManager: SignedInStaff;
const store = inStoreApi(() => node);
const pay = paymentsApi(() => node);
const newReceipt = receiptCounter('month');
/** Sets the node's clock, and signs staff in again: a session ends after 30 idle minutes. */
async function at(iso: string): Promise<void> {
  node.clock.set(Date.parse(iso));
  for (const staff of [owner, surManager]) if (staff) staff.token = await signIn(node, staff.email);
}
/** The dashboard's sum of every quick-pay balance, now. */
const outstandingNow = async () => (await staffCall(node, owner.token, 'GET', '/backoffice/dashboard')).body.outstanding_stored_value as number;
let openingSeen = 0;
let closingSeen = 0;
const giftFor = async (recipient: string, amount: number) => {
  const gift = await http(`${node.url}/vendor/${vendor.vendorId}/egift`, {
    method: 'POST',
    body: {
      amount,
      buyer: { name: 'Mateo Ruiz', email: 'mateo@example.com' },
      recipient: { name: 'Bea', email: recipient },
      billing: { name: 'Mateo Ruiz', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
    },
  });
  expect(gift.status, JSON.stringify(gift.body)).toBe(200);
};

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  await at('2026-10-20T15:00:00Z');
  vendor = await node.addVendor('Café Andino');
  norte = await store.addStore(vendor, 'Norte');
  sur = await store.addStore(vendor, 'Sur, "El Ejido"');
  owner = await ownerOf(node, vendor.vendorId);
  surManager = await invitedStaff(node, owner, 'store_manager', sur.storeId);
  expect((await staffCall(node, owner.token, 'PUT', `/backoffice/stores/${vendor.storeId}`, { time_zone: 'America/Guayaquil' })).status).toBe(200);

  const ana = await signUpAt(node, vendor.vendorId, { first_name: 'Ana' });
  const beto = await signUpAt(node, vendor.vendorId, { first_name: 'Beto' });
  const anaCard = await pay.addProfileOk(ana.key);
  const betoCard = await pay.addProfileOk(beto.key);
  const usd = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body.currencies.find((c: { code: string | null }) => c.code === 'USD').id;

  // October, Quito time: Ana reloads 50.00 at 20:00 on the 31st (1 November in UTC) and pays 10.00 at Main at 21:00.
  await at('2026-11-01T01:00:00Z');
  await pay.reloadOk(ana.key, { user_billingprofile: anaCard.id, amount: 50 });
  await at('2026-11-01T02:00:00Z');
  const octoberSale = newReceipt();
  await store.orderOk(vendor.apiKey, { card_number: ana.email, receipt_number: octoberSale, subtotal: 12, quick_pay: 10 });
  openingSeen = await outstandingNow();

  // November.
  await at('2026-11-03T15:00:00Z');
  await pay.reloadOk(beto.key, { user_billingprofile: betoCard.id, amount: 20 });
  await store.checkInOk(norte.apiKey, beto.email);
  await store.orderOk(norte.apiKey, { card_number: beto.email, receipt_number: newReceipt(), subtotal: 6, quick_pay: 5 });
  await at('2026-11-05T16:00:00Z');
  await store.voidOk(vendor.apiKey, octoberSale); // 10.00 back to Ana: returned in November, spent in October
  await at('2026-11-10T18:00:00Z');
  await store.checkInOk(sur.apiKey, ana.email);
  await store.orderOk(sur.apiKey, { card_number: ana.email, receipt_number: newReceipt(), subtotal: 9, quick_pay: 7.5 });
  const voidedSameDay = newReceipt();
  await store.orderOk(sur.apiKey, { card_number: ana.email, receipt_number: voidedSameDay, subtotal: 4, quick_pay: 4 });
  await store.voidOk(sur.apiKey, voidedSameDay);
  await at('2026-11-12T14:00:00Z');
  expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${beto.userId}/adjustments`, { currency: usd, amount: 225, reason: 'Goodwill' })).status).toBe(201);
  expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${ana.userId}/adjustments`, { currency: usd, amount: -100, reason: 'Double credit' })).status).toBe(201);
  await at('2026-11-15T20:00:00Z');
  expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${beto.userId}/pay-backs`, { amount: 300, method: 'cash', idempotency_key: 'month-payback-1' })).status).toBe(201);
  const toCard = await staffCall(node, owner.token, 'POST', `/backoffice/customers/${beto.userId}/pay-backs`, { amount: 200, method: 'card', idempotency_key: 'month-payback-card' });
  expect(toCard.status, JSON.stringify(toCard.body)).toBe(201);
  await at('2026-11-20T13:00:00Z');
  const carla = await signUpAt(node, vendor.vendorId, { first_name: 'Carla' });
  const carlaCard = await pay.addProfileOk(carla.key);
  await pay.reloadOk(carla.key, { user_billingprofile: carlaCard.id, amount: 4 });
  expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${carla.userId}/remove`, { reason: 'Moved away', forfeit_balances: true })).status).toBe(200);
  // A gift sold on the 25th and not claimed: the processor charged it; no balance holds it yet.
  // (Its claim code is read from the queued email: the outbox worker would clear it once sent.)
  await node.messaging.stop();
  const bea = await signUpAt(node, vendor.vendorId, { first_name: 'Bea' });
  await at('2026-11-25T16:00:00Z');
  await giftFor(bea.email, 10);
  await at('2026-12-01T04:30:00Z'); // 23:30 on 30 November in Quito
  await store.orderOk(vendor.apiKey, { card_number: ana.email, receipt_number: newReceipt(), subtotal: 1, quick_pay: 1 });
  closingSeen = await outstandingNow();

  // December: after the month, and not in it.
  await at('2026-12-01T05:30:00Z'); // 00:30 on 1 December
  await store.orderOk(norte.apiKey, { card_number: beto.email, receipt_number: newReceipt(), subtotal: 2, quick_pay: 2 });
  await at('2026-12-02T15:00:00Z');
  expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${ana.userId}/adjustments`, { currency: usd, amount: 1500, reason: 'Lost card' })).status).toBe(201);
  // Bea claims November's gift in December, and another is sold then.
  const row = await node.engine.db.selectFrom('messages_outbox').select('params').where('template', '=', 'egift_received').where('recipient', '=', bea.email).executeTakeFirstOrThrow();
  const code = (openParams(node.engine, row.params) as { code: string }).code;
  const claimed = await http(`${node.url}${withSessionKey('/user/egift/claim', bea.key)}`, { method: 'POST', body: { code } });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
  await giftFor('someone@example.com', 3);
});

afterAll(async () => {
  await node?.close();
});

const november = (who: SignedInStaff, extra = '') => staffCall(node, who.token, 'GET', `/backoffice/dashboard/period?from=2026-11-01&to=2026-11-30${extra}`);

/** A CSV file's records (RFC 4180 quoting), without its byte-order mark. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i += 1;
    } else if (quoted && c === '"') quoted = false;
    else if (quoted) field += c;
    else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 1;
    } else field += c;
  }
  return records;
}

describe('a month’s statement', () => {
  it('counts November in the store’s zone, per store and for the program, and the liability’s move adds up to the balances seen at the month’s start and end', async () => {
    const reply = await november(owner);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const p = reply.body;
    expect([p.time_zone, p.from, p.to, p.store, p.quick_pay_currency]).toEqual(['America/Guayaquil', '2026-11-01', '2026-11-30', null, 'USD']);
    // Independent of the statement: the balances the dashboard summed at 21:00 on 31 October and 23:30 on 30 November.
    expect(openingSeen).toBe(4000);
    expect([p.opening_stored_value, p.closing_stored_value]).toEqual([openingSeen, closingSeen]);
    expect(p.total).toMatchObject({
      stored_value_loaded: 2400, // Beto 20.00, Carla 4.00 (Ana's 50.00 was October's in Quito)
      reload_amount: 2400,
      stored_value_spent: 500 + 750 + 400 + 100,
      stored_value_returned: 1000 + 400,
      stored_value_adjusted: 125,
      stored_value_forfeited: -400,
      stored_value_paid_back: 500,
      paid_back_to_cards: 200,
      stored_value_other: 0,
      egifts_sold_amount: 1000, // charged, not loaded: outside the balances' move
    });
    const t = p.total;
    expect(t.stored_value_loaded - t.stored_value_spent + t.stored_value_returned + t.stored_value_adjusted + t.stored_value_forfeited - t.stored_value_paid_back + t.stored_value_other).toBe(closingSeen - openingSeen);
    expect(t.stored_value_net_change).toBe(closingSeen - openingSeen);

    const byStore = Object.fromEntries(p.stores.map((s: any) => [s.name, s]));
    expect(byStore['Main Store']).toMatchObject({ orders: 1, points_issued: 1, stored_value_spent: 100, stored_value_returned: 1000, stored_value_loaded: 0 });
    expect(byStore['Norte']).toMatchObject({ check_ins: 1, orders: 1, points_issued: 6, stored_value_spent: 500 });
    expect(byStore['Sur, "El Ejido"']).toMatchObject({ check_ins: 1, orders: 1, points_issued: 9, stored_value_spent: 1150, stored_value_returned: 400 });
    expect(p.program).toMatchObject({ stored_value_loaded: 2400, stored_value_adjusted: 125, stored_value_forfeited: -400, stored_value_paid_back: 500, paid_back_to_cards: 200, egifts_sold_amount: 1000, stored_value_spent: 0 });

    // Per day: 30 days × (3 stores + the program's row); the 30 November sale is the 30th's.
    expect(p.days).toHaveLength(120);
    const last = p.days.filter((d: any) => d.day === '2026-11-30');
    expect(last.map((d: any) => d.store_name)).toEqual(['Main Store', 'Norte', 'Sur, "El Ejido"', null]);
    expect(last[0]).toMatchObject({ stored_value_spent: 100, orders: 1 });
    expect(last[3].outstanding_stored_value).toBe(closingSeen);
    // The gift sold on the 25th is owed from that day to the month's end, though claimed since.
    expect([p.opening_unclaimed_egifts, p.closing_unclaimed_egifts]).toEqual([0, 1000]);
    const programDays = p.days.filter((d: any) => d.store === null);
    expect(programDays.map((d: any) => d.unclaimed_egift_amount)).toEqual([...Array(24).fill(0), ...Array(6).fill(1000)]);
    expect(p.days.filter((d: any) => d.store !== null).every((d: any) => d.unclaimed_egift_amount === null)).toBe(true);
    // Each day's liability moves by that day's rows.
    let previous = openingSeen;
    for (const day of [...new Set(p.days.map((d: any) => d.day))]) {
      const rows = p.days.filter((d: any) => d.day === day);
      const move = rows.reduce((sum: number, d: any) => sum + d.stored_value_net_change, 0);
      const end = rows.at(-1).outstanding_stored_value;
      expect(end - previous, String(day)).toBe(move);
      previous = end;
    }
  });

  it('a closed month reads the same after later activity; a month still running closes at the balances now', async () => {
    const first = (await november(owner)).body;
    await at('2026-12-03T12:00:00Z');
    const ana = (await staffCall(node, owner.token, 'GET', '/backoffice/customers?q=Ana')).body.items[0];
    expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${ana.id}/pay-backs`, { amount: 200, method: 'cash', idempotency_key: 'month-payback-2' })).status).toBe(201);
    expect((await november(owner)).body).toEqual(first);
    // A month still running closes now: at the balances the dashboard sums.
    const december = await staffCall(node, owner.token, 'GET', '/backoffice/dashboard/period?from=2026-12-01&to=2026-12-31');
    expect(december.body.opening_stored_value).toBe(closingSeen);
    expect(december.body.closing_stored_value).toBe(await outstandingNow());
    expect(december.body.total.stored_value_net_change).toBe(december.body.closing_stored_value - closingSeen);
    // December opens owing November's gift; it was claimed (loaded) and another sold: now owed, as the dashboard says.
    const d = december.body;
    expect([d.total.egifts_sold_amount, d.total.egift_amount]).toEqual([300, 1000]);
    const dashboard = (await staffCall(node, owner.token, 'GET', '/backoffice/dashboard')).body;
    expect([d.opening_unclaimed_egifts, d.closing_unclaimed_egifts]).toEqual([1000, dashboard.unclaimed_egifts.amount]);
    expect(d.closing_unclaimed_egifts).toBe(300);
    expect(d.closing_unclaimed_egifts - d.opening_unclaimed_egifts).toBe(d.total.egifts_sold_amount - d.total.egift_amount);
  });

  it('a store manager gets their store’s rows only, without the program’s; another store is refused', async () => {
    const reply = await november(surManager);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect([reply.body.store, reply.body.program, reply.body.opening_stored_value, reply.body.closing_stored_value]).toEqual([sur.storeId, null, null, null]);
    expect(reply.body.days).toHaveLength(30);
    expect(reply.body.total).toMatchObject({ stored_value_spent: 1150, stored_value_returned: 400, stored_value_loaded: 0, stored_value_adjusted: 0 });
    const refused = await november(surManager, `&store=${vendor.storeId}`);
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
    const refusedFile = await staffCall(node, surManager.token, 'GET', `/backoffice/dashboard/period.csv?from=2026-11-01&to=2026-11-30&store=${norte.storeId}`);
    expect([refusedFile.status, refusedFile.body.code]).toEqual([403, 'forbidden']);
  });

  it('the file: UTF-8 with a byte-order mark, a header, a row per day and store, plain decimals with the currency’s code, that add up', async () => {
    const reply = await fetch(`${node.url}/backoffice/dashboard/period.csv?from=2026-11-01&to=2026-11-30`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(reply.headers.get('content-disposition')).toBe('attachment; filename="punchcard-2026-11-01-to-2026-11-30.csv"');
    const bytes = new Uint8Array(await reply.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual([
      'date', 'time_zone', 'store_id', 'store', 'check_ins', 'orders', 'points_issued', 'points_redeemed', 'currency',
      'stored_value_loaded', 'of_which_reloads', 'of_which_egifts', 'stored_value_spent', 'stored_value_returned', 'stored_value_adjusted',
      'stored_value_forfeited', 'stored_value_paid_back', 'of_which_to_cards', 'stored_value_other', 'stored_value_net_change', 'outstanding_stored_value_end_of_day', 'egifts_sold',
      'unclaimed_egifts_end_of_day',
    ]);
    expect(rows).toHaveLength(120);
    const col = (name: string) => header!.indexOf(name);
    const sur30 = rows.find((r) => r[col('date')] === '2026-11-10' && r[col('store')] === 'Sur, "El Ejido"')!;
    expect(sur30[col('store_id')]).toBe(String(sur.storeId));
    expect([sur30[col('currency')], sur30[col('stored_value_spent')], sur30[col('stored_value_returned')], sur30[col('stored_value_net_change')]]).toEqual(['USD', '11.50', '4.00', '-7.50']);
    const forfeitDay = rows.find((r) => r[col('date')] === '2026-11-20' && r[col('store_id')] === '')!;
    expect([forfeitDay[col('stored_value_loaded')], forfeitDay[col('stored_value_forfeited')], forfeitDay[col('time_zone')]]).toEqual(['4.00', '-4.00', 'America/Guayaquil']);
    const paybackDay = rows.find((r) => r[col('date')] === '2026-11-15' && r[col('store_id')] === '')!;
    expect([paybackDay[col('stored_value_paid_back')], paybackDay[col('of_which_to_cards')], paybackDay[col('stored_value_net_change')]]).toEqual(['5.00', '2.00', '-5.00']);
    const giftDay = rows.find((r) => r[col('date')] === '2026-11-25' && r[col('store_id')] === '')!;
    expect([giftDay[col('egifts_sold')], giftDay[col('stored_value_loaded')], giftDay[col('stored_value_net_change')], giftDay[col('unclaimed_egifts_end_of_day')]]).toEqual(['10.00', '0.00', '0.00', '10.00']);
    expect(rows.find((r) => r[col('date')] === '2026-11-24' && r[col('store_id')] === '')![col('unclaimed_egifts_end_of_day')]).toBe('0.00');
    expect(sur30[col('unclaimed_egifts_end_of_day')]).toBe('');
    // As the accountant checks it: the net changes sum to the last day's liability less the opening.
    const cents = (s: string) => Math.round(Number(s) * 100);
    const net = rows.reduce((sum, r) => sum + cents(r[col('stored_value_net_change')]!), 0);
    const lastProgramRow = rows.filter((r) => r[col('store_id')] === '').at(-1)!;
    expect(cents(lastProgramRow[col('outstanding_stored_value_end_of_day')]!)).toBe(closingSeen);
    expect(net).toBe(closingSeen - openingSeen);
    for (const r of rows) {
      const f = (name: string) => cents(r[col(name)]!);
      expect(f('stored_value_loaded') - f('stored_value_spent') + f('stored_value_returned') + f('stored_value_adjusted') + f('stored_value_forfeited') - f('stored_value_paid_back') + f('stored_value_other')).toBe(f('stored_value_net_change'));
      for (const name of ['stored_value_spent', 'stored_value_net_change']) expect(r[col(name)]).toMatch(/^-?\d+\.\d{2}$/);
    }
  });

  it('refuses a period backwards, too long, or not made of calendar days with 400 and a stable code, never a 500; the file too', async () => {
    const cases: Array<[string, number, string, string | undefined]> = [
      ['from=2026-11-30&to=2026-11-01', 400, 'invalid_period', 'to'],
      ['from=2025-01-01&to=2026-01-02', 400, 'invalid_period', 'to'],
      ['from=2026-11-31&to=2026-12-01', 400, 'invalid_period', 'from'],
      ['from=2026-11-01&to=30/11/2026', 400, 'invalid_period', 'to'],
      ['from=nov&to=2026-11-30', 400, 'invalid_period', 'from'],
      ['from=2026-11-01', 400, 'validation_failed', undefined],
      ['from=2026-11-01&to=2026-11-30&store=abc', 400, 'validation_failed', undefined],
    ];
    for (const path of ['/backoffice/dashboard/period', '/backoffice/dashboard/period.csv']) {
      for (const [query, status, code, field] of cases) {
        const reply = await staffCall(node, owner.token, 'GET', `${path}?${query}`);
        expect([reply.status, reply.body.code], `${path}?${query}`).toEqual([status, code]);
        if (field) expect(reply.body.field).toBe(field);
      }
    }
    // A whole leap year is allowed (366 days).
    expect((await staffCall(node, owner.token, 'GET', '/backoffice/dashboard/period?from=2028-01-01&to=2028-12-31')).status).toBe(200);
    const unsigned = await http(`${node.url}/backoffice/dashboard/period.csv?from=2026-11-01&to=2026-11-30`);
    expect(unsigned.status).toBe(401);
  });
});
