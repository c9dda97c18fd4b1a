import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectText, openScreen } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';

// A Spanish screen writes numbers as the program's country does (GET /app/terminal says which), not
// as its currency's country: a dollar program in Ecuador reads "$1.234,50", not the United States' "$1,234.50".
describe('screens write numbers as the program country does (Chromium)', () => {
  let store: E2eStore;
  let browser: Browser;
  let ana: SeededCustomer;

  beforeAll(async () => {
    store = await startE2eStore();
    // The vendor is in Ecuador and speaks Spanish (the e2e store is set up as a US one; USD stays its money).
    await store.node.engine.db.updateTable('vendors').set({ country: 'EC', language: 'es' }).where('id', '=', store.vendor.vendorId).execute();
    await store.node.engine.db.updateTable('stores').set({ country: 'EC' }).where('vendor_id', '=', store.vendor.vendorId).execute();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Vera', card: 'CAFE0001', points: 1_280, quickPayCents: 123_450 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it("an Ecuador program's cashier screen in Spanish shows a balance as Ecuador writes it", async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.apiKey);
    try {
      await page.getByTestId('queue-empty').waitFor();
      expect(await store.scan(ana.card)).toMatchObject({ ok: true });
      const panel = page.getByTestId('customer-panel');
      await expectText(panel.getByTestId('customer-name'), ana.name);
      // In Spanish because the vendor speaks it (nobody chose a language on this browser).
      await expectAttribute(page.locator('html'), 'lang', 'es');
      await expectText(panel.getByTestId('quick-pay-balance'), /^\$1\.234,50$/);
      await expectText(panel.getByTestId('loyalty-balance-Points'), /^1\.280$/);
    } finally {
      await context.close();
    }
  });

  // Chromium's ICU writes es-PA's dollar "USD 1,234.50"; Panama's shops write "$1,234.50" (format.ts).
  it("a Panama program's cashier screen in Spanish writes its dollars \"$1,234.50\"", async () => {
    await closeAllSessions(store);
    await store.node.engine.db.updateTable('vendors').set({ country: 'PA' }).where('id', '=', store.vendor.vendorId).execute();
    await store.node.engine.db.updateTable('stores').set({ country: 'PA' }).where('vendor_id', '=', store.vendor.vendorId).execute();
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.apiKey);
    try {
      await page.getByTestId('queue-empty').waitFor();
      expect(await store.scan(ana.card)).toMatchObject({ ok: true });
      const panel = page.getByTestId('customer-panel');
      await expectText(panel.getByTestId('customer-name'), ana.name);
      await expectAttribute(page.locator('html'), 'lang', 'es');
      await expectText(panel.getByTestId('quick-pay-balance'), /^\$1,234\.50$/);
      await expectText(panel.getByTestId('loyalty-balance-Points'), /^1,280$/);
    } finally {
      await context.close();
    }
  });
});
