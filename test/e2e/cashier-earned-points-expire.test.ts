import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectText, openScreen } from '../support/e2e-browser';
import { type E2eStore, seedCustomer, startE2eStore } from '../support/e2e-store';
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
});
