import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { removeUserCard } from '../../src/core/user-cards/remove-user-card';
import { ROOMY_RATE_LIMITS } from '../support/customers';
import { expectBalancesAddUp, inStoreApi } from '../support/in-store';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// An unlinked card at the counter (issue 16) and the value it carries (issue 17, item 2), over real
// HTTP: POST /onscreen/register with card_number registers a new customer with the card, or (cashier
// only) links it to the customer the phone or email finds.

let node: TestNode;
let v: VendorCredentials;
let cardCount = 0;
let emailCount = 0;
const enc = encodeURIComponent;
const api = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  v = await node.addVendor('Card Counter');
});
afterAll(() => node?.close());
afterEach(() => expectBalancesAddUp(node));

async function newCard(vendor = v, options: { status?: string } = {}): Promise<string> {
  const number = `NEW${String(++cardCount).padStart(5, '0')}`;
  const made = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number } });
  expect(made.status).toBe(201);
  if (options.status) expect((await http(`${node.url}/cards/${made.body.id}`, { method: 'PUT', token: vendor.accessToken, body: { status: options.status } })).status).toBe(200);
  return number;
}
const freshEmail = () => `counter.${++emailCount}@example.com`;
const register = (apiKey: string, body: unknown): Promise<HttpReply> => http(`${node.url}/onscreen/register?api_key=${enc(apiKey)}`, { method: 'POST', body });
const reasonOf = (reply: HttpReply) => reply.body.error.errors[0].reason as string;

/** Who a card checks in now (its panel's user id), or the refusal's reason. */
async function holderOf(card: string): Promise<string | number> {
  const reply = await api.checkIn(v.apiKey, card);
  if (reply.status !== 201) return reasonOf(reply);
  const panel = await api.retrieveOk(v.apiKey, reply.body.pos_session.hash);
  await api.closeOk(v.apiKey, reply.body.pos_session.hash);
  return Number(panel.user.id);
}

async function closeSession(body: any): Promise<void> {
  await api.closeOk(v.apiKey, body.pos_session.hash);
}

describe('registering with an unlinked card', () => {
  it('the cashier registers a new customer and links the card in the same step', async () => {
    const card = await newCard();
    expect(await holderOf(card)).toBe('card_not_linked');
    const email = freshEmail();
    const reply = await register(v.apiKey, { email, first_name: 'Nina', last_name: 'Park', card_number: card.toLowerCase() });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const panel = await api.retrieveOk(v.apiKey, reply.body.pos_session.hash);
    expect(panel.user.first_name).toBe('Nina');
    expect(panel.pos_session.card).toBe(card);
    await closeSession(reply.body);
    expect(await holderOf(card)).toBe(Number(panel.user.id));
  });

  it('the cashier links the card to the customer found by phone', async () => {
    const first = await register(v.apiKey, { phone_number: { number: '(415) 555-0190', code: '1' } });
    expect(first.status).toBe(201);
    const userId = Number((await api.retrieveOk(v.apiKey, first.body.pos_session.hash)).user.id);
    await closeSession(first.body);
    const card = await newCard();
    const linked = await register(v.apiKey, { phone_number: { number: '4155550190' }, card_number: card });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    await closeSession(linked.body);
    expect(await holderOf(card)).toBe(userId);
  });

  it('the kiosk joins a new customer with the card', async () => {
    const card = await newCard();
    const reply = await register(v.kioskApiKey, { email: freshEmail(), card_number: card });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    await closeSession(reply.body);
    expect(typeof (await holderOf(card))).toBe('number');
  });

  it('the kiosk may not attach a card to an existing account: 403, nothing changes', async () => {
    const email = freshEmail();
    await closeSession(await register(v.apiKey, { email }).then((r) => r.body));
    const card = await newCard();
    const users = await api.userCount();
    const reply = await register(v.kioskApiKey, { email, card_number: card });
    expect(reply.status).toBe(403);
    expect(reasonOf(reply)).toBe('card_link_at_counter');
    expect(reply.body.error.errors[0].message).toMatch(/counter/);
    expect(await holderOf(card)).toBe('card_not_linked');
    expect(await api.queueHashes(v.apiKey)).toEqual([]);
    expect(await api.userCount()).toBe(users);
  });

  it("a customer of another program only: the kiosk may not attach the card (403), the counter links it and they join", async () => {
    const other = await node.addVendor('Elsewhere Program');
    const email = freshEmail();
    const there = await register(other.apiKey, { email, first_name: 'Ola' });
    expect(there.status).toBe(201);
    const userId = Number((await api.retrieveOk(other.apiKey, there.body.pos_session.hash)).user.id);
    await api.closeOk(other.apiKey, there.body.pos_session.hash);
    const card = await newCard();
    const users = await api.userCount();

    const atKiosk = await register(v.kioskApiKey, { email, card_number: card });
    expect(atKiosk.status).toBe(403);
    expect(reasonOf(atKiosk)).toBe('card_link_at_counter');
    expect(await holderOf(card)).toBe('card_not_linked');

    const atCounter = await register(v.apiKey, { email, card_number: card });
    expect(atCounter.status, JSON.stringify(atCounter.body)).toBe(201);
    await closeSession(atCounter.body);
    expect(await holderOf(card)).toBe(userId);
    expect(await api.userCount()).toBe(users);
  });

  it("refuses another program's card, someone else's card and an archived card, creating nobody", async () => {
    const other = await node.addVendor('Other Program');
    const foreign = await newCard(other);
    const taken = await newCard();
    await closeSession((await register(v.apiKey, { email: freshEmail(), card_number: taken })).body);
    const archived = await newCard(v, { status: 'ARCHIVED' });
    const users = await api.userCount();
    for (const [card, status, reason] of [
      [foreign, 404, 'card_not_found'],
      [taken, 409, 'card_already_linked'],
      [archived, 422, 'card_not_active'],
      ['not a card!', 400, 'invalid_card_number'],
    ] as const) {
      const reply = await register(v.apiKey, { email: freshEmail(), card_number: card });
      expect(reply.status, card).toBe(status);
      expect(reasonOf(reply), card).toBe(reason);
    }
    expect(await api.userCount()).toBe(users);
    expect(await api.queueHashes(v.apiKey)).toEqual([]);
  });
});

describe('value on an unlinked card (issue 17, item 2)', () => {
  async function giftCard(quickPayCents: number, points: number): Promise<{ number: string; id: number }> {
    const number = await newCard();
    const card = await node.engine.db.selectFrom('cards').select('id').where('number', '=', number).executeTakeFirstOrThrow();
    await transact(node.engine, async (trx) => {
      for (const [currencyId, amount] of [
        [v.quickPayCurrencyId, quickPayCents],
        [v.loyaltyCurrencyId, points],
      ] as const) {
        if (amount === 0) continue;
        const account = await openAccount(trx, node.engine, { vendorId: v.vendorId, currencyId, holderType: 'card', holderId: card.id });
        await postEntry(trx, node.engine, account, { amount, kind: 'gift_card_load' });
      }
    });
    return { number, id: card.id };
  }

  it('moves to the customer on link, with a history record, and the card is empty', async () => {
    const card = await giftCard(1500, 40);
    const before = await http(`${node.url}/card/balance?vendor=${v.vendorId}&number=${card.number}`);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const reply = await register(v.apiKey, { email: freshEmail(), card_number: card.number });
    expect(reply.status).toBe(201);
    const panel = await api.retrieveOk(v.apiKey, reply.body.pos_session.hash);
    expect(panel.quick_pay_balance.amount).toBe(15);
    expect(panel.loyalty_balance.data[0].amount).toBe(40);
    await closeSession(reply.body);
    const history = await http(`${node.url}/user/transaction/list?api_key=${enc(v.apiKey)}&user=${panel.user.id}`);
    expect(history.body.data).toHaveLength(1);
    expect(history.body.data[0]).toMatchObject({ object: 'card_link', quickpay: { loaded: 15, used: 0, balance: 15 }, status: 'Complete' });
    expect(history.body.data[0].rewards).toEqual([expect.objectContaining({ amount: 40, currency: 'Points' })]);
    const cardAccounts = await node.engine.db.selectFrom('ledger_accounts').select('balance').where('holder_type', '=', 'card').where('holder_id', '=', card.id).execute();
    expect(cardAccounts.map((a) => Number(a.balance))).toEqual([0, 0]);
  });

  it('is not moved twice, and the card never links to a second customer', async () => {
    const card = await giftCard(500, 0);
    const first = await register(v.apiKey, { email: freshEmail(), card_number: card.number });
    const firstUser = Number((await api.retrieveOk(v.apiKey, first.body.pos_session.hash)).user.id);
    await closeSession(first.body);
    // The same customer linking again: nothing moves again.
    const again = await register(v.apiKey, { email: (await node.engine.db.selectFrom('users').select('email').where('id', '=', firstUser).executeTakeFirstOrThrow()).email!, card_number: card.number });
    expect(again.status).toBe(201);
    expect((await api.retrieveOk(v.apiKey, again.body.pos_session.hash)).quick_pay_balance.amount).toBe(5);
    await closeSession(again.body);
    // The first customer lets the card go; a second customer may not take it.
    const link = await node.engine.db.selectFrom('user_cards').select('id').where('user_id', '=', firstUser).executeTakeFirstOrThrow();
    await removeUserCard(node.engine, { sessionId: 0, userId: firstUser, vendorId: v.vendorId }, link.id);
    const second = await register(v.apiKey, { email: freshEmail(), card_number: card.number });
    expect(second.status).toBe(409);
    expect(reasonOf(second)).toBe('card_value_claimed');
    // Its first owner can link it back.
    const back = await register(v.apiKey, { email: (await node.engine.db.selectFrom('users').select('email').where('id', '=', firstUser).executeTakeFirstOrThrow()).email!, card_number: card.number });
    expect(back.status).toBe(201);
    await closeSession(back.body);
  });
});
