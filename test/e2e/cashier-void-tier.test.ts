import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen } from '../support/e2e-browser';
import { type E2eStore, seedCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';
import { http } from '../support/test-node';

// The cashier screen in Chromium against a real store node: an order placed on the screen promotes
// the customer (the badge shows the new tier at once); the POS then voids it over the API, which
// takes the tier back. The panel's session closed with the order, so the panel cannot read the
// customer again: the badge follows the tier change the void wrote in the history.
describe('cashier screen: a void takes the tier badge back', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;

  const panel = () => page.getByTestId('customer-panel');
  const badge = () => panel().getByTestId('customer-tier');

  beforeAll(async () => {
    store = await startE2eStore();
    for (const tier of [{ name: 'Silver', threshold: 60 }, { name: 'Gold', threshold: 500 }]) {
      const made = await http(`${store.node.url}/tiers`, { method: 'POST', token: store.vendor.accessToken, body: tier });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    await page.getByTestId('queue-empty').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('a promoting order shows the new tier; its void through the API shows the tier before, with the next one up as before', async () => {
    const ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'CAFE0001', points: 10 });
    expect(await store.scan(ana.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), ana.name);
    await expectText(badge(), 'Tier: Member');
    await expectText(panel(), /Next: Silver at 60/);

    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('order-subtotal').fill('70');
    await dialog.getByRole('button', { name: /^Place order/ }).click();
    await dialog.waitFor({ state: 'detached' });
    const result = panel().getByTestId('order-result');
    await expectText(result, /Points earned: 70/);
    await expectText(badge(), 'Tier: Silver');
    await expectText(panel(), /Next: Gold at 500/);
    await expectAttribute(panel().getByTestId('loyalty-balance-Points'), 'data-amount', '80');

    // The POS voids the sale (the receipt number the screen made): its points and the tier they got go.
    const order = await store.node.engine.db.selectFrom('orders').select('receipt_number').where('user_id', '=', ana.userId).executeTakeFirstOrThrow();
    await inStoreApi(() => store.node).voidOk(store.vendor.apiKey, order.receipt_number);

    await expectText(badge(), 'Tier: Member');
    await expectText(panel(), /Next: Silver at 60/);
    await expectAttribute(panel().getByTestId('loyalty-balance-Points'), 'data-amount', '10');
    await expectText(panel().getByTestId('history-row').first().getByTestId('history-what'), 'Tier: Silver → Member');
    // The void's own reply names no tier: the node holds Member, as the badge says.
    const member = await store.node.engine.db
      .selectFrom('user_vendors')
      .innerJoin('tiers', 'tiers.id', 'user_vendors.tier_id')
      .select('tiers.name')
      .where('user_vendors.user_id', '=', ana.userId)
      .where('user_vendors.vendor_id', '=', store.vendor.vendorId)
      .executeTakeFirstOrThrow();
    expect(member.name).toBe('Member');
    // The order's result goes with the sale it told of, and the panel says the sale was voided.
    await expectCount(panel().getByTestId('order-result'), 0);
    await expectText(panel().getByTestId('session-ended'), `Sale ${order.receipt_number} was voided: the session is closed.`);
  });

  it('with a second loyalty currency the next tier names the currency tiers count', async () => {
    const bearer = { token: store.vendor.accessToken };
    const stamps = await http(`${store.node.url}/currencies`, { method: 'POST', ...bearer, body: { name: 'Stamps' } });
    expect(stamps.status, JSON.stringify(stamps.body)).toBe(201);
    const bea = await seedCustomer(store, { firstName: 'Bea', lastName: 'Ruiz', card: 'CAFE0002', points: 10 });
    expect(await store.scan(bea.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), bea.name);
    await expectText(panel(), /Next: Silver at 60 Points/);

    await panel().getByRole('button', { name: /^Close session/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: /^Close session/ }).click();
    await expectCount(page.getByTestId('customer-name'), 0);

    const set = await http(`${store.node.url}/program/settings`, { method: 'PUT', ...bearer, body: { tier_currency: stamps.body.id } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const cai = await seedCustomer(store, { firstName: 'Cai', lastName: 'Mora', card: 'CAFE0003', points: 0 });
    expect(await store.scan(cai.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), cai.name);
    await expectText(panel(), /Next: Silver at 60 Stamps/);
  });
});
