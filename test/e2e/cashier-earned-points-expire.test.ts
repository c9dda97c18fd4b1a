import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectText, openScreen } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, seedCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';
import { http } from '../support/test-node';

// The cashier screen in Chromium against a real store node whose points expire after 30 days: the
// order closes the session, so the panel cannot read the customer again, and it showed "Nothing
// expiring" for the points the order had just earned. The order's reply now says what expires.
describe('cashier screen: points an order earned show when they expire', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;

  const panel = () => page.getByTestId('customer-panel');

  beforeAll(async () => {
    store = await startE2eStore();
    const owner = await ownerOf(store.node, store.vendor.vendorId);
    const set = await staffCall(store.node, owner.token, 'PUT', '/backoffice/program/settings', { points_expiry_days: 30 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    await page.getByTestId('queue-empty').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('after an order the panel says the points earned expire in 30 days, as a fresh check-in would', async () => {
    const ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'CAFE0001' });
    expect(await store.scan(ana.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), ana.name);
    await expectText(panel().getByTestId('loyalty-expiring-Points'), 'Nothing expiring');

    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('order-subtotal').fill('70');
    await dialog.getByRole('button', { name: /^Place order/ }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('order-result'), /Points earned: 70/);
    await expectAttribute(panel().getByTestId('loyalty-balance-Points'), 'data-amount', '70');
    const shown = await panel().getByTestId('loyalty-expiring-Points').innerText();

    // What the counter's retrieve says once the customer checks in again.
    expect(await store.scan(ana.card)).toMatchObject({ ok: true });
    const session = await store.node.engine.db.selectFrom('pos_sessions').select('hash').where('user_id', '=', ana.userId).where('status', '=', 'active').executeTakeFirstOrThrow();
    const retrieved = await http(`${store.node.url}/onscreen?api_key=${store.vendor.apiKey}&pos_session_hash=${session.hash}`);
    const [day] = retrieved.body.loyalty_balance.data[0].expiring.data;
    expect(day).toMatchObject({ amount: 70 });
    const date = new Date(day.date * 1000).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
    expect(shown).toMatch(/^70 .*expire on /);
    expect(shown).toContain(date);
  });

  // Nineteenth round: a void of the panel's sale gave the redeemed points back, and the panel still
  // said the sale's own points expired next ("10 expire on <in 30 days>" for 30 points whose 30
  // given back expire in 5 days): what a void gives back expires as it did before the sale.
  it('after the panel’s sale is voided, the points it gave back say when they expire, as a fresh check-in would', async () => {
    const ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Okafor', card: 'CAFE0002' });
    await inStoreApi(() => store.node).credit(store.vendor, store.vendor.loyaltyCurrencyId, ben.userId, [{ amount: 30, expiresAt: store.node.clock.now() + 5 * 86_400_000 }]);
    const points = (await http(`${store.node.url}/currencies`, { token: store.vendor.accessToken })).body.items.find((c: { name: string }) => c.name === 'Points').id;
    const muffin = await http(`${store.node.url}/rewards`, { method: 'POST', token: store.vendor.accessToken, body: { name: 'Muffin', cost: 30, currency: points } });
    expect(muffin.status, JSON.stringify(muffin.body)).toBe(201);
    // Ana's visit (the test above) ends elsewhere; the panel is free once the cashier has read so.
    await closeAllSessions(store);
    await expectText(panel(), 'This session was closed elsewhere.');
    await panel().getByRole('button', { name: 'Done' }).click();
    expect(await store.scan(ben.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), ben.name);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('order-subtotal').fill('10');
    await dialog.getByRole('checkbox', { name: /Muffin/ }).check();
    await dialog.getByRole('button', { name: /^Place order/ }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectAttribute(panel().getByTestId('loyalty-balance-Points'), 'data-amount', '10');

    const history = await http(`${store.node.url}/user/transaction/list?user=${ben.userId}&api_key=${store.vendor.apiKey}`);
    const voided = await http(`${store.node.url}/order?api_key=${store.vendor.apiKey}`, { method: 'DELETE', body: { receipt_number: history.body.data[0].receipts[0].receipt_number } });
    expect(voided.status, JSON.stringify(voided.body)).toBe(200);
    await expectAttribute(panel().getByTestId('loyalty-balance-Points'), 'data-amount', '30');
    const shown = await panel().getByTestId('loyalty-expiring-Points').innerText();

    const session = await http(`${store.node.url}/onscreen?api_key=${store.vendor.apiKey}`, { method: 'POST', body: { card_number: ben.card } });
    const retrieved = await http(`${store.node.url}/onscreen?api_key=${store.vendor.apiKey}&pos_session_hash=${session.body.pos_session.hash}`);
    const [day] = retrieved.body.loyalty_balance.data[0].expiring.data;
    expect(day).toMatchObject({ amount: 30 });
    expect(shown).toMatch(/^30 .*expire on /);
    expect(shown).toContain(new Date(day.date * 1000).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' }));
  });
});
