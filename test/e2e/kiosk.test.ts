import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen, saveScreenshot } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, queueNames, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';

// The kiosk screen in Chromium, signed in with the store's kiosk key on a real headless store node:
// idle, a scan on the node's scanner or an identification typed on the kiosk shows the welcome with
// name and balances and then returns to idle, an unknown code gets the friendly retry screen. The
// page runs on Playwright's fake clock (time flows, and the tests jump over the kiosk's timeouts).
describe('kiosk screen in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  let ana: SeededCustomer;
  let ben: SeededCustomer;
  let dev: SeededCustomer;

  const kiosk = () => page.getByTestId('kiosk');
  const idle = () => kiosk().getByTestId('kiosk-idle');
  const welcome = () => kiosk().getByTestId('kiosk-welcome');

  /** Leaves the kiosk on idle: the welcome's timeout (8 s) passes on the fake clock. */
  async function timesOutToIdle(): Promise<void> {
    await page.clock.fastForward(11_000);
    await idle().waitFor();
  }

  beforeAll(async () => {
    store = await startE2eStore();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'CAFE0001', points: 128, quickPayCents: 2_500 });
    ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Okafor', card: 'CAFE0002', points: 45, quickPayCents: 1_000 });
    dev = await seedCustomer(store, { firstName: 'Dev', lastName: 'Patel', card: 'CAFE0004', points: 5 });
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey, { fakeClock: true }));
    await idle().waitFor();
  });

  afterEach(async () => {
    // Each customer starts a new visit: the kiosk welcomes sessions opened, not sessions updated.
    await closeAllSessions(store);
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('waits on the idle screen, full screen and without the app header', async () => {
    await expectText(idle(), 'Scan your card or app code');
    expect(await kiosk().getAttribute('role')).toBe('region');
    await expectCount(page.getByRole('banner'), 0);
    await expectCount(idle().getByRole('button', { name: 'Type it instead' }), 1);
    await expectCount(idle().getByRole('button', { name: 'New here? Join with your phone' }), 1);
    await saveScreenshot(page, 'kiosk-idle');
  });

  it("a scan on the node's scanner shows the welcome with name and balances, then goes back to idle", async () => {
    expect(await store.scan(ana.card)).toMatchObject({ ok: true });
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Ana!');
    await expectText(welcome().getByTestId('kiosk-points'), /128\s*Points/);
    await expectText(welcome().getByTestId('kiosk-quick-pay'), '$25.00');
    await expectText(welcome().getByTestId('kiosk-countdown'), /Back to the start in \d+ s/);
    await saveScreenshot(page, 'kiosk-welcome');
    expect(await queueNames(store)).toEqual([ana.name]);

    // Still welcoming a moment later; back to idle once the welcome's time is over.
    await page.clock.fastForward(3_000);
    await expectCount(welcome(), 1);
    await timesOutToIdle();
    await expectCount(welcome(), 0);
  });

  it('an identification typed on the kiosk checks in and welcomes the customer', async () => {
    await idle().getByRole('button', { name: 'Type it instead' }).click();
    const form = kiosk().getByTestId('kiosk-type');
    await form.getByLabel('Card number, phone or email').fill(ben.email);
    await form.getByRole('button', { name: 'Check in', exact: true }).click();
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Ben!');
    await expectText(welcome().getByTestId('kiosk-points'), /45\s*Points/);
    await expectText(welcome().getByTestId('kiosk-quick-pay'), '$10.00');
    expect(await queueNames(store)).toEqual([ben.name]);
    // "Done" goes back at once.
    await welcome().getByRole('button', { name: 'Done' }).click();
    await idle().waitFor();
  });

  it('a keyboard-wedge scan on the kiosk welcomes the customer too', async () => {
    await page.keyboard.type(dev.card, { delay: 5 });
    await page.keyboard.press('Enter');
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Dev!');
    await expectText(welcome().getByTestId('kiosk-points'), /5\s*Points/);
    await expectText(welcome().getByTestId('kiosk-quick-pay'), '$0.00');
    expect(await queueNames(store)).toEqual([dev.name]);
    await timesOutToIdle();
  });

  it('a newcomer joins with a phone number on the kiosk and is welcomed, checked in', async () => {
    await idle().getByRole('button', { name: 'New here? Join with your phone' }).click();
    const form = kiosk().getByTestId('kiosk-register');
    await form.getByLabel('Mobile number').fill('2015550123');
    await form.getByLabel('First name (optional)').fill('Mia');
    await form.getByRole('button', { name: 'Join', exact: true }).click();
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Mia!');
    await expectText(welcome().getByTestId('kiosk-points'), /0\s*Points/);
    const queue = await queueNames(store);
    expect(queue).toHaveLength(1);
    expect(queue[0]).toMatch(/^Mia\b/);
    await timesOutToIdle();
  });

  it('an unknown code gets the friendly retry screen, which also times out to idle', async () => {
    await idle().getByRole('button', { name: 'Type it instead' }).click();
    const form = kiosk().getByTestId('kiosk-type');
    await form.getByLabel('Card number, phone or email').fill('NOSUCH42');
    await form.getByRole('button', { name: 'Check in', exact: true }).click();
    const retry = kiosk().getByTestId('kiosk-retry');
    await expectAttribute(retry, 'data-kiosk-reason', 'not-found');
    await expectText(retry, "We couldn't find you");
    await expectText(retry, 'Check the number and try again');
    expect(await retry.getAttribute('role')).toBe('alert');
    // Nothing technical on a customer's screen.
    expect(await retry.textContent()).not.toMatch(/customer_not_found|404|error/i);
    expect(await queueNames(store)).toEqual([]);

    // "Try again" goes back to typing; left alone, the retry screen returns to idle.
    await retry.getByRole('button', { name: 'Try again' }).click();
    await kiosk().getByTestId('kiosk-type').getByRole('button', { name: 'Cancel' }).click();
    await idle().waitFor();

    expect(await store.scan('NOSUCH42')).toMatchObject({ ok: false, code: 'customer_not_found' });
    await page.keyboard.type('NOSUCH43', { delay: 5 });
    await page.keyboard.press('Enter');
    await expectAttribute(kiosk().getByTestId('kiosk-retry'), 'data-kiosk-reason', 'not-found');
    await page.clock.fastForward(11_000);
    await idle().waitFor();
  });
});
