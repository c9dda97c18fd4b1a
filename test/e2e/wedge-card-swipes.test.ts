import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectCount, expectText, openScreen, typeAsScanner } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, queueNames, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';

// Card swipes through the cashier screen's keyboard-wedge capture in Chromium, as a reader types
// them (a few ms a key): a bank card swiped by mistake is refused with the node's message and its
// number shows nowhere on the page or in its console; a swipe while the order dialog has the focus
// leaves nothing in the dialog's fields. (Before the tenth round a held swipe whose keys' stamps ran
// ahead of performance.now() was never posted: use-wedge-capture's settle timer.)
const VISA_SWIPE = '%B4111111111111111^DOE/JOHN^2512101000000000?;4111111111111111=25121010000000000000?';

describe('card swipes on the cashier screen in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  let ana: SeededCustomer;
  const consoleLines: string[] = [];

  beforeAll(async () => {
    store = await startE2eStore();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Swipe', card: '12345674', points: 10 });
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    page.on('console', (message) => consoleLines.push(message.text()));
    await page.getByTestId('queue-empty').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('a bank card swiped by mistake is refused as a payment card; its number is nowhere on the page', async () => {
    await page.getByRole('heading', { name: 'Queue' }).click();
    const reply = page.waitForResponse((r) => r.url().includes('/app/scans'));
    // 10 ms a key: the keys' stamps run ahead of the page's clock (CDP dispatches them faster), as
    // when a burst is delivered late; the swipe must still be posted once it settles.
    await typeAsScanner(page, VISA_SWIPE, 10);
    expect((await reply).status()).toBe(422);
    await expectText(page.getByTestId('toasts'), /payment card/);
    expect(await queueNames(store)).toEqual([]);
    const html = await page.content();
    expect(html).not.toMatch(/4111|DOE|JOHN|2512101/);
    expect(consoleLines.join('\n')).not.toMatch(/4111|DOE|JOHN|2512101/);
  });

  it('a loyalty swipe while the order dialog has the focus checks in, and leaves the dialog\'s field empty', async () => {
    await closeAllSessions(store);
    await store.scan(ana.card);
    await expectText(page.getByTestId('customer-panel').getByTestId('customer-name'), ana.name);
    await page.keyboard.press('o');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const subtotal = page.getByTestId('order-subtotal');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)).toBe('order-subtotal');
    const posted = page.waitForRequest((r) => r.url().includes('/app/scans') && r.method() === 'POST');
    await typeAsScanner(page, ';12345674?');
    expect(JSON.parse((await posted).postData() ?? '{}')).toEqual({ line: ';12345674?' });
    await page.waitForTimeout(300);
    expect(await subtotal.inputValue()).toBe('');
    await expectCount(dialog, 1);
    await page.keyboard.press('Escape');
    await expectCount(dialog, 0);
  });
});
