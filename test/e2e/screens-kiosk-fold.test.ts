import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, openScreen, saveScreenshot } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { lowContrastButtons } from './screens-contrast';

// Every button a customer presses on the kiosk is on screen without scrolling: a 1024×600
// landscape panel (a common kiosk and cheap tablet size), the tests' 1280×800 and a portrait
// tablet 800×1280. Each view is measured in each size: the page does not scroll, every button
// (the on-screen keyboard's keys too) lies inside the viewport, and its text has 4.5:1 contrast.
const SIZES = [
  { width: 1024, height: 600 },
  { width: 1280, height: 800 },
  { width: 800, height: 1280 },
] as const;

describe('kiosk buttons above the fold in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  let ana: SeededCustomer;

  const kiosk = () => page.getByTestId('kiosk');
  const idle = () => kiosk().getByTestId('kiosk-idle');

  /** Buttons of `view` whose box is not wholly inside the viewport, or a scrolled page; and buttons whose text is under 4.5:1. */
  async function offScreen(view: Locator): Promise<string[]> {
    await view.waitFor();
    const faint = (await lowContrastButtons(view)).map((b) => `${b.name}: contrast ${b.ratio} (${b.color} on ${b.background})`);
    return [...faint, ...(await view.evaluate((root) => {
      const cut: string[] = [];
      const width = window.innerWidth;
      const height = window.innerHeight;
      if (document.documentElement.scrollHeight > height + 1) cut.push(`page scrolls: ${document.documentElement.scrollHeight} > ${height}`);
      if (document.documentElement.scrollWidth > width + 1) cut.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
      for (const button of root.querySelectorAll('button, [role="button"], input')) {
        const b = button.getBoundingClientRect();
        if (b.width === 0 && b.height === 0) continue;
        if (b.top < -0.5 || b.left < -0.5 || b.bottom > height + 0.5 || b.right > width + 0.5) {
          cut.push(`${button.getAttribute('aria-label') ?? button.textContent?.trim() ?? button.tagName} [${Math.round(b.left)},${Math.round(b.top)} – ${Math.round(b.right)},${Math.round(b.bottom)}]`);
        }
      }
      return cut;
    }))];
  }

  beforeAll(async () => {
    store = await startE2eStore();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'FOLD0001', points: 128, quickPayCents: 2_500 });
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey, { fakeClock: true }));
    await idle().waitFor();
    // The kiosk's first screen fits at once: the shell's padding (the sign-in screen's) is gone, not easing away.
    expect(await page.locator('main').evaluate((main) => getComputedStyle(main).paddingTop)).toBe('0px');
  });

  afterEach(async () => {
    await closeAllSessions(store);
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  for (const size of SIZES) {
    const label = `${size.width}x${size.height}`;
    it(`at ${label}: idle, typing, joining, welcome and retry show every button without scrolling`, async () => {
      await page.setViewportSize(size);
      const seen: Record<string, string[]> = {};
      seen.idle = await offScreen(idle());

      await idle().getByRole('button', { name: 'Type it instead' }).click();
      const type = kiosk().getByTestId('kiosk-type');
      seen.type = await offScreen(type);
      await saveScreenshot(page, `screens-kiosk-type-${label}`);
      await type.getByLabel('Card number, phone or email').fill('NOSUCH42');
      await type.getByRole('button', { name: 'Check in', exact: true }).click();
      const retry = kiosk().getByTestId('kiosk-retry');
      await expectAttribute(retry, 'data-kiosk-reason', 'not-found');
      seen.retry = await offScreen(retry);

      await retry.getByRole('button', { name: 'New here? Join with your phone' }).click();
      const register = kiosk().getByTestId('kiosk-register');
      seen.register = await offScreen(register);
      await saveScreenshot(page, `screens-kiosk-register-${label}`);
      // The name field switches the keyboard to letters: taller than the digits.
      await register.getByLabel('First name (optional)').focus();
      await kiosk().getByTestId('kiosk-keyboard').getByRole('button', { name: /^q$/i }).waitFor(); // "Q" at an empty name
      seen.registerLetters = await offScreen(register);
      await register.getByRole('button', { name: 'Cancel' }).click();
      await idle().waitFor();

      expect(await store.scan(ana.card)).toMatchObject({ ok: true });
      const welcome = kiosk().getByTestId('kiosk-welcome');
      seen.welcome = await offScreen(welcome);
      await saveScreenshot(page, `screens-kiosk-welcome-${label}`);
      await welcome.getByRole('button', { name: 'Done' }).click();
      await idle().waitFor();

      // The header's language switch and gear too.
      seen.header = await offScreen(kiosk());
      expect(seen).toEqual({ idle: [], type: [], retry: [], register: [], registerLetters: [], welcome: [], header: [] });
    });
  }
});
