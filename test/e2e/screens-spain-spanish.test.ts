import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectText, openScreen, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';

// A café in Madrid running the screens in Spanish (the program's country ES): the counter's words
// read in Spain and Latin America alike ("Enter", "Agregar"), the register dialog's calling-code
// hint names Spain's +34, the kiosk's country box holds its label whole at 1024 px and names the
// countries in Spanish, and the back office keeps a typed "12,50" as typed, writes the store's
// phone as Spain does and names an audit entry's fields in Spanish.
describe('a café in Madrid, in Spanish (Chromium)', () => {
  let store: E2eStore;
  let browser: Browser;
  let lucia: SeededCustomer;

  beforeAll(async () => {
    store = await startE2eStore();
    await store.node.engine.db.updateTable('vendors').set({ country: 'ES', language: 'es' }).where('id', '=', store.vendor.vendorId).execute();
    await store.node.engine.db.updateTable('stores').set({ country: 'ES', phone: '+34912345678' }).where('vendor_id', '=', store.vendor.vendorId).execute();
    lucia = await seedCustomer(store, { firstName: 'Lucía', lastName: 'Fernández', card: 'MADRID01', points: 10 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  async function backOffice(route: string): Promise<Page> {
    const owner = await ownerOf(store.node, store.vendor.vendorId);
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: 'Europe/Madrid', locale: 'es-ES', reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('punchcard.language', 'es'));
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${store.node.url}/admin#/${route}`);
    await page.getByRole('textbox', { name: 'Correo electrónico' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.getByRole('button', { name: 'Cerrar sesión', exact: true }).waitFor();
    return page;
  }

  it("the back office and the screens' sign-in open in the browser's Spanish before anyone chooses", async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: 'Europe/Madrid', locale: 'es-ES', reducedMotion: 'reduce' });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT);
      // They were English until someone pressed ES: only a signed-in store screen heard the program's language.
      await page.goto(`${store.node.url}/admin`);
      await page.getByRole('button', { name: 'Iniciar sesión' }).waitFor();
      await page.goto(store.node.url);
      await page.getByLabel('Clave de la tienda').waitFor();
    } finally {
      await context.close();
    }
  });

  it("the counter says Enter and Agregar, and the calling-code hint names Spain's +34", async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.apiKey, { language: 'es' });
    try {
      await page.getByRole('button', { name: /^Dar de alta/ }).click();
      const dialog = page.getByRole('dialog');
      // It said "Por ejemplo 1 o 34" whatever the program's country.
      await expectText(dialog, /Vacío: \+34, el país de esta tienda\./);
      expect(await dialog.innerText()).not.toContain('1 o 34');
      await page.keyboard.press('Escape');

      const box = page.getByLabel('Registrar la llegada de un cliente');
      await box.fill(lucia.card);
      await box.press('Enter');
      const panel = page.getByTestId('customer-panel');
      await expectText(panel.getByTestId('customer-name'), lucia.name);
      await panel.getByRole('button', { name: /^Hacer pedido/ }).click();
      const form = page.getByRole('dialog');
      // "Añadir artículo" and "Ctrl+Intro" were Spain's words.
      await form.getByRole('button', { name: 'Agregar artículo' }).waitFor();
      await expectText(form.getByRole('button', { name: /^Hacer pedido/ }).locator('kbd').last(), 'Enter');
      expect(await form.innerText()).not.toMatch(/Intro|Añadir/);
      await form.getByTestId('order-subtotal').fill('12,50');
      await form.getByRole('button', { name: /^Hacer pedido/ }).click();
      await expectText(panel, /ganados: 12/);
    } finally {
      await context.close();
      await closeAllSessions(store);
    }
  });

  it("the kiosk's country box holds its label whole on a tablet on its side, and names countries in Spanish", async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey, { language: 'es', fakeClock: true });
    try {
      await page.setViewportSize({ width: 1024, height: 768 });
      await page.getByRole('button', { name: '¿Primera vez aquí? Únase con su teléfono' }).click();
      const country = page.getByTestId('kiosk-register').getByLabel('Prefijo del país', { exact: true });
      await expect.poll(() => country.inputValue(), { timeout: UI_TIMEOUT }).toBe('País de esta tienda (+34)');
      const fit = await country.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(fit.scroll, JSON.stringify(fit)).toBeLessThanOrEqual(fit.client + 1);
      await country.click();
      await country.fill('Estados');
      await page.getByRole('option', { name: 'Estados Unidos (+1)' }).click();
      await expect.poll(() => country.inputValue(), { timeout: UI_TIMEOUT }).toBe('Estados Unidos (+1)');
    } finally {
      await context.close();
    }
  });

  it('the back office keeps "12,50" as typed, writes the store\'s phone as Spain does and the audit\'s fields in Spanish', async () => {
    const page = await backOffice('customers');
    try {
      await page.getByRole('textbox', { name: /Correo/ }).first().fill(lucia.email);
      await page.getByRole('button', { name: 'Buscar' }).click();
      await page.getByRole('link', { name: lucia.name }).click();
      await page.getByLabel('Moneda').first().click();
      await page.getByRole('option', { name: /USD/ }).click();
      const amount = page.getByRole('textbox', { name: 'Importe (negativo para debitar)' });
      await amount.pressSequentially('12,50');
      // Mantine's default turned the comma into "12.50".
      expect(await amount.inputValue()).toBe('12,50');
      await page.getByRole('textbox', { name: 'Motivo del ajuste (obligatorio)' }).fill('Regalo de bienvenida');
      await page.getByRole('button', { name: 'Ajustar saldo' }).click();
      await expectText(page.getByText(/^Ajustado:/), /12,50/);

      // The program's limits take the comma too: "12,50" is 1250 cents.
      await page.goto(`${store.node.url}/admin#/program`);
      const limits = page.getByRole('region', { name: 'Límites de pago' }).or(page.locator('[aria-label="Límites de pago"]')).first();
      const egift = limits.getByRole('textbox', { name: /eGift más grande/ });
      await egift.fill('');
      await egift.pressSequentially('75,5');
      expect(await egift.inputValue()).toBe('75,5');

      await page.goto(`${store.node.url}/admin#/stores/${store.vendor.storeId}`);
      // It showed "+34912345678", as stored.
      await expectText(page.getByRole('table', { name: 'Datos de la tienda' }), /Teléfono\s*912 34 56 78/);

      await page.goto(`${store.node.url}/admin#/audit`);
      const change = page.locator('tbody tr').filter({ hasText: 'Ajuste de saldo' }).first().locator('td').nth(4);
      // Sixteenth round: money as the program's country writes it, not minor units.
      await expectText(change, /^saldo: 0,00\sUS\$ → 12,50\sUS\$$/m);
      const text = await change.innerText();
      expect(text).toMatch(/^motivo: Regalo de bienvenida$/m);
      expect(text).not.toMatch(/^(balance|reason|amount|ledger_entry):/m);
    } finally {
      await page.context().close();
    }
  });
});
