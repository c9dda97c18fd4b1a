import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { checkInDemoQueue, demoIdentifications, seedDemoData } from '../../src/server/node/demo/demo-data';
import { DEMO_PEOPLE, UNLINKED_DEMO_CARDS } from '../../src/server/node/demo/demo-people';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The demo's first run (issue 16): a program that tells the story, read back over the node's HTTP
// interface the way the cashier screen reads it.

describe('demo data', () => {
  let node: TestNode;
  let demo: VendorCredentials;
  const key = () => encodeURIComponent(demo.apiKey);

  beforeAll(async () => {
    node = await startTestNode();
    demo = (await seedDemoData(node.engine))!;
    await checkInDemoQueue(node.engine);
  }, 120_000);
  afterAll(() => node.close());

  async function panelOf(identification: string) {
    const checkIn = await http(`${node.url}/onscreen?api_key=${key()}`, { method: 'POST', body: { card_number: identification } });
    expect(checkIn.status, JSON.stringify(checkIn.body)).toBe(201);
    const panel = await http(`${node.url}/onscreen?api_key=${key()}&pos_session_hash=${checkIn.body.pos_session.hash}`);
    expect(panel.status).toBe(200);
    return panel.body;
  }

  it('is created once: a second seed on the same folder changes nothing', async () => {
    expect(await seedDemoData(node.engine)).toBeNull();
    const cards = await http(`${node.url}/cards?limit=100`, { token: demo.accessToken });
    expect(cards.body.items).toHaveLength(DEMO_PEOPLE.length + UNLINKED_DEMO_CARDS.length);
  });

  it('is the same demo at every first run: another fresh folder gets the same customers, balances and history', async () => {
    const other = await startTestNode();
    try {
      expect(await seedDemoData(other.engine)).not.toBeNull();
      const [mine, theirs] = await Promise.all([demoSummary(node.engine), demoSummary(other.engine)]);
      expect(mine).toHaveLength(DEMO_PEOPLE.length);
      expect(theirs).toEqual(mine);
    } finally {
      await other.close();
    }
  }, 120_000);

  it('has a program with rules, rewards, two tiers, expiry and two stores', async () => {
    const [rules, rewards, tiers, settings, stores] = await Promise.all(
      ['/earning-rules', '/rewards', '/tiers', '/program/settings', `/vendor/store/list?vendor=${demo.vendorId}`].map((path) => http(`${node.url}${path}`, { token: demo.accessToken })),
    );
    expect(rules!.body.items.length).toBeGreaterThanOrEqual(2);
    expect(rewards!.body.items.map((r: { cost: number }) => r.cost).sort((a: number, b: number) => a - b)).toEqual([50, 80, 120, 400]);
    expect(tiers!.body.items.map((t: { name: string }) => t.name).sort()).toEqual(['Gold', 'Member']);
    expect(settings!.body.points_expiry_days).toBe(90);
    expect(stores!.body.data.map((s: { name: string }) => s.name).sort()).toEqual(['Demo Coffee Downtown', 'Demo Coffee Mission']);
    // Both in San Francisco: found near it, their days Pacific days.
    for (const store of stores!.body.data) {
      expect(store.time_zone, store.name).toBe('America/Los_Angeles');
      expect(store.coordinates, store.name).toEqual({ latitude: expect.any(Number), longitude: expect.any(Number) });
    }
  });

  it('starts with customers already in the queue', async () => {
    const queue = await http(`${node.url}/onscreen/queue?api_key=${key()}`);
    expect(queue.body.map((e: any) => `${e.pos_session.user.first_name} ${e.pos_session.user.last_name}`)).toEqual(['Ben Okafor', 'Daniel Kim', 'Farid Haddad']);
  });

  it('checks in every identification the start-up message lists, with balances and history', async () => {
    const tries = demoIdentifications()
      .map((line) => /^(card|phone|email) (\S+(?: \S+)?)\s{2}\(/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => m[2]!);
    expect(tries.length).toBeGreaterThanOrEqual(3);
    for (const identification of tries.filter((t) => !UNLINKED_DEMO_CARDS.includes(t))) {
      const panel = await panelOf(identification);
      expect(panel.loyalty_balance.data[0].amount, identification).toBeGreaterThan(0);
      expect(panel.favourite_items.length, identification).toBeGreaterThan(0);
      expect(panel.last_visit, identification).not.toBeNull();
      const history = await http(`${node.url}/user/transaction/list?api_key=${key()}&user=${panel.user.id}`);
      expect(history.body.count, identification).toBeGreaterThan(0);
    }
  });

  it('gives Ana (the README customer) Gold, quick pay, auto reload and a saved card', async () => {
    const panel = await panelOf('DEMO0001');
    expect(panel.user.first_name).toBe('Ana');
    expect(panel.user.tier?.name ?? panel.rules.tier?.current?.name).toBe('Gold');
    expect(panel.quick_pay_balance.amount).toBeGreaterThanOrEqual(10);
    expect(panel.reload.amount).toBe(25);
    expect(panel.reload.billing_profile).not.toBeNull();
  });

  it('varies balances and tiers, and has points about to expire', async () => {
    const rows = await node.engine.db
      .selectFrom('user_vendors as uv')
      .innerJoin('tiers as t', 't.id', 'uv.tier_id')
      .select(['t.name', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('t.name')
      .execute();
    const byTier = Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
    expect(byTier.Gold).toBeGreaterThanOrEqual(3);
    expect(byTier.Member).toBeGreaterThanOrEqual(30);
    const soon = await node.engine.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', 'earn')
      .where('expires_at', '<', node.clock.now() + 14 * 24 * 3600_000)
      .where('expires_at', '>', node.clock.now())
      .executeTakeFirstOrThrow();
    expect(Number(soon.n)).toBeGreaterThan(0);
    expect(await findBalanceMismatches(node.engine.db)).toEqual([]);
  });

  it('keeps the new cards unlinked, for the register-with-this-card story', async () => {
    const reply = await http(`${node.url}/onscreen?api_key=${key()}`, { method: 'POST', body: { card_number: UNLINKED_DEMO_CARDS[0] } });
    expect(reply.status).toBe(404);
    expect(reply.body.error.errors[0].reason).toBe('card_not_linked');
  });
});

/** Everything a demo customer shows, without the node's ids: card, person, tier, reload, balances, ledger and orders. */
async function demoSummary(engine: Engine) {
  const customers = await engine.db
    .selectFrom('user_cards as uc')
    .innerJoin('cards as c', 'c.id', 'uc.card_id')
    .innerJoin('users as u', 'u.id', 'uc.user_id')
    .innerJoin('user_vendors as uv', 'uv.user_id', 'uc.user_id')
    .leftJoin('tiers as t', 't.id', 'uv.tier_id')
    .select(['uc.user_id', 'c.number', 'u.first_name', 'u.last_name', 'u.email', 'u.phone', 't.name as tier', 'uv.reload_amount', 'uv.reload_threshold'])
    .orderBy('c.number')
    .execute();
  return Promise.all(
    customers.map(async ({ user_id, ...customer }) => ({
      ...customer,
      ledger: await engine.db
        .selectFrom('ledger_accounts as la')
        .innerJoin('currencies as cu', 'cu.id', 'la.currency_id')
        .innerJoin('ledger_entries as le', 'le.account_id', 'la.id')
        .select(['cu.name', 'la.balance', 'le.kind', 'le.amount', 'le.created_at', 'le.expires_at'])
        .where('la.holder_type', '=', 'user')
        .where('la.holder_id', '=', user_id)
        .orderBy('cu.name')
        .orderBy('le.created_at')
        .orderBy('le.kind')
        .orderBy('le.amount')
        .execute(),
      orders: await engine.db
        .selectFrom('orders as o')
        .innerJoin('stores as s', 's.id', 'o.store_id')
        .select(['s.name', 'o.receipt_number', 'o.ordered_at', 'o.total', 'o.items', 'o.payment_method', 'o.quick_pay_used', 'o.points_earned', 'o.points_spent'])
        .where('o.user_id', '=', user_id)
        .orderBy('o.ordered_at')
        .execute(),
    })),
  );
}
