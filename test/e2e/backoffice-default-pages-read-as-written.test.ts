import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The built-in content pages name the vendor: in the back office's HTML box a vendor called
// "Lupe's Bakery" reads as typed, not `Lupe&#39;s Bakery` (the name is escaped for HTML text only).
// A merchant's own page with a <script> is shown as text there and never runs.
describe('the built-in content pages in the back office', () => {
  let node: TestNode;
  let browser: Browser;
  let owner: SignedInStaff;
  let vendorId: number;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendorId = (await node.addVendor('Lupe\'s "Best" Bakery & Co')).vendorId;
    owner = await ownerOf(node, vendorId);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const contentBox = (page: Page) => page.getByRole('textbox', { name: 'Content (HTML)' });

  it('shows the vendor’s name with its apostrophe and quotes as typed, & as HTML needs it', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, 'program', 'Tiers');
    await expect.poll(() => contentBox(page).inputValue()).toContain('Lupe\'s "Best" Bakery &amp; Co loyalty program');
    expect(await contentBox(page).inputValue()).not.toMatch(/&#39;|&quot;/);
    await page.context().close();
  });

  it('keeps a merchant’s own <script> as text in the box: it does not run', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, 'program', 'Tiers');
    await page.evaluate(() => ((window as unknown as { ran?: number }).ran = 0));
    const own = '<p>Our terms</p><script>window.ran = 1</script><img src="x" onerror="window.ran = 2">';
    await contentBox(page).fill(own);
    await page.locator('.mantine-Paper-root', { has: page.getByRole('heading', { name: 'Content pages' }) }).getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await http(`${node.url}/vendor/content/terms-of-service?vendor=${vendorId}&language=en`)).body.content).toBe(own);
    expect(await page.evaluate(() => (window as unknown as { ran?: number }).ran)).toBe(0);
    await page.reload();
    await page.getByRole('table', { name: 'Tiers' }).waitFor();
    await expect.poll(() => contentBox(page).inputValue()).toBe(own);
    expect(await page.evaluate(() => (window as unknown as { ran?: number }).ran)).toBeUndefined();
    await page.context().close();
  });
});
