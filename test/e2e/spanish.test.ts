import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, seedCustomer, type SeededCustomer, STORE_NAME, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';

// Spanish on the cashier and kiosk screens: the language switch changes every text at once, the
// choice is kept by the browser, and no English text is left on the screen (the lines the English
// and the Spanish screen have in common are names, numbers and brand words only).
describe('Spanish strings in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let ana: SeededCustomer;
  let ben: SeededCustomer;
  let chloe: SeededCustomer;

  /** The lines of text a screen shows (innerText, trimmed, without empties). */
  const screenLines = async (page: Page): Promise<string[]> =>
    (await page.locator('body').innerText())
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);

  /** Lines that are the same in both languages by nature: names (people, store, the vendor's "Points" currency), numbers, keys, brand words. */
  const sameInBothLanguages = (line: string, customers: SeededCustomer[]) =>
    /^[\d\s.,:$€%•*+\-/()AMP]*(US\$)?$/i.test(line) ||
    ['Punchcard', 'EN', 'ES', 'English', 'Español', STORE_NAME, 'Points', 'O', 'X', 'N', '?'].includes(line) ||
    customers.some((c) => line.includes(c.name) || line.includes(c.email) || line === c.firstName);

  /** The keys the shortcuts' help (?) gives for placing an order and opening a customer, and the one the order form's button shows. */
  const shortcutKeys = async (page: Page, placeOrder: string, helpTitle: string) => {
    await page.getByRole('region', { name: /^(Queue|Cola)$/ }).getByRole('heading').first().click();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: helpTitle });
    await help.waitFor();
    const submitOrder = await help.getByTestId('shortcut-submitOrder').getByTestId('shortcut-keys').innerText();
    const submitOrderSays = await help.getByTestId('shortcut-submitOrder').innerText();
    const open = await help.getByTestId('shortcut-open').getByTestId('shortcut-keys').innerText();
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await page.getByTestId('customer-panel').getByRole('button', { name: new RegExp(`^${placeOrder}`) }).click();
    const form = page.getByRole('dialog');
    await form.waitFor();
    const formHint = await form.getByRole('button', { name: new RegExp(`^${placeOrder}`) }).locator('kbd').innerText();
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });
    // Enter in a box of the form places the order too (the form's own submit): the help says so, in the same key name.
    return { submitOrder: submitOrder.trim(), open: open.trim(), formHint: formHint.trim(), enterInABox: submitOrderSays.includes(` ${open.trim()} `) };
  };

  beforeAll(async () => {
    store = await startE2eStore();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'CAFE0001', points: 1_280, quickPayCents: 2_500 });
    ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Okafor', card: 'CAFE0002', points: 45, quickPayCents: 1_000 });
    chloe = await seedCustomer(store, { firstName: 'Chloé', lastName: 'Martin', card: 'CAFE0003', points: 310, quickPayCents: 550 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('the cashier screen switches to Spanish, keeps it, and leaves no English behind', async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.apiKey);
    try {
      await page.getByTestId('queue-empty').waitFor();
      expect(await store.scan(ana.card)).toMatchObject({ ok: true });
      await inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, ben.email);
      await inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, chloe.card);
      const panel = page.getByTestId('customer-panel');
      await expectText(panel.getByTestId('customer-name'), ana.name);
      await expectCount(page.getByTestId('queue-entry'), 3);
      await expectText(page.getByRole('region', { name: 'Queue' }), '3 waiting');
      const english = await screenLines(page);
      // The shortcuts' help and the order form name the same keys.
      expect(await shortcutKeys(page, 'Place order', 'Keyboard shortcuts')).toEqual({ submitOrder: 'Ctrl+Enter', open: 'Enter', formHint: 'Ctrl+Enter', enterInABox: true });

      await page.getByRole('banner').getByText('ES', { exact: true }).click();
      await expectText(page.getByRole('region', { name: 'Cola' }), '3 en espera');
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('es');
      await page.getByRole('region', { name: 'Cliente' }).waitFor();
      await page.getByLabel('Registrar la llegada de un cliente').waitFor();
      await expectText(panel, 'Hacer pedido');
      await expectText(panel, 'Cerrar visita');
      await expectText(page.getByRole('banner'), 'Caja');
      await expectText(page.getByRole('banner'), 'Ajustes');
      // Numbers and money in Spanish as a US program's country writes them (es-US): 1,280 points, $25.00.
      await expectAttribute(panel.getByTestId('loyalty-balance-Points'), 'data-amount', '1280');
      await expectText(panel.getByTestId('loyalty-balance-Points'), /^1,280$/);
      await expectText(panel.getByTestId('quick-pay-balance'), /\$25\.00/);

      const spanish = await screenLines(page);
      const untranslated = spanish.filter((line) => english.includes(line) && !sameInBothLanguages(line, [ana, ben, chloe]));
      expect(untranslated, 'lines still in English on the Spanish screen').toEqual([]);
      // In Spanish too: "Enter", as Latin American keyboards say (Spain's "Intro" was one country's word), in the help as on the order form's button.
      expect(await shortcutKeys(page, 'Hacer pedido', 'Atajos de teclado')).toEqual({ submitOrder: 'Ctrl+Enter', open: 'Enter', formHint: 'Ctrl+Enter', enterInABox: true });

      // An unusually large amount is asked about in Spanish: Enter confirms, Esc goes back.
      await panel.getByRole('button', { name: /^Hacer pedido/ }).click();
      const form = page.getByRole('dialog');
      await form.getByTestId('order-subtotal').fill('1000000');
      await form.getByTestId('order-subtotal').press('Enter');
      const ask = form.getByRole('alertdialog', { name: '¿Es correcto este importe?' });
      await expectText(ask, /Subtotal: \$1,000,000\.00/);
      await expectText(ask.getByRole('button', { name: /^Sí, hacer el pedido/ }).locator('kbd'), 'Enter');
      await expectText(ask.getByRole('button', { name: /^Volver/ }).locator('kbd'), 'Esc');
      await page.keyboard.press('Escape');
      await expectCount(ask, 0);
      await page.keyboard.press('Escape');
      await form.waitFor({ state: 'detached' });

      // The node's own messages reach the screen as the node words them; the frame around them is Spanish.
      await page.getByLabel('Registrar la llegada de un cliente').fill('nadie@example.com');
      await page.getByRole('form', { name: 'Registrar llegada' }).getByRole('button', { name: 'Registrar', exact: true }).click();
      await expectText(page.getByTestId('check-in-error'), 'No se pudo registrar la llegada');

      // Kept by this browser: a reload comes back in Spanish.
      await page.reload();
      await expectText(page.getByRole('region', { name: 'Cola' }), 'Cola');
    } finally {
      await context.close();
      await closeAllSessions(store);
    }
  });

  it('the kiosk switches to Spanish: idle, welcome and retry', async () => {
    const { page, context } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey, { fakeClock: true });
    try {
      const kiosk = page.getByTestId('kiosk');
      await expectText(kiosk.getByTestId('kiosk-idle'), 'Scan your card or app code');
      await expectText(page.getByRole('heading', { level: 1 }), 'Scan your card or app code');
      const english = await screenLines(page);
      await kiosk.getByText('Español', { exact: true }).click();
      await page.getByRole('region', { name: 'Quiosco' }).waitFor();
      await expectText(kiosk.getByTestId('kiosk-idle'), 'Escanee su tarjeta o el código de la app');
      await expectCount(kiosk.getByRole('button', { name: 'Escribirlo' }), 1);
      await expectCount(kiosk.getByRole('button', { name: '¿Primera vez aquí? Únase con su teléfono' }), 1);
      const spanish = await screenLines(page);
      expect(spanish.filter((line) => english.includes(line) && !sameInBothLanguages(line, []))).toEqual([]);

      expect(await store.scan(ana.card)).toMatchObject({ ok: true });
      const welcome = kiosk.getByTestId('kiosk-welcome');
      await expectText(welcome.getByTestId('kiosk-welcome-name'), '¡Hola, Ana!');
      await expectText(welcome.getByTestId('kiosk-points'), /1,280/);
      await expectText(welcome.getByTestId('kiosk-quick-pay'), /\$25\.00.*Saldo de pago rápido/);
      await expectText(welcome, 'Volvemos al inicio en');
      await welcome.getByRole('button', { name: 'Listo' }).click();

      await kiosk.getByRole('button', { name: 'Escribirlo' }).click();
      await kiosk.getByLabel('Número de tarjeta, teléfono o correo').fill('NOSUCH42');
      await kiosk.getByRole('button', { name: 'Registrar llegada' }).click();
      const retry = kiosk.getByTestId('kiosk-retry');
      await expectText(retry, 'No le encontramos');
      await expectText(retry, 'Revise el número');
      await expectCount(retry.getByRole('button', { name: 'Intentar de nuevo' }), 1);
    } finally {
      await context.close();
      await closeAllSessions(store);
    }
  });
});
