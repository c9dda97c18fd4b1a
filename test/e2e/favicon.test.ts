import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { openScreen, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// The screens name their own icon (inline in index.html), so a browser never asks the node for
// /favicon.ico, which it does not serve: a 404 in every screen's network log and console.
// Headless Chromium fetches no favicon by itself, so the test reads the icon the page declares (a
// browser asks for /favicon.ico only without one) and that nothing the page asked for was a 404.
describe('the screens’ icon in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  /** Paths the page asked for that the node answered 404. */
  function notFound(page: Page): string[] {
    const missing: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 404) missing.push(new URL(response.url()).pathname);
    });
    return missing;
  }

  /** The icon the page names: an inline SVG the page itself can draw (its CSP lets data: images in). */
  async function expectInlineIcon(page: Page): Promise<void> {
    const href = await page.evaluate(() => (document.querySelector('link[rel~="icon"]') as HTMLLinkElement | null)?.href ?? '<none>');
    expect(href).toMatch(/^data:image\/svg\+xml,/);
    const width = await page.evaluate(async (src) => {
      const image = new Image();
      image.src = src;
      await image.decode();
      return image.naturalWidth;
    }, href);
    expect(width).toBeGreaterThan(0);
  }

  it('the back office asks for no /favicon.ico', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    const missing = notFound(page);
    await page.goto(`${node.url}/admin`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    // A browser asks for the icon once the page has loaded; give it the time to.
    await page.waitForTimeout(500);
    expect(missing).toEqual([]);
    await expectInlineIcon(page);
    await context.close();
  });

  it('the cashier screen asks for no /favicon.ico', async () => {
    const { context, page } = await openScreen(browser, node.url, vendor.apiKey);
    const missing = notFound(page);
    await page.reload();
    await page.getByTestId('queue').waitFor();
    await page.waitForTimeout(500);
    expect(missing).toEqual([]);
    await expectInlineIcon(page);
    await context.close();
  });
});
