import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { UI_TIMEOUT } from '../support/e2e-browser';
import { type E2eStore, startE2eStore } from '../support/e2e-store';

// The back office's customer search box named a cédula in a United States program. The interface
// spec takes a cédula "South America only": the box mentions it where the program's country is there.
describe("back office customer search: a cédula only where the program's country has them (Chromium)", () => {
  let store: E2eStore;
  let browser: Browser;
  let owner: SignedInStaff;

  beforeAll(async () => {
    store = await startE2eStore();
    owner = await ownerOf(store.node, store.vendor.vendorId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  /** Signs in to the customers page of a program in `country`, in `language`, and waits for the search box named `label`. */
  async function expectSearchBox(country: string, language: 'en' | 'es', label: string): Promise<void> {
    await store.node.engine.db.updateTable('vendors').set({ country }).where('id', '=', store.vendor.vendorId).execute();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', reducedMotion: 'reduce' });
    await context.addInitScript((lang) => localStorage.setItem('punchcard.language', lang), language);
    const page: Page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    try {
      await page.goto(`${store.node.url}/admin#/customers`);
      await page.locator('input[type="email"], input[autocomplete="username"], input:not([type])').first().fill(owner.email);
      await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
      await page.locator('button[type="submit"]').first().click();
      await page.getByRole('textbox', { name: label, exact: true }).waitFor();
      expect(await page.getByRole('textbox', { name: /cédula/ }).count()).toBe(label.includes('cédula') ? 1 : 0);
    } finally {
      await context.close();
    }
  }

  it('a US program: "Email, phone, card or name"; Ecuador: with the cédula, in both languages', async () => {
    await expectSearchBox('US', 'en', 'Email, phone, card or name');
    await expectSearchBox('US', 'es', 'Correo, teléfono, tarjeta o nombre');
    await expectSearchBox('EC', 'en', 'Email, phone, card, cédula or name');
    await expectSearchBox('EC', 'es', 'Correo, teléfono, tarjeta, cédula o nombre');
  });
});
