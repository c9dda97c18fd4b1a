import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectFocusInDialog, expectText, openScreen, saveScreenshot } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';
import { borderContrast, lowContrastButtons, textContrasts } from './screens-contrast';
import { insideSideways, sidewaysOverflow } from './screens-reflow';

// What a screens run found on the cashier screen, in Chromium: a queue name cut at 1024 px, the
// focus lost after registering a customer, dialogs' unnamed ✕, teal buttons at 2.55:1, and the
// order dialog greying "Place order" offline without a word. The last test stops the node.
describe('cashier screen: names, focus, contrast and the offline order in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  let maria: SeededCustomer;
  let ana: SeededCustomer;

  const queue = () => page.getByTestId('queue');
  const panel = () => page.getByTestId('customer-panel');

  async function open(customer: SeededCustomer, on = page): Promise<void> {
    await on.getByTestId('queue').getByRole('listitem', { name: customer.name }).getByRole('button').click();
    await expectText(on.getByTestId('customer-panel').getByTestId('customer-name'), customer.name);
  }

  beforeAll(async () => {
    store = await startE2eStore();
    maria = await seedCustomer(store, { firstName: 'Maria Fernanda', lastName: 'Echeverria Villacis', card: 'NAME0001', points: 1_280, quickPayCents: 2_500 });
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'NAME0002', points: 40, quickPayCents: 500 });
    const api = inStoreApi(() => store.node);
    await api.addReward(store.vendor, { name: 'Free coffee', cost: 100 });
    await api.checkInOk(store.vendor.apiKey, maria.card);
    await api.checkInOk(store.vendor.apiKey, ana.card);
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    await page.getByTestId('queue-count').getByText('2 waiting').waitFor();
  });

  // A test that failed with a dialog open leaves none for the next one.
  afterEach(async () => {
    for (let i = 0; i < 3 && (await page.getByRole('dialog').count()) > 0; i++) await page.keyboard.press('Escape');
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('at 1024 px wide the queue shows "Maria Fernanda Echeverria Villacis" whole, on two lines at most', async () => {
    for (const height of [600, 768]) {
      await page.setViewportSize({ width: 1024, height });
      const name = queue().getByRole('listitem', { name: maria.name }).getByText(maria.name, { exact: true });
      const shown = await name.evaluate((el) => {
        const lineHeight = parseFloat(getComputedStyle(el).lineHeight);
        return { text: (el as HTMLElement).innerText, cutSideways: el.scrollWidth > el.clientWidth + 1, cutBelow: el.scrollHeight > el.clientHeight + 1, lines: Math.round(el.getBoundingClientRect().height / lineHeight) };
      });
      expect(shown, `at 1024×${height}`).toMatchObject({ text: maria.name, cutSideways: false, cutBelow: false });
      expect(shown.lines).toBeLessThanOrEqual(2);
    }
    await saveScreenshot(page, 'screens-cashier-queue-1024');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('button text has 4.5:1 contrast or more: the screen, the panel and the order dialog', async () => {
    await open(maria);
    expect(await lowContrastButtons(page.locator('body'))).toEqual([]);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('order-subtotal').waitFor();
    expect(await lowContrastButtons(dialog)).toEqual([]);
    // Place order itself, the teal one the run measured at 2.55:1, is among those measured.
    expect(await dialog.getByRole('button', { name: /^Place order/ }).isEnabled()).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it("dialogs' close buttons are named: Close, and Cerrar in Spanish", async () => {
    const unnamed = () =>
      page.getByRole('dialog').evaluate((d) =>
        [...d.querySelectorAll('button')].filter((b) => !b.getAttribute('aria-label')?.trim() && !b.innerText.trim() && !b.getAttribute('aria-labelledby')).map((b) => b.outerHTML.slice(0, 80)),
      );
    await page.getByRole('button', { name: /^Register customer/ }).click();
    await expectCount(page.getByRole('dialog').getByRole('button', { name: 'Close', exact: true }), 1);
    expect(await unnamed()).toEqual([]);
    await page.getByRole('dialog').getByRole('button', { name: 'Close', exact: true }).click();
    await expectCount(page.getByRole('dialog'), 0);

    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await panel().getByRole('button', { name: /^Hacer pedido/ }).click();
    await expectCount(page.getByRole('dialog').getByRole('button', { name: 'Cerrar', exact: true }), 1);
    expect(await unnamed()).toEqual([]);
    await page.keyboard.press('Escape');
    await expectCount(page.getByRole('dialog'), 0);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
  });

  it("after registering a customer the focus is on the new customer's name in the panel", async () => {
    await page.getByRole('button', { name: /^Register customer/ }).click();
    const dialog = page.getByRole('dialog');
    // The focus trap's late focus would pull the focus out of a name box as it is filled.
    await expectFocusInDialog(page);
    await dialog.getByText('By email', { exact: true }).click();
    await dialog.getByLabel('Email address').fill('lucia.paredes@example.com');
    await dialog.getByLabel('First name (optional)').fill('Lucía');
    await dialog.getByLabel('Last name (optional)').fill('Paredes');
    await dialog.getByRole('button', { name: 'Register and check in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('customer-name'), 'Lucía Paredes');
    await expect
      .poll(() => page.evaluate(() => ({ testid: document.activeElement?.getAttribute('data-testid'), text: (document.activeElement as HTMLElement | null)?.innerText })))
      .toEqual({ testid: 'customer-name', text: 'Lucía Paredes' });
    // Tab goes on to the panel's first action: placing the order.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="customer-panel"]') !== null)).toBe(true);
  });

  /** data-testid (or tag) and text of the focused element. */
  const focused = (on = page) =>
    on.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { testid: el?.getAttribute('data-testid') ?? el?.tagName.toLowerCase() ?? null, text: el?.innerText?.trim().split('\n')[0] ?? '' };
    });
  /** The field's aria-invalid, and the text of what its aria-describedby points at. */
  const fieldError = (field: Locator) =>
    field.evaluate((el) => ({
      invalid: el.getAttribute('aria-invalid'),
      describedBy: (el.getAttribute('aria-describedby') ?? '')
        .split(/\s+/)
        .filter(Boolean)
        .map((id) => document.getElementById(id))
        .map((d) => (d ? `${d.getAttribute('role') ?? '-'}: ${d.innerText.replace(/\s+/g, ' ').trim()}` : '<missing>')),
    }));

  it('has one h1 naming the screen and the store', async () => {
    await expectCount(page.getByRole('heading', { level: 1 }), 1);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Cashier: Market Street');
  });

  it('F2, a card typed and Enter: the new customer’s name in the panel has the focus', async () => {
    const rosa = await seedCustomer(store, { firstName: 'Rosa', lastName: 'Quispe', card: 'NAME0003', points: 10 });
    await page.getByRole('heading', { name: 'Queue' }).click();
    await page.keyboard.press('F2');
    await page.keyboard.type(rosa.card, { delay: 150 }); // a person's pace: not a scanner's burst
    await page.keyboard.press('Enter');
    await expectText(panel().getByTestId('customer-name'), rosa.name);
    await expect.poll(() => focused()).toEqual({ testid: 'customer-name', text: rosa.name });
  });

  it('a check-in that finds nobody marks the box invalid and points it at the error; typing clears both', async () => {
    const box = page.getByTestId('check-in-input');
    await box.fill('nobody.here@example.com');
    await box.press('Enter');
    const error = page.getByTestId('check-in-error');
    await error.waitFor();
    const linked = await fieldError(box);
    expect(linked.invalid).toBe('true');
    expect(linked.describedBy).toHaveLength(1);
    expect(linked.describedBy[0]).toMatch(/^alert: Check-in failed/);
    // The focus stays in the box, to fix what was typed.
    expect((await focused()).testid).toBe('check-in-input');
    await page.keyboard.type('x');
    await expectCount(error, 0);
    expect(await fieldError(box)).toEqual({ invalid: null, describedBy: [] });
    await box.fill('');
  });

  it('Ctrl+Enter places the order and the focus stays on its result: Enter then does not open the next customer', async () => {
    await closeAllSessions(store);
    const api = inStoreApi(() => store.node);
    await api.checkInOk(store.vendor.apiKey, maria.card);
    await api.checkInOk(store.vendor.apiKey, ana.card);
    await expectCount(queue().getByTestId('queue-entry'), 2);
    await open(maria);
    await page.keyboard.press('o');
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('order-subtotal').waitFor();
    await expect.poll(() => focused()).toMatchObject({ testid: 'order-subtotal' });
    await page.keyboard.type('3.20', { delay: 60 });
    await page.keyboard.press('Control+Enter');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => focused()).toMatchObject({ testid: 'order-result' });
    // Maria left the queue and Ana's row is highlighted: the focus did not move to it.
    await expectCount(queue().getByRole('listitem', { name: maria.name }), 0);
    await page.waitForTimeout(300);
    expect((await focused()).testid).toBe('order-result');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    expect(await panel().getByTestId('customer-name').textContent()).toBe(maria.name);
    await panel().getByTestId('order-result').waitFor();
  });

  it('order and register errors are linked to their field and announced (role alert); the register choice is a named group', async () => {
    await open(ana);
    await page.keyboard.press('o');
    const dialog = page.getByRole('dialog');
    const subtotal = dialog.getByTestId('order-subtotal');
    await subtotal.waitFor();
    // Ctrl+Enter is the form's own key: only once the focus trap's timer has put the focus in the form (before, it went to the page).
    await expect.poll(() => focused()).toMatchObject({ testid: 'order-subtotal' });
    await page.keyboard.press('Control+Enter');
    await expect.poll(async () => (await fieldError(subtotal)).describedBy.some((d) => d.startsWith('alert: '))).toBe(true);
    expect((await fieldError(subtotal)).invalid).toBe('true');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: /^Register customer/ }).click();
    await dialog.getByRole('radiogroup', { name: 'Register by' }).waitFor();
    await dialog.getByRole('button', { name: 'Register and check in' }).click();
    const phone = dialog.getByLabel('Mobile number', { exact: true });
    await expect.poll(async () => (await fieldError(phone)).describedBy).toEqual(['alert: Enter a mobile number.']);
    expect((await fieldError(phone)).invalid).toBe('true');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('dimmed text reads at 4.5:1 (the open queue row too), fields have a 3:1 border and a focus ring, the open row is aria-current', async () => {
    await open(ana);
    const row = queue().getByRole('listitem', { name: ana.name });
    await expectAttribute(row.getByRole('button'), 'aria-current', 'true');
    // The open row's "Checked in at" on its teal background, and the other rows'.
    const dimmed = await textContrasts(queue(), 'li p[data-size="sm"]');
    expect(dimmed.length).toBeGreaterThan(0);
    expect(dimmed.filter((d) => d.ratio < 4.5)).toEqual([]);
    // The highlighted row's border against its own teal and the list's white.
    const rowButton = row.getByRole('button');
    await rowButton.focus();
    expect((await borderContrast(rowButton)).ratio).toBeGreaterThanOrEqual(3);

    const box = page.getByTestId('check-in-input');
    const border = await borderContrast(box);
    expect(border.ratio, JSON.stringify(border)).toBeGreaterThanOrEqual(3);
    await box.focus();
    const ring = await box.evaluate((el) => ({ style: getComputedStyle(el).outlineStyle, width: parseFloat(getComputedStyle(el).outlineWidth) }));
    expect(ring.style).toBe('solid');
    expect(ring.width).toBeGreaterThanOrEqual(2);
    await page.getByRole('heading', { name: 'Queue' }).click();

    // Nothing open: the panel's hint.
    await closeAllSessions(store);
    await panel().getByRole('button', { name: 'Done', exact: true }).click();
    const none = panel().getByTestId('customer-none');
    await none.waitFor();
    const [hint] = await textContrasts(none, '*');
    expect(hint!.ratio, JSON.stringify(hint)).toBeGreaterThanOrEqual(4.5);
  });

  it('at 320 px wide (400% zoom) the header wraps: Settings reachable, nothing cut off, no sideways scroll, the queue not covered', async () => {
    await inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, maria.card);
    await page.setViewportSize({ width: 320, height: 200 });
    try {
      const banner = page.getByRole('banner');
      const settings = banner.getByRole('button', { name: 'Settings' });
      await settings.waitFor();
      expect(await sidewaysOverflow(page)).toEqual([]);
      // Names are whole in the queue (not cut to two lines as on a wide screen).
      const name = queue().getByRole('listitem', { name: maria.name }).getByTestId('queue-name');
      expect(await name.evaluate((el) => ({ text: (el as HTMLElement).innerText, cut: el.scrollHeight > el.clientHeight + 1 }))).toEqual({ text: maria.name, cut: false });
      expect(await insideSideways(settings)).toBe(true);
      expect(await insideSideways(banner.getByText('EN', { exact: true }))).toBe(true);
      // The header scrolls with the page: not fixed over the queue.
      expect(await banner.evaluate((el) => getComputedStyle(el).position)).not.toBe('fixed');
      const heading = queue().getByRole('heading', { name: 'Queue' });
      await heading.scrollIntoViewIfNeeded();
      // Polled: the page may still be scrolling when scrollIntoViewIfNeeded returns.
      await expect.poll(() => heading.evaluate((el) => { const b = el.getBoundingClientRect(); return document.elementFromPoint(b.left + 5, b.top + b.height / 2) === el || el.contains(document.elementFromPoint(b.left + 5, b.top + b.height / 2)); }), { timeout: 5_000 }).toBe(true);
      await page.screenshot({ path: 'test-results/screenshots/screens-cashier-320.png', fullPage: true });
      await settings.click();
      await page.getByRole('region', { name: 'Settings' }).waitFor();
      await banner.getByRole('button', { name: 'Back' }).click();
      await queue().waitFor();
      expect(await sidewaysOverflow(page)).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('a wrong key at sign-in keeps the focus in the key field, marked invalid and pointing at the refusal', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    try {
      const login = await context.newPage();
      await login.goto(store.node.url);
      const key = login.getByLabel('Store key');
      await key.waitFor();
      await key.focus();
      await login.keyboard.type('pcak_not-a-key-of-this-store');
      await login.keyboard.press('Enter');
      await login.getByTestId('login-error').waitFor();
      await expect.poll(() => key.evaluate((el) => el === document.activeElement)).toBe(true);
      const linked = await fieldError(key);
      expect(linked.invalid).toBe('true');
      expect(linked.describedBy).toEqual([expect.stringMatching(/^alert: The store node did not accept this key/)]);
    } finally {
      await context.close();
    }
  });

  it('offline, the order dialog says why Place order is greyed, in English and in Spanish', async () => {
    await closeAllSessions(store);
    await inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, ana.card);
    const { page: spanish } = await openScreen(browser, store.node.url, store.vendor.apiKey, { language: 'es' });
    await open(ana);
    await open(ana, spanish);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    await spanish.getByTestId('customer-panel').getByRole('button', { name: /^Hacer pedido/ }).click();
    await page.getByRole('dialog').getByTestId('order-subtotal').fill('4.50');
    await expectCount(page.getByTestId('order-offline'), 0);

    await store.node.app.close();
    const reason = page.getByRole('dialog').getByTestId('order-offline');
    await expectText(reason, 'The connection to the store node is lost: the order can be placed once it is back. What you typed stays here.', 15_000);
    const place = page.getByRole('dialog').getByRole('button', { name: /^Place order/ });
    expect(await place.isDisabled()).toBe(true);
    // The greyed button is described by the reason (a screen reader says it with the button).
    await expectAttribute(place, 'aria-describedby', (await reason.getAttribute('id')) ?? '<no id>');
    expect(await page.getByRole('dialog').getByTestId('order-subtotal').inputValue()).toBe('4.50');
    await saveScreenshot(page, 'screens-cashier-order-offline');

    await expectText(spanish.getByRole('dialog').getByTestId('order-offline'), 'Se perdió la conexión con el nodo de la tienda: el pedido se podrá realizar cuando vuelva. Lo escrito se queda aquí.', 15_000);
    const placeEs = spanish.getByRole('dialog').getByRole('button', { name: /^Hacer pedido/ });
    expect(await placeEs.isDisabled()).toBe(true);
  });
});
