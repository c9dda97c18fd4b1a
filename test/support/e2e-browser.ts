import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { STAFF_PASSWORD } from './backoffice';
import { ROOT } from './processes';

// Pages of the end-to-end tests: a screen signed in with a store key at the browser login step, the
// size of the screenshots in the README, and waits that fail with what the page showed instead.

/** The size of every screen the e2e tests drive (and of the screenshots in docs/screenshots). */
export const VIEWPORT = { width: 1280, height: 800 };

/** How long an assertion on the page waits for the screen to catch up. */
export const UI_TIMEOUT = 10_000;

export interface OpenScreenOptions {
  /** 'en' or 'es' kept in the browser before the page loads, as if chosen earlier; default: the vendor's. */
  language?: 'en' | 'es';
  /** Playwright's fake clock installed before the page loads (the kiosk's timeouts). */
  fakeClock?: boolean;
}

/**
 * A fresh browser context (its own localStorage) on the node's `/`, signed in with `apiKey` through
 * the login form ("Store key", "Sign in"), waiting until the login form is gone and the node has
 * answered the screen's event stream (GET /app/events): from then on the screen hears every event.
 */
export async function openScreen(browser: Browser, url: string, apiKey: string, options: OpenScreenOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: options.language === 'es' ? 'es-ES' : 'en-US', reducedMotion: 'reduce' });
  context.setDefaultTimeout(UI_TIMEOUT);
  const page = await context.newPage();
  if (options.language) await page.addInitScript((language) => localStorage.setItem('punchcard.language', language), options.language);
  if (options.fakeClock) {
    await page.clock.install();
    fakeClockPages.add(page);
  }
  const stream = page.waitForResponse((response) => new URL(response.url()).pathname === '/app/events' && response.status() === 200, { timeout: UI_TIMEOUT * 2 });
  await page.goto(url);
  const login = page.getByTestId('login');
  await login.waitFor({ timeout: UI_TIMEOUT });
  await page.getByLabel(options.language === 'es' ? 'Clave de la tienda' : 'Store key').fill(apiKey);
  await page.getByRole('button', { name: options.language === 'es' ? 'Iniciar sesión' : 'Sign in' }).click();
  await login.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
  await stream;
  return { context, page };
}

/**
 * A fresh browser signed in to the back office as `email` (the staff password of the tests) at
 * `#/<route>`, once the screen's `table` shows (null: once signed in, whatever the screen shows).
 */
export async function backOfficePage(browser: Browser, nodeUrl: string, email: string, route: string, table: string | null): Promise<Page> {
  const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT);
  await page.goto(`${nodeUrl}/admin#/${route}`);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (table === null) await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
  else await page.getByRole('table', { name: table }).waitFor();
  return page;
}

/** Waits until the locator's text matches; fails with the text it last had. */
export async function expectText(locator: Locator, expected: string | RegExp, timeout = UI_TIMEOUT): Promise<string> {
  let last = '';
  await expect
    .poll(
      async () => {
        last = (await locator.count()) > 0 ? ((await locator.first().textContent()) ?? '') : '<absent>';
        return last;
      },
      { timeout, interval: 50 },
    )
    .toMatch(typeof expected === 'string' ? new RegExp(escapeRegExp(expected)) : expected);
  return last;
}

/** Waits until the locator matches `count` elements. */
export async function expectCount(locator: Locator, count: number, timeout = UI_TIMEOUT): Promise<void> {
  await expect.poll(() => locator.count(), { timeout, interval: 50 }).toBe(count);
}

/** Waits until the locator's attribute has this value. */
export async function expectAttribute(locator: Locator, name: string, value: string, timeout = UI_TIMEOUT): Promise<void> {
  await expect.poll(async () => ((await locator.count()) > 0 ? await locator.first().getAttribute(name) : '<absent>'), { timeout, interval: 50 }).toBe(value);
}

/**
 * Waits until the focus is inside the open dialog. Mantine's focus trap moves it there on a timer
 * after the dialog mounts (to its `data-autofocus` element, else its first tabbable one): under load
 * the timer can fire while a field is being typed into, and takes the rest of the text with it.
 */
export async function expectFocusInDialog(page: Page, timeout = UI_TIMEOUT): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[role="dialog"]') != null), { timeout, interval: 50 }).toBe(true);
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Saves a screenshot of the page: always to test-results/screenshots/<name>.png, and also to
 * docs/screenshots/<name>.png (the README's pictures) when UPDATE_SCREENSHOTS=1.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  const results = join(ROOT, 'test-results', 'screenshots');
  mkdirSync(results, { recursive: true });
  const buffer = await page.screenshot({ path: join(results, `${name}.png`), animations: 'disabled', caret: 'hide' });
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    const docs = join(ROOT, 'docs', 'screenshots');
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, `${name}.png`), buffer);
  }
}

/** Pages opened on Playwright's fake clock (openScreen's `fakeClock`). */
const fakeClockPages = new WeakSet<Page>();

/**
 * Types `text` and Enter as a keyboard-wedge scanner does: a key every `gapMs`, by the keys' own
 * timestamps. A scanner's keys are stamped by the operating system as they arrive, however late
 * the page handles them; Playwright's `keyboard.type` stamps each key when it is sent, so a CI
 * machine busy with other tests could stretch a burst into "typing". Sent through the DevTools
 * protocol with explicit timestamps, the page sees trusted keys with the scanner's own timing.
 *
 * On Playwright's fake clock those timestamps never reach the page: the clock redefines
 * `Event.prototype.timeStamp` as its own `performance.now()` when the page first reads it, so a key
 * is stamped when the page handles it, and under load (each key a round trip to the browser) the
 * gaps ran past the wedge's 50 and 150 ms: the scan was typing, or lost its first keys (CI
 * flakes of kiosk.test.ts). There the clock is paused for the scan (jumping up to 50 ms ahead) and
 * moved on `gapMs` after each key, then runs again. `realGapMs` waits that long between keys in
 * real time, as a loaded machine does.
 */
export async function typeAsScanner(page: Page, text: string, gapMs = 5, { realGapMs = 0 } = {}): Promise<void> {
  const fakeClock = fakeClockPages.has(page);
  if (fakeClock) await pauseClock(page);
  const cdp = await page.context().newCDPSession(page);
  try {
    let at = Date.now() / 1000;
    const press = async (key: { key: string; text?: string; code?: string; windowsVirtualKeyCode?: number }) => {
      await cdp.send('Input.dispatchKeyEvent', { type: key.text ? 'keyDown' : 'rawKeyDown', ...key, timestamp: at });
      await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: key.key, code: key.code, windowsVirtualKeyCode: key.windowsVirtualKeyCode, timestamp: at + 0.001 });
      at += gapMs / 1000;
      if (fakeClock) await page.clock.runFor(gapMs);
      if (realGapMs > 0) await new Promise((resolve) => setTimeout(resolve, realGapMs));
    };
    for (const character of text) await press({ key: character, text: character });
    await press({ key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: '\r' });
  } finally {
    await cdp.detach();
    if (fakeClock) await page.clock.resume();
  }
}

/**
 * Pauses the page's fake clock about where it is. `pauseAt` only goes forward and the clock moves
 * on between reading it and pausing it: a little ahead, and once more if the machine was slower.
 */
async function pauseClock(page: Page): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const now = await page.evaluate(() => Date.now());
    try {
      await page.clock.pauseAt(now + 50);
      return;
    } catch (error) {
      if (attempt === 3 || !String(error).includes('past')) throw error;
    }
  }
}
