import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOfflinePolicy } from '../../src/core/sync/central/offline-policy';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { registerOkAt, ROOMY_RATE_LIMITS } from '../support/customers';
import { DEFAULT_RULE, inStoreApi, receiptCounter } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The program and customers' block in the back office over real HTTP: the program as the bearer API
// has it, a rule changed here applied at the next order, the node's own validation messages, each
// change in the audit log; a blocked customer refused at check-in and at orders; who may do what.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let manager: SignedInStaff;
let storeManager: SignedInStaff;
let otherOwner: SignedInStaff;
const newReceipt = receiptCounter('bo');
const store = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Café Andino');
  owner = await ownerOf(node, vendor.vendorId);
  manager = await invitedStaff(node, owner, 'manager');
  storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
  otherOwner = await ownerOf(node, (await node.addVendor()).vendorId);
});

afterAll(async () => {
  await node?.close();
});

const program = async (who: SignedInStaff = owner) => {
  const reply = await staffCall(node, who.token, 'GET', '/backoffice/program');
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
};
const lastAudit = async (objectType: string) => (await staffCall(node, owner.token, 'GET', `/backoffice/audit?object_type=${objectType}&limit=1`)).body.items[0];

describe('the program', () => {
  it('shows what the bearer API has: currencies, the default rule, settings, offline caps not applicable on a standalone store, content pages in en and es', async () => {
    const p = await program(storeManager);
    expect(p.editable).toBe(true);
    expect(p.currencies.map((c: { name: string; code: string | null }) => [c.name, c.code])).toEqual([
      ['Points', null],
      ['Quick Pay USD', 'USD'],
    ]);
    // which one holds quick pay, for the pause dialog to say what pausing it stops
    expect(p.quick_pay_currency).toBe(p.currencies[1].id);
    // the vendor's country, so Spanish amounts read as it writes them
    expect(p.country).toBe('US');
    expect(p.earning_rules).toHaveLength(1);
    expect(p.earning_rules[0]).toMatchObject({ name: DEFAULT_RULE, points: 1, per_amount: 1, rounding: 'floor', status: 'ACTIVE' });
    expect(p.settings).toMatchObject({ points_expiry_days: null, referral_points: 0, egift_max_amount: null, reload_max_amount: null });
    expect(p.offline_caps).toEqual({ apply: 'not_applicable', quick_pay_per_order: null, quick_pay_per_day: null, points_per_order: null, points_per_day: null });
    expect(p.content.map((c: { slug: string; language: string }) => `${c.slug}/${c.language}`)).toEqual([
      'terms-of-service/en',
      'terms-of-service/es',
      'privacy-policy/en',
      'privacy-policy/es',
      'faq/en',
      'faq/es',
    ]);
  });

  it('a rule changed here is applied at the next order, and the audit log has it before and after', async () => {
    const { email } = await registerOkAt(node, vendor.vendorId, { first_name: 'Ana', last_name: 'López' });
    const first = await store.orderOk(vendor.apiKey, { card_number: email, receipt_number: newReceipt(), subtotal: 20 });
    expect(first.points_earned).toBe(20);

    const rule = (await program()).earning_rules[0];
    const changed = await staffCall(node, manager.token, 'PUT', `/backoffice/program/earning-rules/${rule.id}`, { points: 3 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ id: rule.id, points: 3, per_amount: 1 });

    const next = await store.orderOk(vendor.apiKey, { card_number: email, receipt_number: newReceipt(), subtotal: 20 });
    expect(next.points_earned).toBe(60);

    expect(await lastAudit('earning_rule')).toMatchObject({ actor: manager.email, action: 'earning_rule.update', object_id: rule.id, before: { points: 1 }, after: { points: 3 } });
  });

  it('answers with the node’s own validation messages and changes nothing', async () => {
    const rule = (await program()).earning_rules[0];
    const cash = (await program()).currencies.find((c: { code: string | null }) => c.code === 'USD');
    const wrongCurrency = await staffCall(node, owner.token, 'PUT', `/backoffice/program/earning-rules/${rule.id}`, { currency: cash.id });
    expect([wrongCurrency.status, wrongCurrency.body.code, wrongCurrency.body.message]).toEqual([422, 'currency_not_loyalty', 'Quick Pay USD is a cash currency (USD); rules and rewards count in a loyalty currency.']);
    const badTier = await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: 'Gold', threshold: -1 });
    expect([badTier.status, badTier.body.code, badTier.body.field]).toEqual([400, 'validation_failed', 'threshold']);
    const unknown = await staffCall(node, owner.token, 'PUT', '/backoffice/program/rewards/rwd_nothing', { cost: 5 });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'reward_not_found']);
    expect((await program()).earning_rules[0]).toMatchObject({ currency: rule.currency, points: rule.points });
  });

  it('adds a reward and a tier, sets points expiry and a content page, each audited', async () => {
    const points = (await program()).currencies.find((c: { code: string | null }) => c.code === null);
    const reward = await staffCall(node, owner.token, 'POST', '/backoffice/program/rewards', { name: 'Free coffee', cost: 50, currency: points.id });
    expect(reward.status, JSON.stringify(reward.body)).toBe(201);
    expect(await lastAudit('reward')).toMatchObject({ action: 'reward.create', object_id: reward.body.id, before: null, after: { name: 'Free coffee', cost: 50 } });
    const tier = await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: 'Gold', threshold: 200, window_days: 90 });
    expect(tier.status, JSON.stringify(tier.body)).toBe(201);
    const settings = await staffCall(node, owner.token, 'PUT', '/backoffice/program/settings', { points_expiry_days: 90 });
    expect(settings.body).toMatchObject({ points_expiry_days: 90, referral_points: 0, egift_max_amount: null });
    expect(await lastAudit('program')).toMatchObject({ action: 'program.update_settings', before: { pointsExpiryDays: null }, after: { pointsExpiryDays: 90 } });
    const page = await staffCall(node, owner.token, 'PUT', '/backoffice/program/content/faq', { language: 'es', title: 'Preguntas', content: '<p>¿Cómo gano puntos?</p>' });
    expect(page.body).toMatchObject({ slug: 'faq', language: 'es', title: 'Preguntas', version: 1 });
    const shown = (await program()).content.find((c: { slug: string; language: string }) => c.slug === 'faq' && c.language === 'es');
    expect(shown).toMatchObject({ title: 'Preguntas', content: '<p>¿Cómo gano puntos?</p>' });
    const p = await program();
    expect(p.rewards.map((r: { name: string }) => r.name)).toContain('Free coffee');
    expect(p.tiers.map((t: { name: string; threshold: number }) => [t.name, t.threshold])).toContainEqual(['Gold', 200]);
  });

  it('audits a content page written again with the page it replaced as before', async () => {
    const put = (title: string) => staffCall(node, owner.token, 'PUT', '/backoffice/program/content/privacy-policy', { language: 'en', title, content: `<p>${title}</p>` });
    expect((await put('Terms v1')).status).toBe(200);
    expect(await lastAudit('content')).toMatchObject({ action: 'content.update', object_id: 'privacy-policy/en', before: null, after: { title: 'Terms v1', version: 1 } });
    expect((await put('Terms v2')).status).toBe(200);
    expect(await lastAudit('content')).toMatchObject({ action: 'content.update', object_id: 'privacy-policy/en', before: { title: 'Terms v1', version: 1 }, after: { title: 'Terms v2', version: 2 } });
  });

  it('audits a switch of the quick-pay currency with the settings it restated, each side in its own code’s minor units', async () => {
    const other = await node.addVendor('Yen Switch');
    const boss = await ownerOf(node, other.vendorId);
    const own = async () => (await staffCall(node, boss.token, 'GET', '/backoffice/program')).body;
    const stars = await staffCall(node, boss.token, 'POST', '/backoffice/program/earning-rules', { name: 'Stars', currency: (await own()).currencies.find((c: { code: string | null }) => c.code === null).id, points: 1, per_amount: 3 });
    expect(stars.status, JSON.stringify(stars.body)).toBe(201);
    await setOfflinePolicy(node.engine, { vendorId: other.vendorId }, { quickPayPerOrder: 5_000, quickPayPerDay: 20_000 });
    expect((await staffCall(node, boss.token, 'PUT', '/backoffice/program/settings', { egift_max_amount: 2_500 })).status).toBe(200);
    const cash = (await own()).currencies.find((c: { code: string | null }) => c.code === 'USD');
    const defaultRule = (await own()).earning_rules.find((r: { name: string }) => r.name === DEFAULT_RULE);
    const audited = async () => (await staffCall(node, boss.token, 'GET', '/backoffice/audit?object_type=currency&limit=1')).body.items[0];

    const yen = await staffCall(node, boss.token, 'PUT', `/backoffice/program/currencies/${cash.id}`, { code: 'JPY' });
    expect(yen.status, JSON.stringify(yen.body)).toBe(200);
    const entry = await audited();
    expect(entry).toMatchObject({ action: 'currency.update', object_id: cash.id, before: { code: 'USD' }, after: { code: 'JPY' } });
    expect([entry.before.program_money, entry.after.program_money]).toEqual([
      {
        earning_rules: [
          { id: defaultRule.id, name: DEFAULT_RULE, per_amount: 100 },
          { id: stars.body.id, name: 'Stars', per_amount: 300 },
        ],
        offline_quick_pay_per_order: 5_000,
        offline_quick_pay_per_day: 20_000,
        egift_max_amount: 2_500,
        reload_max_amount: null,
      },
      {
        earning_rules: [
          { id: defaultRule.id, name: DEFAULT_RULE, per_amount: 1 },
          { id: stars.body.id, name: 'Stars', per_amount: 3 },
        ],
        offline_quick_pay_per_order: 50,
        offline_quick_pay_per_day: 200,
        egift_max_amount: 25,
        reload_max_amount: null,
      },
    ]);

    // Same digits (JPY to KRW) restate nothing, and a change of name neither: no program_money.
    expect((await staffCall(node, boss.token, 'PUT', `/backoffice/program/currencies/${cash.id}`, { code: 'KRW' })).status).toBe(200);
    const won = await audited();
    expect([won.before.code, won.after.code, 'program_money' in won.before, 'program_money' in won.after]).toEqual(['JPY', 'KRW', false, false]);
    expect((await staffCall(node, boss.token, 'PUT', `/backoffice/program/currencies/${cash.id}`, { name: 'Quick Pay' })).status).toBe(200);
    expect('program_money' in (await audited()).after).toBe(false);
  });

  it('edits an existing reward (name, cost, status) and tier (name, threshold), each audited with before and after', async () => {
    const points = (await program()).currencies.find((c: { code: string | null }) => c.code === null);
    const reward = (await staffCall(node, owner.token, 'POST', '/backoffice/program/rewards', { name: 'Muffin', cost: 80, currency: points.id })).body;
    const edited = await staffCall(node, manager.token, 'PUT', `/backoffice/program/rewards/${reward.id}`, { name: 'Blueberry muffin', cost: 60, status: 'INACTIVE' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body).toMatchObject({ id: reward.id, name: 'Blueberry muffin', cost: 60, status: 'INACTIVE' });
    expect(await lastAudit('reward')).toMatchObject({
      actor: manager.email,
      action: 'reward.update',
      object_id: reward.id,
      before: { name: 'Muffin', cost: 80, status: 'ACTIVE' },
      after: { name: 'Blueberry muffin', cost: 60, status: 'INACTIVE' },
    });
    expect((await program()).rewards.find((r: { id: string }) => r.id === reward.id)).toMatchObject({ name: 'Blueberry muffin', cost: 60, status: 'INACTIVE' });

    const silver = (await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: 'Silver', threshold: 100 })).body;
    const platinum = (await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: 'Platinum', threshold: 1000 })).body;
    const renamed = await staffCall(node, manager.token, 'PUT', `/backoffice/program/tiers/${silver.id}`, { name: 'Plata', threshold: 150 });
    expect(renamed.body).toMatchObject({ id: silver.id, name: 'Plata', threshold: 150 });
    expect(await lastAudit('tier')).toMatchObject({ action: 'tier.update', object_id: silver.id, before: { name: 'Silver', threshold: 100 }, after: { name: 'Plata', threshold: 150 } });

    // Another tier's threshold: the node's 409, and nothing changes (nor is audited).
    const taken = await staffCall(node, manager.token, 'PUT', `/backoffice/program/tiers/${silver.id}`, { threshold: platinum.threshold });
    expect([taken.status, taken.body.code, taken.body.field]).toEqual([409, 'tier_threshold_taken', 'threshold']);
    expect((await program()).tiers.find((t: { id: string }) => t.id === silver.id)).toMatchObject({ name: 'Plata', threshold: 150 });
    expect(await lastAudit('tier')).toMatchObject({ action: 'tier.update', after: { threshold: 150 } });
  });

  it('offline caps are set at central: a standalone store says so', async () => {
    const reply = await staffCall(node, owner.token, 'PUT', '/backoffice/program/offline-caps', { points_per_order: 100 });
    expect([reply.status, reply.body.code]).toEqual([409, 'offline_caps_at_central']);
  });
});

describe('blocking a customer', () => {
  it('refuses them at check-in and at orders with customer_blocked until unblocked; both audited', async () => {
    const { email, user } = await registerOkAt(node, vendor.vendorId, { first_name: 'Beto', last_name: 'Ruiz' });
    const id = Number(user.id);
    const noReason = await staffCall(node, manager.token, 'POST', `/backoffice/customers/${id}/block`, { reason: ' ' });
    expect([noReason.status, noReason.body.field]).toEqual([400, 'reason']);
    const blocked = await staffCall(node, manager.token, 'POST', `/backoffice/customers/${id}/block`, { reason: 'Chargeback fraud' });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(200);
    expect(blocked.body).toMatchObject({ blocked: true, blocked_reason: 'Chargeback fraud' });
    expect((await staffCall(node, manager.token, 'GET', `/backoffice/customers/${id}`)).body).toMatchObject({ blocked: true, blocked_reason: 'Chargeback fraud' });

    const checkIn = await store.checkIn(vendor.apiKey, email);
    expect([checkIn.status, checkIn.body.error.errors[0].reason]).toEqual([403, 'customer_blocked']);
    const order = await store.postOrder(vendor.apiKey, { card_number: email, receipt_number: newReceipt(), subtotal: 5 });
    expect([order.status, order.body.error.errors[0].reason]).toEqual([403, 'customer_blocked']);
    // Registering "again" at the counter with their email checks an existing customer in: refused too.
    const register = await http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(vendor.apiKey)}`, { method: 'POST', body: { email } });
    expect([register.status, register.body.error.errors[0].reason]).toEqual([403, 'customer_blocked']);
    const again = await staffCall(node, manager.token, 'POST', `/backoffice/customers/${id}/block`, { reason: 'Twice' });
    expect([again.status, again.body.code]).toEqual([409, 'invalid_status_transition']);

    const unblocked = await staffCall(node, owner.token, 'POST', `/backoffice/customers/${id}/unblock`);
    expect(unblocked.body).toEqual({ blocked: false, blocked_reason: null, blocked_at: null });
    await store.checkInOk(vendor.apiKey, email);
    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=customer&limit=2')).body.items;
    expect(audit.map((e: { action: string; actor: string }) => [e.action, e.actor])).toEqual([
      ['customer.unblock', owner.email],
      ['customer.block', manager.email],
    ]);
    expect(audit[1]).toMatchObject({ before: { blocked: false, reason: null }, after: { blocked: true, reason: 'Chargeback fraud' } });
  });
});

describe('blocking a customer at a paired store', () => {
  // The block travels central → store with the membership row; a store's own block is not
  // accepted by central and its next pull puts the membership back as central has it.
  it('is left to central: block and unblock are 409 blocking_managed_by_central and change nothing', async () => {
    const { user } = await registerOkAt(node, vendor.vendorId, { first_name: 'Paz', last_name: 'Mora' });
    const id = Number(user.id);
    node.engine.programRole = 'replica';
    try {
      const block = await staffCall(node, manager.token, 'POST', `/backoffice/customers/${id}/block`, { reason: 'Chargeback fraud' });
      expect([block.status, block.body.code]).toEqual([409, 'blocking_managed_by_central']);
      const unblock = await staffCall(node, manager.token, 'POST', `/backoffice/customers/${id}/unblock`);
      expect([unblock.status, unblock.body.code]).toEqual([409, 'blocking_managed_by_central']);
      expect((await staffCall(node, manager.token, 'GET', `/backoffice/customers/${id}`)).body).toMatchObject({ blocked: false });
    } finally {
      node.engine.programRole = 'owner';
    }
  });
});

describe('blocking a customer who left the program and came back', () => {
  it('blocks and shows their current membership, not the one they left', async () => {
    const { email, user } = await registerOkAt(node, vendor.vendorId, { first_name: 'Vera', last_name: 'Luz' });
    const id = Number(user.id);
    // They left (their membership kept as removed, as leaving one of two programs does) and joined again at the counter.
    await node.engine.db.updateTable('user_vendors').set({ removed_at: Date.now() }).where('user_id', '=', id).where('vendor_id', '=', vendor.vendorId).execute();
    const rejoined = await http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(vendor.apiKey)}`, { method: 'POST', body: { email } });
    expect(rejoined.status, JSON.stringify(rejoined.body)).toBe(201);
    const memberships = await node.engine.db.selectFrom('user_vendors').select(['removed_at']).where('user_id', '=', id).where('vendor_id', '=', vendor.vendorId).orderBy('id').execute();
    expect(memberships.map((m) => m.removed_at === null)).toEqual([false, true]);

    const blocked = await staffCall(node, manager.token, 'POST', `/backoffice/customers/${id}/block`, { reason: 'Chargeback fraud' });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(200);
    expect((await staffCall(node, manager.token, 'GET', `/backoffice/customers/${id}`)).body).toMatchObject({ blocked: true, blocked_reason: 'Chargeback fraud' });
    const checkIn = await store.checkIn(vendor.apiKey, email);
    expect([checkIn.status, checkIn.body.error?.errors[0].reason]).toEqual([403, 'customer_blocked']);
  });
});

describe('who may do what (the node decides, per role and store)', () => {
  type Who = 'owner' | 'manager' | 'storeManager' | 'otherVendor' | 'nobody';
  const tokenOf = (who: Who) => ({ owner: owner.token, manager: manager.token, storeManager: storeManager.token, otherVendor: otherOwner.token, nobody: null })[who];
  const ruleId = async () => (await program()).earning_rules[0].id as string;
  const customerId = async () => Number((await registerOkAt(node, vendor.vendorId, { first_name: 'M', last_name: 'X' })).user.id);
  let secondStoreId = 0;
  const secondStore = async () => {
    if (secondStoreId === 0) secondStoreId = (await staffCall(node, owner.token, 'POST', '/backoffice/stores', { name: 'Second', address: '2 Side St', city: 'Springfield', country: 'US' })).body.id;
    return secondStoreId;
  };

  // [call, expected status for owner, manager, store manager, another vendor's owner, no token].
  const MATRIX: Array<[string, () => Promise<[string, string, unknown?]>, [number, number, number, number, number]]> = [
    ['read the program', async () => ['GET', '/backoffice/program'], [200, 200, 200, 200, 401]],
    ['add a currency', async () => ['POST', '/backoffice/program/currencies', { name: `Stars ${Math.random()}` }], [201, 201, 403, 201, 401]],
    ['change an earning rule', async () => ['PUT', `/backoffice/program/earning-rules/${await ruleId()}`, { points: 1 }], [200, 200, 403, 404, 401]],
    ['add an earning rule', async () => ['POST', '/backoffice/program/earning-rules', { name: 'x', currency: 'curr_none', points: 1, per_amount: 1 }], [422, 422, 403, 422, 401]],
    ['add a reward', async () => ['POST', '/backoffice/program/rewards', { name: 'x', cost: 1, currency: 'curr_none' }], [422, 422, 403, 422, 401]],
    ['change a reward', async () => ['PUT', '/backoffice/program/rewards/rwd_none', { cost: 1 }], [404, 404, 403, 404, 401]],
    ['add a tier', async () => ['POST', '/backoffice/program/tiers', { name: `T${randomBytes(4).toString('hex')}`, threshold: Math.floor(Math.random() * 1e6) + 1000 }], [201, 201, 403, 201, 401]],
    ['change a tier', async () => ['PUT', '/backoffice/program/tiers/tier_none', { name: 'T' }], [404, 404, 403, 404, 401]],
    ['change a currency', async () => ['PUT', '/backoffice/program/currencies/curr_none', { name: 'T' }], [404, 404, 403, 404, 401]],
    ['set points expiry', async () => ['PUT', '/backoffice/program/settings', { points_expiry_days: 90 }], [200, 200, 403, 200, 401]],
    ['set offline caps (a store node)', async () => ['PUT', '/backoffice/program/offline-caps', { points_per_day: 10 }], [409, 409, 403, 409, 401]],
    ['set a content page', async () => ['PUT', '/backoffice/program/content/faq', { title: 'FAQ', content: '<p>x</p>' }], [200, 200, 403, 200, 401]],
    ['block a customer', async () => ['POST', `/backoffice/customers/${await customerId()}/block`, { reason: 'Matrix' }], [200, 200, 403, 404, 401]],
    ['unblock a customer', async () => ['POST', `/backoffice/customers/${await customerId()}/unblock`], [409, 409, 403, 404, 401]],
    ['read the dashboard', async () => ['GET', '/backoffice/dashboard'], [200, 200, 200, 200, 401]],
    ['read the dashboard of own store', async () => ['GET', `/backoffice/dashboard?store=${vendor.storeId}`], [200, 200, 200, 404, 401]],
    ['read the dashboard of another store', async () => ['GET', `/backoffice/dashboard?store=${await secondStore()}`], [200, 200, 403, 404, 401]],
    ['read the chain', async () => ['GET', '/backoffice/chain'], [200, 200, 200, 200, 401]],
    ['read the chain of another store', async () => ['GET', `/backoffice/chain?store=${await secondStore()}`], [200, 200, 403, 404, 401]],
    ['resolve a sync exception', async () => ['POST', '/backoffice/chain/exceptions/999999/resolve', { note: 'Checked' }], [404, 404, 403, 404, 401]],
  ];
  const WHO: Who[] = ['owner', 'manager', 'storeManager', 'otherVendor', 'nobody'];

  it.each(MATRIX)('%s', async (_name, call, expected) => {
    const statuses: number[] = [];
    for (const who of WHO) {
      const [method, path, body] = await call();
      const reply = await staffCall(node, tokenOf(who), method, path, body);
      statuses.push(reply.status);
      if (reply.status === 403) expect(reply.body.code).toBe('forbidden');
    }
    expect(statuses).toEqual(expected);
  });
});
