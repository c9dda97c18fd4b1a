import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectText, openScreen, UI_TIMEOUT } from '../support/e2e-browser';
import { type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';
import { textContrasts } from './screens-contrast';
import { cutText, insideSideways, sidewaysOverflow } from './screens-reflow';

// What a look over the cashier, the kiosk and the back office at 320, 768 and 1280 px found, in
// Chromium: the cashier's Settings squeezed its values to a few letters a line and cut the scanner
// capture's "ON" to "O." at 320 px; the order dialog squeezed the quick-pay amount beside "Use the
// most"; the kiosk's country was cut ("This store's cou…") three fields a line on an upright
// tablet; the dashboard's legends wrote series names at 2.5–3.6:1; errors and the required
// asterisk were Mantine's red 6 (3.3:1); a customer's page scrolled sideways under a long email.
describe('a look over the screens at 320, 768 and 1280 px', () => {
  let store: E2eStore;
  let browser: Browser;
  let maria: SeededCustomer;

  beforeAll(async () => {
    store = await startE2eStore();
    maria = await seedCustomer(store, { firstName: 'Maria', lastName: 'Look', card: 'LOOK0001', points: 120, quickPayCents: 2_500 });
    await inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, maria.card);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  /** A fresh browser signed in to the back office as `email` at `#/<route>`, `width` px wide. */
  async function backOfficeAt(email: string, route: string, width: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${store.node.url}/admin#/${route}`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return page;
  }

  it('cashier Settings at 320 px: values have room, nothing cut, the required asterisk at 4.5:1', async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.apiKey);
    try {
      await page.setViewportSize({ width: 320, height: 640 });
      await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
      await page.getByRole('region', { name: 'Settings' }).waitFor();
      expect(await sidewaysOverflow(page)).toEqual([]);
      expect(await cutText(page)).toEqual([]);
      // The card's values: a readable column, each inside its cell.
      const values = await page.getByRole('table', { name: 'This screen' }).locator('td').evaluateAll((cells) => cells.map((td) => ({ text: (td as HTMLElement).innerText, width: td.getBoundingClientRect().width, overflows: td.scrollWidth > td.clientWidth + 1 })));
      expect(values.length).toBeGreaterThan(3);
      for (const value of values) expect(value, JSON.stringify(value)).toMatchObject({ overflows: false });
      expect(Math.min(...values.map((v) => v.width))).toBeGreaterThanOrEqual(110);
      const asterisks = await textContrasts(page.getByTestId('settings-pairing'), '.mantine-InputWrapper-required');
      expect(asterisks.length).toBeGreaterThan(0);
      expect(asterisks.filter((a) => a.ratio < 4.5)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the order dialog at 320 px: the quick-pay amount keeps a usable width, "Use the most" inside the window', async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.apiKey);
    try {
      await page.setViewportSize({ width: 320, height: 640 });
      await page.getByTestId('queue').getByRole('listitem', { name: maria.name }).getByRole('button').click();
      const panel = page.getByTestId('customer-panel');
      await expectText(panel.getByTestId('customer-name'), maria.name);
      await panel.getByRole('button', { name: /^Place order/ }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByTestId('order-subtotal').waitFor();
      expect((await dialog.getByTestId('order-quick-pay').boundingBox())!.width).toBeGreaterThanOrEqual(200);
      expect(await insideSideways(dialog.getByRole('button', { name: 'Use the most' }))).toBe(true);
      // A field error is red 8 (5:1), not Mantine's red 6.
      await dialog.getByTestId('order-quick-pay').fill('99999');
      await dialog.getByRole('button', { name: /^Place order/ }).click();
      const error = dialog.locator('.mantine-InputWrapper-error').first();
      await error.waitFor({ timeout: UI_TIMEOUT });
      const [contrast] = await textContrasts(error, '*');
      expect(contrast!.ratio, JSON.stringify(contrast)).toBeGreaterThanOrEqual(4.5);
    } finally {
      await context.close();
    }
  });

  for (const width of [768, 800]) {
    it(`the kiosk's join form at ${width} px upright: the country's name whole in its field`, async () => {
      const { page, context } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey, { fakeClock: true });
      try {
        await page.setViewportSize({ width, height: 1024 });
        await page.getByTestId('kiosk-idle').waitFor();
        await page.getByRole('button', { name: 'New here? Join with your phone' }).click();
        const form = page.getByTestId('kiosk-register');
        const country = form.getByLabel('Country code', { exact: true });
        await expect.poll(() => country.inputValue()).toBe("This store's country (+1)");
        const fit = await country.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
        expect(fit.scroll, JSON.stringify(fit)).toBeLessThanOrEqual(fit.client + 1);
        expect(await cutText(page)).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }

  it('a customer’s page at 320 px with a long email: the page does not scroll sideways', async () => {
    const long = await seedCustomer(store, { firstName: 'Maria Fernanda', lastName: 'Echeverria Villacis', card: 'LOOK0002', points: 10 });
    const owner = await ownerOf(store.node, store.vendor.vendorId);
    const page = await backOfficeAt(owner.email, 'customers', 320);
    try {
      await page.getByRole('textbox', { name: 'Email, phone, card or name' }).fill(long.card);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: long.name }).click();
      await page.getByRole('table', { name: 'Balances' }).waitFor();
      expect(await page.getByText(/@example\.com/).first().textContent()).toMatch(/^mariafernanda/);
      expect(await sidewaysOverflow(page)).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('the dashboard’s chart legends at 4.5:1', async () => {
    const owner = await ownerOf(store.node, store.vendor.vendorId);
    const page = await backOfficeAt(owner.email, 'dashboard', 1280);
    try {
      await page.locator('.recharts-legend-item-text').first().waitFor();
      const legends = await textContrasts(page.locator('body'), '.recharts-legend-item-text');
      expect(legends.map((l) => l.name)).toEqual(expect.arrayContaining(['Check-ins', 'Orders']));
      expect(legends.filter((l) => l.ratio < 4.5)).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
