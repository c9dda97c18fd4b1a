import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectText, UI_TIMEOUT } from '../support/e2e-browser';
import { type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';

// The back office in Spanish writes amounts as the program's country does, as the cashier and the
// Program page do (docs/decisions.md "Spanish numbers by the program's country"): a dollar program
// in Ecuador reads "$1.234,50" on the dashboard and a customer's page, not the United States'
// "$1,234.50" (es-US, the currency's country).
describe("back office amounts by the program's country (Chromium)", () => {
  let store: E2eStore;
  let browser: Browser;
  let owner: SignedInStaff;
  let ana: SeededCustomer;

  beforeAll(async () => {
    store = await startE2eStore();
    await store.node.engine.db.updateTable('vendors').set({ country: 'EC' }).where('id', '=', store.vendor.vendorId).execute();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Vera', card: 'CAFE0001', points: 1_280, quickPayCents: 123_450 });
    owner = await ownerOf(store.node, store.vendor.vendorId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  async function spanishAt(route: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', locale: 'es-EC', reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('punchcard.language', 'es'));
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${store.node.url}/admin#/${route}`);
    await page.locator('input[type="email"], input[autocomplete="username"], input:not([type])').first().fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.locator('button[type="submit"]').first().click();
    return page;
  }

  it("the dashboard's outstanding balance and a customer's balances, as Ecuador writes them", async () => {
    const page = await spanishAt('dashboard');
    try {
      await expectText(page.getByRole('heading', { name: /^Saldo pendiente \(en saldos\):/ }), /^\$1\.234,50$/);
      await page.goto(`${store.node.url}/admin#/customers/${ana.userId}`);
      const balances = page.getByRole('table', { name: 'Saldos' });
      await expectText(balances, /\$1\.234,50/);
      await expectText(balances, /1\.280/);
    } finally {
      await page.context().close();
    }
  });
});
