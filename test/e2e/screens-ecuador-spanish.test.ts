import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectText, openScreen, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';

// A merchant in Ecuador running the screens in Spanish: the counter and the kiosk find a customer by
// cédula and say so, a phone reads as Ecuador writes it ("099 123 4567", not "+593991234567"), the
// kiosk speaks Spanish (and "usted") throughout, and the dashboard's days read day first.
describe('a merchant in Ecuador, in Spanish (Chromium)', () => {
  let store: E2eStore;
  let browser: Browser;
  let maria: SeededCustomer;
  const CEDULA = '1710034065';

  beforeAll(async () => {
    store = await startE2eStore();
    await store.node.engine.db.updateTable('vendors').set({ country: 'EC', language: 'es' }).where('id', '=', store.vendor.vendorId).execute();
    await store.node.engine.db.updateTable('stores').set({ country: 'EC' }).where('vendor_id', '=', store.vendor.vendorId).execute();
    maria = await seedCustomer(store, { firstName: 'María', lastName: 'Andrade', card: 'QUITO001', points: 40, quickPayCents: 1_250 });
    await store.node.engine.db.updateTable('users').set({ cedula: CEDULA, phone: '+593991234567' }).where('id', '=', maria.userId).execute();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('the counter offers the cédula, finds her by it and by a national mobile, and writes her phone as Ecuador does', async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.apiKey, { language: 'es' });
    try {
      const box = page.getByLabel('Registrar la llegada de un cliente');
      expect(await box.getAttribute('placeholder')).toBe('Tarjeta, teléfono, correo, cédula o código de la app');
      await box.fill(CEDULA);
      await box.press('Enter');
      const panel = page.getByTestId('customer-panel');
      await expectText(panel.getByTestId('customer-name'), maria.name);
      await expectText(panel, /maria\.andrade@example\.com · 099 123 4567 · Socio desde/);
      expect(await panel.innerText()).not.toContain('+593');
      await closeAllSessions(store);
      await box.fill('099 123 4567');
      await box.press('Enter');
      await expectText(page.getByTestId('queue-entry'), /María Andrade.*Teléfono/is);
    } finally {
      await context.close();
      await closeAllSessions(store);
    }
  });

  it('the kiosk asks for the cédula, welcomes her whoever she is, and names quick pay in Spanish', async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey, { language: 'es' });
    try {
      const kiosk = page.getByTestId('kiosk');
      await kiosk.getByRole('button', { name: 'Escribirlo' }).click();
      await expectText(kiosk.getByTestId('kiosk-type').getByRole('heading'), 'Escriba su número de tarjeta, teléfono, correo o cédula');
      await kiosk.getByLabel('Número de tarjeta, teléfono, correo o cédula').fill(CEDULA);
      await kiosk.getByRole('button', { name: 'Registrar llegada' }).click();
      const welcome = kiosk.getByTestId('kiosk-welcome');
      // "¡Bienvenido, María!" was the masculine; "Ya está registrado" too.
      await expectText(welcome.getByTestId('kiosk-welcome-name'), '¡Hola, María!');
      await expectText(welcome.getByTestId('kiosk-quick-pay'), /^\$12,50\s*Saldo de pago rápido$/);
      await expectText(welcome, /Su llegada quedó registrada\./);
      await welcome.getByRole('button', { name: 'Listo' }).click();
      await kiosk.getByRole('button', { name: '¿Primera vez aquí? Únase con su teléfono' }).click();
      // The product says "usted": "empiece", not "empieza".
      await expectText(kiosk, /Escriba su número de móvil: empiece a sumar puntos hoy mismo\./);
    } finally {
      await context.close();
      await closeAllSessions(store);
    }
  });

  it("the back office writes her phone as Ecuador does and the dashboard's days day first", async () => {
    const owner = await ownerOf(store.node, store.vendor.vendorId);
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: 'America/Guayaquil', locale: 'es-EC', reducedMotion: 'reduce' });
    try {
      await context.addInitScript(() => localStorage.setItem('punchcard.language', 'es'));
      const page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT);
      await page.goto(`${store.node.url}/admin#/customers`);
      await page.getByRole('textbox', { name: 'Correo electrónico' }).fill(owner.email);
      await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
      await page.getByRole('button', { name: 'Iniciar sesión' }).click();
      await page.getByRole('textbox', { name: /cédula/ }).fill('0991234567');
      await page.getByRole('button', { name: 'Buscar' }).click();
      await expectText(page.getByRole('table').getByRole('row').nth(1), /María Andrade.*099 123 4567/s);
      await page.getByRole('link', { name: 'María Andrade' }).click();
      await expectText(page.getByText(/maria\.andrade@example\.com ·/), `maria.andrade@example.com · 099 123 4567 · ${CEDULA}`);

      await page.goto(`${store.node.url}/admin#/dashboard`);
      await page.getByRole('tab', { name: 'Panel', selected: true }).waitFor();
      // The charts' day axis: "21/11", not "11-21" (the node's clock is the tests' own, not today).
      // Polled: the screen may be drawn twice as the program's settings arrive (a report now takes a worker's start).
      const texts = page.locator('.recharts-wrapper text');
      let days: string[] = [];
      await expect
        .poll(async () => (days = (await texts.allTextContents()).filter((text) => /^\d{2}\D\d{2}$/.test(text))).length, { timeout: UI_TIMEOUT, interval: 50 })
        .toBeGreaterThan(10);
      for (const day of days) expect(day).toMatch(/^(0[1-9]|[12]\d|3[01])\/(0[1-9]|1[0-2])$/);
      // The balance chart's tooltip on the last day (María's quick pay): "$12,50", as the tables write it, not "12.5".
      const valueChart = page.locator('.recharts-wrapper').nth(1);
      const box = (await valueChart.boundingBox())!;
      await page.mouse.move(box.x + box.width - 12, box.y + box.height / 3);
      await expectText(valueChart.locator('.recharts-tooltip-wrapper'), /Saldo pendiente \(en saldos\)\s*:\s*\$12,50/);
    } finally {
      await context.close();
    }
  });
});
