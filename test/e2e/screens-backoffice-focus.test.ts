import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectCount, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';
import { lowContrastButtons } from './screens-contrast';

// The back office's Program rows edited in place, by keyboard, in Chromium: Edit puts the focus in
// the row's first field; Save and Cancel (which go away with the editing) hand it back to the row's
// Edit or Rename button instead of the page's top, so the next Tab goes on from that row.
describe('back office program rows keep the focus in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let page: Page;

  /** What has the focus: its accessible name (aria-label or text) and the row it is in. */
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { name: el?.getAttribute('aria-label') ?? el?.innerText.trim() ?? null, row: el?.closest('tr')?.getAttribute('aria-label') ?? null };
    });

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    const program = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body;
    const points = program.currencies.find((c: { code: string | null }) => c.code === null).id;
    expect((await staffCall(node, owner.token, 'POST', '/backoffice/program/rewards', { name: 'Muffin', cost: 80, currency: points })).status).toBe(201);
    expect((await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: 'Silver', threshold: 100 })).status).toBe(201);
    browser = await launchChromium();
    page = await backOfficePage(browser, node.url, owner.email, 'program', 'Rewards');
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  it('a reward: Edit focuses its name; Cancel and Save give the focus back to its Edit button', async () => {
    const rewards = page.getByRole('table', { name: 'Rewards' });
    await rewards.getByRole('row', { name: 'Muffin' }).getByRole('button', { name: 'Edit' }).click();
    await expect.poll(focused).toEqual({ name: 'Name (Muffin)', row: 'Muffin' });
    await page.getByRole('row', { name: 'Muffin' }).getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(focused).toEqual({ name: 'Edit Muffin', row: 'Muffin' });

    await page.keyboard.press('Enter');
    await expect.poll(focused).toEqual({ name: 'Name (Muffin)', row: 'Muffin' });
    await page.keyboard.type(' XL');
    await page.getByRole('row', { name: 'Muffin' }).getByRole('button', { name: 'Save' }).click();
    await expectText(rewards.getByRole('row', { name: 'Muffin XL' }), 'Muffin XL');
    await expect.poll(focused).toEqual({ name: 'Edit Muffin XL', row: 'Muffin XL' });
  });

  it("a tier and a currency: the focus comes back to the row's Edit or Rename after Save and Cancel", async () => {
    const tiers = page.getByRole('table', { name: 'Tiers' });
    await tiers.getByRole('row', { name: 'Silver' }).getByRole('button', { name: 'Edit' }).click();
    await expect.poll(focused).toEqual({ name: 'Name (Silver)', row: 'Silver' });
    await tiers.getByRole('row', { name: 'Silver' }).getByRole('button', { name: 'Save' }).click();
    await expect.poll(focused).toEqual({ name: 'Edit Silver', row: 'Silver' });

    const currencies = page.getByRole('table', { name: 'Currencies' });
    const row = currencies.getByRole('row', { name: 'Points' });
    await row.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(focused).toEqual({ name: 'Name (Points)', row: 'Points' });
    await row.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(focused).toEqual({ name: 'Rename Points', row: 'Points' });
  });

  it("an earning rule's Rename: Cancel gives the focus back to Rename", async () => {
    const row = page.getByRole('table', { name: 'Earning rules' }).getByRole('row').nth(1);
    const rule = await row.getAttribute('aria-label');
    await row.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(focused).toEqual({ name: `Name (${rule})`, row: rule });
    await row.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(focused).toEqual({ name: `Rename ${rule}`, row: rule });
  });

  it('Esc cancels a Rename or an Edit in place, and the focus goes back to its button', async () => {
    const row = page.getByRole('table', { name: 'Earning rules' }).getByRole('row').nth(1);
    const rule = (await row.getAttribute('aria-label')) ?? '';
    await row.getByRole('button', { name: `Rename ${rule}`, exact: true }).click();
    await expect.poll(focused).toEqual({ name: `Name (${rule})`, row: rule });
    await page.keyboard.type(' changed');
    await page.keyboard.press('Escape');
    await expectCount(row.getByRole('textbox', { name: `Name (${rule})` }), 0);
    await expect.poll(focused).toEqual({ name: `Rename ${rule}`, row: rule });
    expect(await row.getAttribute('aria-label')).toBe(rule);

    const rewards = page.getByRole('table', { name: 'Rewards' });
    const reward = (await rewards.getByRole('row').nth(1).getAttribute('aria-label')) ?? '';
    await rewards.getByRole('button', { name: `Edit ${reward}`, exact: true }).click();
    await expect.poll(focused).toEqual({ name: `Name (${reward})`, row: reward });
    await page.keyboard.press('Escape');
    await expect.poll(focused).toEqual({ name: `Edit ${reward}`, row: reward });
  });

  it("the back office's buttons have 4.5:1 text contrast too", async () => {
    expect(await lowContrastButtons(page.locator('body'))).toEqual([]);
  });
});
