import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ROOMY_RATE_LIMITS } from '../support/customers';
import { expectBalancesAddUp, inStoreApi, receiptCounter } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A voided sale takes back the tier it got (docs/decisions.md, "Orders", Void): buying big, being
// promoted and voiding the sale must not keep the tier (tiers without a window never demote, and
// tiers with one last a full window). The member goes back to the highest tier the points left would
// have reached, never below the tier they held before the sale, with a history note; the panel shows it.
// Over real HTTP on an SQLite file.

const HOUR = 3600_000;
const DAY = 24 * HOUR;
let node: TestNode;
let v: VendorCredentials;
const api = inStoreApi(() => node);
const receipt = receiptCounter('TV');
let emails = 0;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  v = await node.addVendor('Tier Void Café');
  for (const tier of [
    { name: 'Silver', threshold: 20, window_days: 30 },
    { name: 'Gold', threshold: 50, window_days: 30 },
    // No window: reached once, kept for ever (the easiest tier to keep after a void).
    { name: 'Platinum', threshold: 100, window_days: null },
  ]) {
    const made = await http(`${node.url}/tiers`, { method: 'POST', token: v.accessToken, body: tier });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  }
});
afterAll(() => node?.close());
afterEach(() => expectBalancesAddUp(node));

async function newCustomer(): Promise<{ userId: number; email: string }> {
  const email = `tier.void.${++emails}@example.com`;
  const reply = await http(`${node.url}/onscreen/register?api_key=${v.apiKey}`, { method: 'POST', body: { email, first_name: 'Vic' } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  await api.closeOk(v.apiKey, reply.body.pos_session.hash);
  const user = await node.engine.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { userId: Number(user.id), email };
}
/** A sale of `subtotal` (one point per unit): its receipt number. */
async function buy(email: string, subtotal: number): Promise<string> {
  const number = receipt();
  await api.orderOk(v.apiKey, { card_number: email, receipt_number: number, subtotal });
  node.clock.advance(HOUR);
  return number;
}
async function voidSale(number: string): Promise<void> {
  await api.voidOk(v.apiKey, number);
  node.clock.advance(HOUR);
}
async function tierOnPanel(email: string): Promise<string> {
  const session = await api.checkInSessionOk(v.apiKey, email);
  const panel = await api.retrieveOk(v.apiKey, session.hash);
  await api.closeOk(v.apiKey, session.hash);
  expect(panel.rules.tier.current.name).toBe(panel.user.tier.name);
  return panel.user.tier.name;
}
const history = async (userId: number) => (await http(`${node.url}/user/transaction/list?api_key=${v.apiKey}&user=${userId}`)).body.data as any[];
const tierNotes = async (userId: number) => (await history(userId)).filter((r) => r.object === 'tier_change').map((r) => r.rewards[0].name as string);
const membership = (userId: number) =>
  node.engine.db.selectFrom('user_vendors').select(['tier_id', 'tier_since']).where('user_id', '=', userId).where('vendor_id', '=', v.vendorId).executeTakeFirstOrThrow();
const tierId = async (name: string) => Number((await node.engine.db.selectFrom('tiers').select('id').where('vendor_id', '=', v.vendorId).where('name', '=', name).executeTakeFirstOrThrow()).id);

describe('the order reply tells the tier the sale left', () => {
  it('a promotion and the next tier up, for the panel to show at once (the session is closed); a void\'s reply tells none', async () => {
    const { email } = await newCustomer();
    const number = receipt();
    const reply = await api.orderOk(v.apiKey, { card_number: email, receipt_number: number, subtotal: 60 });
    expect(reply.tier).toMatchObject({ object: 'tier_rules', current: { object: 'tier', id: await tierId('Gold'), name: 'Gold', threshold: 50 }, next: { name: 'Platinum', threshold: 100 } });
    expect(reply.auto_reload_queued).toBe(false);
    const voided = await api.voidOk(v.apiKey, number);
    expect(voided.tier).toBeUndefined();
  });
});

describe('a sale that promotes writes a tier_change history record', () => {
  it('exactly one, naming the sale (its order, receipt, the quick-pay balance after it), beside it; the void adds the take-back', async () => {
    const { userId, email } = await newCustomer();
    await api.credit(v, v.quickPayCurrencyId, userId, 1000);
    const number = receipt();
    const sale = await api.orderOk(v.apiKey, { card_number: email, receipt_number: number, till: 7, payment_method: 'card', subtotal: 60, quick_pay: 2.5 });
    // Dated as the sale, just below it: the sale's own record stays the newest (the panel reads a POS sale there).
    const [saleRecord, note, ...older] = await history(userId);
    expect(older).toEqual([]);
    expect(saleRecord).toMatchObject({ object: 'order', id: sale.transaction_id });
    expect(note).toMatchObject({
      object: 'tier_change',
      status: 'Complete',
      total: 0,
      items: [],
      taxes: [],
      // 10.00 credited, 2.50 paid with quick pay: what the sale's own record says is left.
      quickpay: { used: 0, loaded: 0, balance: 7.5 },
      receipts: [{ receipt_number: number, till: 7, payment_method: 'card' }],
      rewards: [{ object: 'reward', kind: 'tier', name: 'Member → Gold', from: 'Member', to: 'Gold', amount: 0 }],
    });
    expect(note.quickpay.balance).toBe(saleRecord.quickpay.balance);
    expect(note.receipts).toEqual(saleRecord.receipts);
    expect(note.date).toBe(saleRecord.date);
    const row = await node.engine.db.selectFrom('transactions').select(['order_id', 'store_id']).where('id', '=', note.id).executeTakeFirstOrThrow();
    expect(Number(row.order_id)).toBe(sale.id);

    // A resend of the receipt answers the stored reply and writes nothing.
    node.clock.advance(HOUR);
    const again = await api.orderOk(v.apiKey, { card_number: email, receipt_number: number, till: 7, payment_method: 'card', subtotal: 60, quick_pay: 2.5 });
    expect(again).toEqual(sale);
    expect((await history(userId)).map((r) => r.id)).toEqual([saleRecord.id, note.id]);

    // Its void takes the tier back with its own note; the promotion's stays as it was.
    await voidSale(number);
    const after = await history(userId);
    expect(after.map((r) => r.object)).toEqual(['tier_change', 'void', 'order', 'tier_change']);
    expect(after[3]).toEqual(note);
    expect(await tierNotes(userId)).toEqual(['Gold → Member', 'Member → Gold']);
  });

  it('a sale that promotes nobody writes none (a small one, or one of a member whose tier already holds)', async () => {
    const { userId, email } = await newCustomer();
    await buy(email, 10);
    expect(await tierNotes(userId)).toEqual([]);
    await buy(email, 15);
    expect(await tierNotes(userId)).toEqual(['Member → Silver']);
    await buy(email, 5);
    expect(await tierNotes(userId)).toEqual(['Member → Silver']);
    expect((await history(userId)).map((r) => r.object)).toEqual(['order', 'order', 'tier_change', 'order']);
  });

  it('one record per promotion, however many tiers it passes: Member → Platinum, not a record per tier', async () => {
    const { userId, email } = await newCustomer();
    await buy(email, 150);
    expect(await tierNotes(userId)).toEqual(['Member → Platinum']);
  });

  it('a sale its till sends later (dated an hour ago) has its promotion dated with it, not when it arrived', async () => {
    const { userId, email } = await newCustomer();
    const date = Math.floor((node.clock.now() - HOUR) / 1000);
    await api.orderOk(v.apiKey, { card_number: email, receipt_number: receipt(), subtotal: 30, date });
    expect((await history(userId)).map((r) => [r.object, r.date])).toEqual([
      ['order', date],
      ['tier_change', date],
    ]);
  });
});

describe('a void takes back the tier its sale got', () => {
  it('back to the tier held before the sale, since when it was held, with a history note and the panel showing it', async () => {
    const { userId, email } = await newCustomer();
    const before = await membership(userId);
    const big = await buy(email, 60);
    expect(await tierOnPanel(email)).toBe('Gold');
    await voidSale(big);
    expect(await tierOnPanel(email)).toBe('Member');
    // The promotion never happened: the member's tier date is the one they had.
    expect(await membership(userId)).toEqual(before);
    const [note, voidRecord] = await history(userId);
    expect(voidRecord).toMatchObject({ object: 'void' });
    expect(note).toMatchObject({ object: 'tier_change', status: 'Complete', total: 0 });
    expect(note.rewards).toEqual([expect.objectContaining({ kind: 'tier', name: 'Gold → Member', from: 'Gold', to: 'Member' })]);
    expect(note.receipts).toEqual([expect.objectContaining({ receipt_number: big })]);

    // Voiding again answers the same and moves nothing more (the sale's own note of the promotion stays).
    await voidSale(big);
    expect(await tierNotes(userId)).toEqual(['Gold → Member', 'Member → Gold']);
  });

  it('also a tier without a window, which demotion never takes', async () => {
    const { userId, email } = await newCustomer();
    const big = await buy(email, 150);
    expect(await tierOnPanel(email)).toBe('Platinum');
    await voidSale(big);
    expect(await tierOnPanel(email)).toBe('Member');
    expect(await tierNotes(userId)).toEqual(['Platinum → Member', 'Member → Platinum']);
  });

  it('to the highest tier the points left reach (later sales count), never below the tier held before the sale; nobody moves when the points left hold the tier', async () => {
    // Promoted to Platinum by the big sale; a later sale of 55 alone reaches Gold.
    const a = await newCustomer();
    const big = await buy(a.email, 120);
    await buy(a.email, 55);
    await voidSale(big);
    expect(await tierOnPanel(a.email)).toBe('Gold');
    expect(await tierNotes(a.userId)).toEqual(['Platinum → Gold', 'Member → Platinum']);

    // Silver before the sale: Silver after its void, not the entry tier.
    const b = await newCustomer();
    await buy(b.email, 25);
    const silverSince = (await membership(b.userId)).tier_since;
    const gold = await buy(b.email, 30);
    expect(await tierOnPanel(b.email)).toBe('Gold');
    await voidSale(gold);
    expect(await tierOnPanel(b.email)).toBe('Silver');
    expect(await membership(b.userId)).toEqual({ tier_id: await tierId('Silver'), tier_since: silverSince });

    // Promoted to Silver by the first sale; the second alone holds Silver.
    const c = await newCustomer();
    const first = await buy(c.email, 25);
    await buy(c.email, 20);
    await voidSale(first);
    expect(await tierOnPanel(c.email)).toBe('Silver');

    // Gold before the sale: its void changes no tier.
    const d = await newCustomer();
    await buy(d.email, 60);
    const held = await membership(d.userId);
    const small = await buy(d.email, 10);
    await voidSale(small);
    expect(await tierOnPanel(d.email)).toBe('Gold');
    expect(await membership(d.userId)).toEqual(held);

    // Judged as of the promotion: a sale from before it voided after its window moved on takes
    // nothing the promotion did not need (5 + 30 + 25 reached Gold; 30 + 25 still do).
    const e = await newCustomer();
    const early = await buy(e.email, 5);
    await buy(e.email, 30);
    node.clock.advance(20 * DAY);
    await buy(e.email, 25);
    expect(await tierOnPanel(e.email)).toBe('Gold');
    node.clock.advance(25 * DAY);
    await voidSale(early);
    expect(await tierOnPanel(e.email)).toBe('Gold');
    // No take-back: each history holds only its sales' promotions.
    expect(await tierNotes(c.userId)).toEqual(['Member → Silver']);
    expect(await tierNotes(d.userId)).toEqual(['Member → Gold']);
    expect(await tierNotes(e.userId)).toEqual(['Silver → Gold', 'Member → Silver']);
  });

  it('keeps a tier staff set by hand before the sale (never below the tier held before it)', async () => {
    const { userId, email } = await newCustomer();
    const handSet = { tier_id: await tierId('Gold'), tier_since: node.clock.now() - HOUR };
    await node.engine.db.updateTable('user_vendors').set(handSet).where('user_id', '=', userId).execute();
    const big = await buy(email, 110);
    expect(await tierOnPanel(email)).toBe('Platinum');
    await voidSale(big);
    expect(await tierOnPanel(email)).toBe('Gold');
    expect(await membership(userId)).toEqual(handSet);
    expect(await tierNotes(userId)).toEqual(['Platinum → Gold', 'Gold → Platinum']);
  });

  it('a sale split in two: voiding the part that promoted nobody still takes back the tier its points got', async () => {
    const { userId, email } = await newCustomer();
    const most = await buy(email, 49);
    expect(await tierOnPanel(email)).toBe('Silver');
    await buy(email, 1);
    expect(await tierOnPanel(email)).toBe('Gold');
    await voidSale(most);
    expect(await tierOnPanel(email)).toBe('Member');
    expect(await tierNotes(userId)).toEqual(['Gold → Member', 'Silver → Gold', 'Member → Silver']);

    // Both parts voided, the first first: the second part alone held Silver, and the Silver held
    // before the second part was got by the first, so it is no floor once that is voided.
    const other = await newCustomer();
    const first = await buy(other.email, 25);
    const second = await buy(other.email, 30);
    expect(await tierOnPanel(other.email)).toBe('Gold');
    await voidSale(first);
    expect(await tierOnPanel(other.email)).toBe('Silver');
    await voidSale(second);
    expect(await tierOnPanel(other.email)).toBe('Member');
    expect(await tierNotes(other.userId)).toEqual(['Silver → Member', 'Gold → Silver', 'Silver → Gold', 'Member → Silver']);
  });
});

describe('a member with no tier (a membership from before the program had tiers)', () => {
  // Its own program: the entry tier asks 10 points, which a new member does not need to hold it.
  let w: VendorCredentials;
  let members = 0;
  beforeAll(async () => {
    w = await node.addVendor('No Tier Café');
    const list = await http(`${node.url}/tiers`, { token: w.accessToken });
    const entry = list.body.items[0];
    expect((await http(`${node.url}/tiers/${entry.id}`, { method: 'PUT', token: w.accessToken, body: { threshold: 10 } })).status).toBe(200);
    expect((await http(`${node.url}/tiers`, { method: 'POST', token: w.accessToken, body: { name: 'Gold', threshold: 50, window_days: null } })).status).toBe(201);
  });

  async function tierless(): Promise<{ userId: number; email: string }> {
    const email = `no.tier.${++members}@example.com`;
    const reply = await http(`${node.url}/onscreen/register?api_key=${w.apiKey}`, { method: 'POST', body: { email, first_name: 'Nia' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    await api.closeOk(w.apiKey, reply.body.pos_session.hash);
    const user = await node.engine.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    // A new member starts in the entry tier; no tier is what a membership older than the tiers has.
    await node.engine.db.updateTable('user_vendors').set({ tier_id: null }).where('user_id', '=', Number(user.id)).where('vendor_id', '=', w.vendorId).execute();
    return { userId: Number(user.id), email };
  }
  const tierName = async (userId: number) =>
    (
      await node.engine.db
        .selectFrom('user_vendors as uv')
        .leftJoin('tiers as t', 't.id', 'uv.tier_id')
        .select('t.name')
        .where('uv.user_id', '=', userId)
        .where('uv.vendor_id', '=', w.vendorId)
        .executeTakeFirstOrThrow()
    ).name;
  async function sell(email: string, subtotal: number): Promise<string> {
    const number = receipt();
    await api.orderOk(w.apiKey, { card_number: email, receipt_number: number, subtotal });
    node.clock.advance(HOUR);
    return number;
  }

  it('a sale places them in the entry tier at least, as a new member is, and its void leaves them there', async () => {
    const small = await tierless();
    const five = await sell(small.email, 5);
    expect(await tierName(small.userId)).toBe('Member');
    await api.voidOk(w.apiKey, five);
    expect(await tierName(small.userId)).toBe('Member');

    // Promoted past it by a sale: its void takes them to the entry tier, never back to no tier.
    const big = await tierless();
    const sixty = await sell(big.email, 60);
    expect(await tierName(big.userId)).toBe('Gold');
    await api.voidOk(w.apiKey, sixty);
    expect(await tierName(big.userId)).toBe('Member');
  });
});
