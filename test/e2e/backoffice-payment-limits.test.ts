import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// The back office's payment limits in Chromium: a yen program's owner sees the defaults in yen,
// sets the largest eGift in yen (stored in minor units, which for yen are yen) and clears the
// largest reload back to its default.
describe('back-office payment limits in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await setUpVendor(node.engine, { name: 'Kissa Tokyo', currency: 'JPY', country: 'JP', store: { name: 'Shibuya', address1: '1-1 Dogenzaka', city: 'Tokyo' } });
    owner = await ownerOf(node, vendor.vendorId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function signedInPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: VIEWPORT, reducedMotion: 'reduce' });
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    return page;
  }

  const stored = async () =>
    node.engine.db.selectFrom('vendors').select(['egift_max_amount', 'reload_max_amount']).where('id', '=', vendor.vendorId).executeTakeFirstOrThrow();

  it('an owner sets the largest eGift in yen and leaves the largest reload at its default', async () => {
    await node.engine.db.updateTable('vendors').set({ reload_max_amount: 30_000 }).where('id', '=', vendor.vendorId).execute();
    const page = await signedInPage();
    await page.getByRole('tab', { name: 'Program' }).click();
    const limits = page.getByLabel('Payment limits');
    const egift = limits.getByRole('textbox', { name: 'Largest eGift (JPY)' });
    const reload = limits.getByRole('textbox', { name: 'Largest reload (JPY)' });
    await egift.waitFor();
    expect(await egift.getAttribute('placeholder')).toBe('Default: ¥100,000');
    expect(await reload.inputValue()).toBe('30000');

    await egift.fill('50000');
    await reload.fill('');
    await limits.getByRole('button', { name: 'Save' }).click();
    await limits.getByText('Saved').first().waitFor();
    expect(await stored()).toEqual({ egift_max_amount: 50_000, reload_max_amount: null });
    await page.close();
  });
});
