import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedScanSource } from '../../src/devices/scan-source';
import { launchChromium } from '../support/browser';
import { expectCount, expectText, openScreen } from '../support/e2e-browser';
import { type E2eStore, queueNames, SCANNER_ID, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { http } from '../support/test-node';

// Scanners assigned to stations (issue 17, item 5) in Chromium, on a real headless store node reading
// two scripted scanners — one at the counter, one by the door at the kiosk — with a cashier screen
// and a kiosk screen open side by side, as on a desktop with both windows. The cashier assigns the
// scanners in Settings; then the kiosk welcomes only its own scanner's scans, while every scan still
// puts the customer in the counter's queue.

const KIOSK_SCANNER_ID = 'door-scanner';

describe('scanners assigned to stations, in Chromium', () => {
  const doorScanner = new ScriptedScanSource(KIOSK_SCANNER_ID);
  let store: E2eStore;
  let browser: Browser;
  let cashier: Page;
  let kiosk: Page;
  let ana: SeededCustomer;
  let ben: SeededCustomer;

  const welcome = () => kiosk.getByTestId('kiosk').getByTestId('kiosk-welcome');
  /** Every "Welcome, …" the kiosk showed, even for a moment (recorded in the page). */
  const welcomed = () => kiosk.evaluate(() => (window as unknown as { welcomed: string[] }).welcomed);

  beforeAll(async () => {
    store = await startE2eStore({ extraScanners: [doorScanner] });
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'CAFE0001', points: 128, quickPayCents: 2_500 });
    ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Okafor', card: 'CAFE0002', points: 45, quickPayCents: 1_000 });
    browser = await launchChromium();
    ({ page: cashier } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    ({ page: kiosk } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey));
    await kiosk.getByTestId('kiosk-idle').waitFor();
    await kiosk.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { welcomed: string[] }).welcomed = seen;
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="kiosk-welcome-name"]')?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('the cashier assigns the counter scanner and the door scanner in Settings', async () => {
    await cashier.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const settings = cashier.getByRole('region', { name: 'Settings' });
    await settings.waitFor();
    await expectCount(settings.getByTestId('scanner-row'), 2);
    const counterSelect = settings.getByLabel(`Station of ${SCANNER_ID}`);
    const doorSelect = settings.getByLabel(`Station of ${KIOSK_SCANNER_ID}`);
    // Unassigned at first: they serve the counter and the kiosk.
    expect(await counterSelect.inputValue()).toBe('both');
    await counterSelect.selectOption({ label: 'Counter' });
    await doorSelect.selectOption({ label: 'Kiosk' });

    // The node keeps the assignments (the screen shows what the node answered).
    await expect
      .poll(async () => {
        const reply = await http(`${store.node.url}/app/scanners?api_key=${encodeURIComponent(store.vendor.apiKey)}`);
        return Object.fromEntries((reply.body.scanners as any[]).map((s) => [s.id, s.station]));
      })
      .toEqual({ [SCANNER_ID]: 'counter', [KIOSK_SCANNER_ID]: 'kiosk' });
    await cashier.reload();
    await cashier.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    expect(await cashier.getByLabel(`Station of ${KIOSK_SCANNER_ID}`).inputValue()).toBe('kiosk');
    expect(await cashier.getByLabel(`Station of ${SCANNER_ID}`).inputValue()).toBe('counter');
    await cashier.getByRole('banner').getByRole('button', { name: 'Back' }).click();
    await cashier.getByTestId('queue').waitFor();
  });

  it("a counter scan opens the cashier's panel and leaves the kiosk idle", async () => {
    expect(await store.scan(ana.card)).toMatchObject({ ok: true });
    await expectText(cashier.getByTestId('customer-panel').getByTestId('customer-name'), ana.name);
    // The kiosk's stream carried the same event: give it time to (wrongly) react.
    await kiosk.waitForTimeout(1_500);
    await kiosk.getByTestId('kiosk-idle').waitFor();
    expect(await welcomed()).toEqual([]);
  });

  it("a scan on the kiosk's own scanner is welcomed there, and joins the counter's queue", async () => {
    expect(await store.scan(ben.card, doorScanner)).toMatchObject({ ok: true });
    await expectText(welcome().getByTestId('kiosk-welcome-name'), 'Welcome, Ben!');
    await expectText(welcome().getByTestId('kiosk-points'), /45\s*Points/);
    expect(await welcomed()).toEqual(['Welcome, Ben!']);
    expect(await queueNames(store)).toEqual([ana.name, ben.name]);
    // The cashier is busy with Ana: Ben waits in the queue, the panel stays on Ana.
    await cashier.getByTestId('queue').getByRole('listitem', { name: ben.name, exact: true }).waitFor();
    await expectText(cashier.getByTestId('customer-panel').getByTestId('customer-name'), ana.name);
  });
});
