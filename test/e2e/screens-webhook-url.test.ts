import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { saveScreenshot, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';
import { cutText, sidewaysOverflow } from './screens-reflow';

// A long webhook address in the back office's Webhooks list, in Chromium: it was one unbroken line
// that widened the table past its box, so its end was cut at the box's edge until the table was
// scrolled sideways, at 320 px and at 1280 px alike. It wraps inside its column now, at the
// address's slashes and dots, and the column stays wide enough to read (not a letter a line).
describe('Webhooks list: a long address wraps inside its column', () => {
  let browser: Browser;
  let node: TestNode;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  // Its token is one long word, as signed addresses have: no hyphen or slash for the browser to break at.
  const url = 'https://hooks.integrations.example-merchant-platform.com/punchcard/v1/accounting-sync?token=8f3a9c2e7b1d4f6a0c5e9b2d7f1a3c8e6b4d0f2a9c7e5b3d1f8a6c4e2b0d9f7a5c3e1b8d6f4a2c0e9b7d5f3a1c8e6b4d2f0a7e5c3a1f9d7b5e3c1a8f6d4b2e0c9a7f5d3b1e8c6a4f2d0b9e7c5a3f1d8b6e4c2a0f9e7d5c3b1a';

  beforeAll(async () => {
    browser = await launchChromium();
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    const made = await staffCall(node, owner.token, 'POST', '/backoffice/webhooks', { url, events: ['order.placed'], description: 'Orders to the accounting system', alert_email: 'integrations-team-with-a-long-mailbox@example.com' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function openAt(width: number, height: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/webhooks`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Webhook endpoints' }).waitFor();
    return page;
  }

  for (const [width, height] of [
    [320, 700],
    [1280, 800],
  ] as const) {
    it(`at ${width} px the whole address shows inside the table's box without scrolling it, on readable lines`, async () => {
      const page = await openAt(width, height);
      try {
        const link = page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('link').first();
        const shown = await link.evaluate((el) => {
          let box: HTMLElement | null = el.parentElement;
          while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
          const frame = (box ?? document.documentElement).getBoundingClientRect();
          const lines = [...el.getClientRects()].filter((r) => r.width > 0);
          return {
            text: (el as HTMLElement).innerText.replace(/\s+/g, ''),
            outside: lines.filter((r) => r.left < frame.left - 1 || r.right > frame.right + 1).length,
            widest: Math.max(...lines.map((r) => r.width)),
          };
        });
        expect(shown.text).toBe(url);
        expect(shown.outside, JSON.stringify(shown)).toBe(0);
        // Readable: lines of a dozen characters and more (the column is at least 12em wide; pieces may leave a line short), a third of a wide window.
        expect(shown.widest, JSON.stringify(shown)).toBeGreaterThanOrEqual(width < 400 ? 120 : 300);
        expect(await sidewaysOverflow(page)).toEqual([]);
        expect(await cutText(page)).toEqual([]);
        await saveScreenshot(page, `backoffice-webhooks-long-url-${width}px`);
      } finally {
        await page.context().close();
      }
    });
  }
});
