import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen, typeAsScanner, UI_TIMEOUT } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, queueNames, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { textContrasts } from './screens-contrast';
import { insideSideways, sidewaysOverflow } from './screens-reflow';

// The kiosk screen in Chromium, signed in with the store's kiosk key on a real headless store node:
// idle, a scan on the node's scanner or an identification typed on the kiosk shows the welcome with
// name and balances and then returns to idle, an unknown code gets the friendly retry screen. The
// page runs on Playwright's fake clock (time flows, and the tests jump over the kiosk's timeouts).
// The gear is for staff: it asks for a key of the store before Settings open.
describe('kiosk screen in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  let ana: SeededCustomer;
  let ben: SeededCustomer;
  let dev: SeededCustomer;
  let eve: SeededCustomer;

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
    // Overdrawn by spends at two stores before either heard of the other (docs/sync.md).
    eve = await seedCustomer(store, { firstName: 'Eve', lastName: 'Ng', card: 'CAFE0005', points: 3, quickPayCents: -1_000 });
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey, { fakeClock: true }));
    await idle().waitFor();
  });

  // The last test stops the node.
  let nodeStopped = false;
  afterEach(async () => {
    // Each customer starts a new visit: the kiosk welcomes sessions opened, not sessions updated.
    if (!nodeStopped) await closeAllSessions(store);
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
  });

  it("a scan on the node's scanner shows the welcome with name and balances, then goes back to idle", async () => {
    expect(await store.scan(ana.card)).toMatchObject({ ok: true });
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Ana!');
    await expectText(welcome().getByTestId('kiosk-points'), /128\s*Points/);
    await expectText(welcome().getByTestId('kiosk-quick-pay'), '$25.00');
    await expectText(welcome().getByTestId('kiosk-countdown'), /Back to the start in \d+ s/);
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
    await typeAsScanner(page, dev.card);
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Dev!');
    await expectText(welcome().getByTestId('kiosk-points'), /5\s*Points/);
    await expectText(welcome().getByTestId('kiosk-quick-pay'), '$0.00');
    expect(await queueNames(store)).toEqual([dev.name]);
    await timesOutToIdle();
  });

  // The wedge goes by the keys' own timestamps: a kiosk (or a CI machine) busy enough to take each key
  // 200 ms after the last still sees the scanner's burst. On the fake clock the page stamps keys by
  // its clock, so typeAsScanner moves that clock by the scanner's gaps (kiosk tests failed under load).
  it('a keyboard-wedge scan is a scan however late a busy machine hands its keys over', async () => {
    await typeAsScanner(page, dev.card, 5, { realGapMs: 200 });
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Dev!');
    expect(await queueNames(store)).toEqual([dev.name]);
    await timesOutToIdle();
  });

  it('an overdrawn balance reads with the minus sign the counter uses (−$10.00, not -$10.00)', async () => {
    expect(await store.scan(eve.card)).toMatchObject({ ok: true });
    await expectText(welcome().getByTestId('kiosk-quick-pay'), '−$10.00');
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
    // The alert is its message; the countdown ticking below it is outside (an alert is read whole at every change).
    await expectText(retry.getByRole('alert'), "We couldn't find you");
    expect(await retry.getByTestId('kiosk-countdown').evaluate((el) => el.closest('[role="alert"], [role="status"], [aria-live="polite"], [aria-live="assertive"]'))).toBeNull();
    // Nothing technical on a customer's screen.
    expect(await retry.textContent()).not.toMatch(/customer_not_found|404|error/i);
    expect(await queueNames(store)).toEqual([]);

    // "Try again" goes back to typing; left alone, the retry screen returns to idle.
    await retry.getByRole('button', { name: 'Try again' }).click();
    await kiosk().getByTestId('kiosk-type').getByRole('button', { name: 'Cancel' }).click();
    await idle().waitFor();

    expect(await store.scan('NOSUCH42')).toMatchObject({ ok: false, code: 'customer_not_found' });
    await typeAsScanner(page, 'NOSUCH43');
    await expectAttribute(kiosk().getByTestId('kiosk-retry'), 'data-kiosk-reason', 'not-found');
    await page.clock.fastForward(11_000);
    await idle().waitFor();
  });

  it('the gear asks staff for a store key: wrong keys and other stores are refused, the cashier key opens Settings', async () => {
    const staff = () => page.getByRole('dialog', { name: 'Staff only' });
    const keyField = () => staff().getByLabel('Store key');
    const message = () => staff().getByTestId('kiosk-staff-message');
    const settings = () => page.getByRole('region', { name: 'Settings' });
    const tryKey = async (key: string) => {
      await keyField().fill(key);
      await staff().getByRole('button', { name: 'Open Settings' }).click();
    };
    const checksOfTheKey = (key: string) => {
      const seen: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (request.url().includes(encodeURIComponent(key)) || url.searchParams.get('api_key') === key) seen.push(`${request.method()} ${url.pathname}`);
      });
      return seen;
    };

    // The gear opens the lock, not Settings; Escape goes back to the kiosk.
    await kiosk().getByRole('button', { name: 'Settings' }).click();
    await staff().waitFor();
    await expectText(staff(), 'Enter a store key of this store');
    await expectCount(settings(), 0);
    await page.keyboard.press('Escape');
    await expectCount(staff(), 0);
    await idle().waitFor();

    // A wrong key and a key of another vendor's store are refused, with the tries left.
    await kiosk().getByRole('button', { name: 'Settings' }).click();
    await tryKey('pk_live_not-a-key-of-anyone');
    await expectAttribute(message(), 'data-staff-error', 'wrong');
    await expectText(message(), 'That is not a key of this store. 4 tries left.');
    const otherStore = await store.node.addVendor('Tea House');
    await tryKey(otherStore.apiKey);
    await expectText(message(), '3 tries left');
    await expectCount(settings(), 0);
    expect(await keyField().inputValue()).toBe(''); // a refused key is not left in the field
    await staff().getByRole('button', { name: 'Cancel' }).click();
    await expectCount(staff(), 0);

    // The store's cashier key opens Settings; it goes to GET /app/terminal only and is not kept.
    const sent = checksOfTheKey(store.vendor.apiKey);
    await kiosk().getByRole('button', { name: 'Settings' }).click();
    await tryKey(store.vendor.apiKey);
    await settings().waitFor();
    await expectCount(staff(), 0);
    await expectCount(kiosk(), 0);
    expect(sent).toEqual(['GET /app/terminal']);
    expect(await page.evaluate(() => localStorage.getItem('punchcard.apiKey'))).toBe(store.vendor.kioskApiKey);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toContain(store.vendor.apiKey);

    // Left alone for 60 s, Settings go back to the kiosk.
    await page.clock.fastForward(61_000);
    await idle().waitFor({ timeout: UI_TIMEOUT });
  });

  it('after 5 wrong keys in a row the lock refuses for 60 s, with a countdown', async () => {
    const staff = () => page.getByRole('dialog', { name: 'Staff only' });
    const message = () => staff().getByTestId('kiosk-staff-message');
    await kiosk().getByRole('button', { name: 'Settings' }).click();
    for (let i = 1; i <= 5; i++) {
      await staff().getByLabel('Store key').fill(`pk_live_guess-${i}`);
      await staff().getByRole('button', { name: 'Open Settings' }).click();
      await expectText(message(), i < 5 ? `${5 - i} ${5 - i === 1 ? 'try' : 'tries'} left` : 'Too many wrong keys');
    }
    await expectAttribute(message(), 'data-staff-error', 'locked');
    await expectText(message(), /Too many wrong keys\. Try again in (60|59) s\./);
    expect(await staff().getByLabel('Store key').isDisabled()).toBe(true);
    expect(await staff().getByRole('button', { name: 'Open Settings' }).isDisabled()).toBe(true);
    await page.screenshot({ path: 'test-results/screenshots/kiosk-staff-locked.png' });

    // Cancel and the gear again buy no new tries: still counting down.
    await staff().getByRole('button', { name: 'Cancel' }).click();
    await kiosk().getByRole('button', { name: 'Settings' }).click();
    await expectText(message(), /Try again in \d+ s/);
    await page.clock.fastForward(61_000);
    // The refusal is over (and the dialog, left alone, closed itself): the cashier key opens again.
    await expectCount(staff(), 0);
    await kiosk().getByRole('button', { name: 'Settings' }).click();
    await expectCount(message(), 0);
    await staff().getByLabel('Store key').fill(store.vendor.apiKey);
    await staff().getByRole('button', { name: 'Open Settings' }).click();
    await page.getByRole('region', { name: 'Settings' }).waitFor();
    // Back to the kiosk for whatever runs next.
    await page.getByRole('banner').getByRole('button', { name: 'Back' }).click();
    await idle().waitFor();
  });

  /** The focused element is inside the open dialog. */
  const focusInDialog = () => page.evaluate(() => document.activeElement?.closest('[role="dialog"]') != null);

  it('a scan while the "Staff only" dialog is open is ignored and said in the dialog: nobody checked in behind it, the focus stays in it', async () => {
    const staff = () => page.getByRole('dialog', { name: 'Staff only' });
    await kiosk().getByRole('button', { name: 'Settings' }).click();
    await staff().getByLabel('Store key').waitFor();
    await expect.poll(focusInDialog).toBe(true);
    await typeAsScanner(page, ana.card);
    await expectText(staff().getByTestId('kiosk-staff-scan-ignored'), 'A card was scanned while this window was open: it was not checked in.');
    expect(await staff().getByTestId('kiosk-staff-scan-ignored').getAttribute('role')).toBe('status');
    await page.clock.fastForward(1_000);
    expect(await focusInDialog()).toBe(true);
    // The scanned text did not stay in the key field.
    expect(await staff().getByLabel('Store key').inputValue()).toBe('');
    await expectCount(welcome(), 0);
    expect(await queueNames(store)).toEqual([]);

    // Closed, the same scan checks the customer in as usual.
    await staff().getByRole('button', { name: 'Cancel' }).click();
    await expectCount(staff(), 0);
    await typeAsScanner(page, ana.card);
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Ana!');
    await timesOutToIdle();
  });

  it('the welcome is read once: its status holds the greeting, balances and when it goes; the ticking countdown is outside; dimmed text at 4.5:1', async () => {
    expect(await store.scan(ben.card)).toMatchObject({ ok: true });
    const status = welcome().getByRole('status');
    await expectText(status, 'Welcome, Ben!');
    await expectText(status, /Back to the start in \d+ s/);
    const countdown = welcome().getByTestId('kiosk-countdown');
    await expectText(countdown, /Back to the start in \d+ s/);
    expect(await countdown.evaluate((el) => el.closest('[role="status"], [role="alert"], [aria-live="polite"], [aria-live="assertive"]'))).toBeNull();
    // Seconds later the status says the same words: nothing in it ticks.
    const said = await status.textContent();
    await page.clock.fastForward(2_000);
    await expectText(countdown, /Back to the start in [1-6] s/);
    expect(await status.textContent()).toBe(said);
    const faint = (await textContrasts(welcome(), '[data-testid="kiosk-points"] > p, [data-testid="kiosk-quick-pay"] > p')).filter((c) => c.ratio < 4.5);
    expect(faint).toEqual([]);
    await timesOutToIdle();
  });

  it('Join says why it is greyed until the mobile number has 5 digits', async () => {
    await idle().getByRole('button', { name: 'New here? Join with your phone' }).click();
    const form = kiosk().getByTestId('kiosk-register');
    const join = form.getByRole('button', { name: 'Join', exact: true });
    expect(await join.isDisabled()).toBe(true);
    const why = () => join.evaluate((b) => document.getElementById(b.getAttribute('aria-describedby') ?? '')?.innerText ?? null);
    expect(await why()).toBe('Enter your mobile number (at least 5 digits) to join.');
    await form.getByLabel('Mobile number').fill('20155');
    expect(await join.isEnabled()).toBe(true);
    expect(await join.getAttribute('aria-describedby')).toBeNull();
    await expectCount(form.getByTestId('kiosk-join-why'), 0);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await idle().waitFor();
  });

  it('at 320 px wide (400% zoom) the idle screen reflows: its heading and buttons wrap inside the window, no sideways scroll', async () => {
    await page.setViewportSize({ width: 320, height: 200 });
    try {
      await idle().waitFor();
      expect(await sidewaysOverflow(page)).toEqual([]);
      expect(await insideSideways(idle().getByRole('heading', { level: 1 }))).toBe(true);
      expect(await insideSideways(idle().getByRole('button', { name: 'New here? Join with your phone' }))).toBe(true);
      expect(await insideSideways(kiosk().getByRole('button', { name: 'Settings' }))).toBe(true);
      await page.screenshot({ path: 'test-results/screenshots/kiosk-idle-320.png', fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('says so in a customer\'s words when the node goes away (no node, no queue)', async () => {
    nodeStopped = true;
    await store.node.app.close();
    const banner = page.getByTestId('offline-banner');
    await expectText(banner, 'One moment, please: this screen is reconnecting. If it takes long, please ask at the counter.', 15_000);
    expect(await banner.textContent()).not.toMatch(/node|queue/);
  });
});
