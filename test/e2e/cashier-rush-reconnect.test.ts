import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen } from '../support/e2e-browser';
import { balancesOf, type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';
import { relayTo } from '../support/tcp-relay';

// The rush hour's node going away under two cashier screens (restarting, or the network between):
// meanwhile the POS rings up the customer one screen shows and another counter closes the session
// the other screen shows. No event reaches the screens for either. When the node is back, each
// panel must say what happened, with the balances the node now holds — it showed the old balances
// with "Place order" still offered and "No open session matches that hash at this store." as an error.
describe('the cashier screens reconnect to the truth', () => {
  let store: E2eStore;
  let browser: Browser;
  let relay: Awaited<ReturnType<typeof relayTo>>;
  let a: Page;
  let b: Page;
  let ana: SeededCustomer;
  let ben: SeededCustomer;
  const panel = (page: Page) => page.getByTestId('customer-panel');

  beforeAll(async () => {
    store = await startE2eStore();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Away', card: 'AWAY0001', points: 150, quickPayCents: 2_000 });
    ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Away', card: 'AWAY0002', points: 40, quickPayCents: 500 });
    // The screens reach the node through a relay the test can take down: the node unreachable.
    relay = await relayTo(new URL(store.node.url));
    const url = `http://127.0.0.1:${relay.port}/`;
    browser = await launchChromium();
    ({ page: a } = await openScreen(browser, url, store.vendor.apiKey));
    ({ page: b } = await openScreen(browser, url, store.vendor.apiKey));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
    await store?.close();
  });

  async function show(page: Page, customer: SeededCustomer): Promise<void> {
    await page.getByTestId('queue').getByRole('listitem', { name: customer.name }).getByRole('button').click();
    await expectText(panel(page).getByTestId('customer-name'), customer.name);
    await expectAttribute(panel(page).getByTestId('loyalty-balance-Points'), 'data-amount', String(customer.points));
  }

  it('a sale rung up and a session closed while the node was away show as such, with the node’s balances', async () => {
    const api = inStoreApi(() => store.node);
    const anaSession = await api.checkInSessionOk(store.vendor.apiKey, ana.card);
    const benSession = await api.checkInSessionOk(store.vendor.apiKey, ben.card);
    await expectCount(b.getByTestId('queue').getByRole('listitem'), 2);
    await show(a, ana);
    await show(b, ben);

    await relay.down();
    await expectCount(a.getByTestId('offline-actions'), 1);
    await expectCount(b.getByTestId('offline-actions'), 1);
    // Behind the screens' backs: the POS sells to Ana ($12.00, 1,200 points), another counter closes Ben's session.
    await api.orderOk(store.vendor.apiKey, { pos_session_hash: anaSession.hash, receipt_number: 'POS-AWAY-1', subtotal: 1200 });
    await api.closeOk(store.vendor.apiKey, benSession.hash);
    await relay.up();

    const truth = await balancesOf(store, ana);
    expect(truth.points).toBe(ana.points + 1200);
    await expectCount(a.getByTestId('offline-actions'), 0, 20_000);
    await expectText(panel(a).getByTestId('session-ended'), 'Order complete', 20_000);
    await expectAttribute(panel(a).getByTestId('loyalty-balance-Points'), 'data-amount', String(truth.points));
    await expectText(panel(b).getByTestId('session-ended'), 'closed elsewhere', 20_000);
    for (const page of [a, b]) {
      // Nothing left to act on, and no error about a session the node no longer has.
      await expectCount(panel(page).getByRole('button', { name: /^Place order/ }), 0);
      await expectCount(panel(page).getByRole('alert'), 0);
      await expectCount(page.getByTestId('queue').getByRole('listitem'), 0);
    }
  });
});
