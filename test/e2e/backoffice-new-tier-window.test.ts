import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// A new tier takes every field an edited one shows: its window (the days whose points count toward
// it), empty by default for all time, as the engine's own default.
describe('a new tier in the back office', () => {
  let node: TestNode;
  let browser: Browser;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    owner = await ownerOf(node, (await node.addVendor('Tier Café')).vendorId);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  it('is added with a window typed in its form, and without one counts all time', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, 'program', 'Tiers');
    const form = page.getByRole('group', { name: 'New tier' });
    const window = form.getByRole('textbox', { name: 'Window (days)' });
    expect(await window.getAttribute('placeholder')).toBe('All time');
    expect(await window.inputValue()).toBe('');

    await form.getByRole('textbox', { name: 'Name' }).fill('Silver');
    await form.getByRole('textbox', { name: /^Threshold/ }).fill('300');
    await window.fill('30');
    await form.getByRole('button', { name: 'Add' }).click();
    const tiers = page.getByRole('table', { name: 'Tiers' });
    await expectText(tiers.getByRole('row', { name: 'Silver' }), /Silver\s*300\s*30/);
    expect(await window.inputValue()).toBe('');

    await form.getByRole('textbox', { name: 'Name' }).fill('Gold');
    await form.getByRole('textbox', { name: /^Threshold/ }).fill('900');
    await form.getByRole('button', { name: 'Add' }).click();
    await tiers.getByRole('row', { name: 'Gold' }).waitFor();
    const saved = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body.tiers as Array<{ name: string; window_days: number | null }>;
    expect(saved.find((t) => t.name === 'Silver')?.window_days).toBe(30);
    expect(saved.find((t) => t.name === 'Gold')?.window_days).toBeNull();
    await page.context().close();
  });
});
