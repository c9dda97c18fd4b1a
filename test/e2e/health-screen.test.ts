import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRenderer, launchChromium } from '../support/browser';
import { ROOT } from '../support/processes';
import { startTestNode, type TestNode } from '../support/test-node';

// The renderer as a browser on the store's LAN sees it: built by electron-vite, served by a real
// headless node at `/`, driven in Debian's Chromium. Node health lives in Settings, behind the
// login step (a store key).
describe('health screen in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let page: Page;
  let kioskKey: string;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: buildRenderer() });
    kioskKey = (await node.addVendor()).kioskApiKey;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 900, height: 600 }, reducedMotion: 'reduce' });
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  it('shows the node it is served by, in Settings after signing in', async () => {
    await page.goto(node.url);
    await page.getByLabel('Store key').fill(kioskKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('region', { name: 'Kiosk' }).waitFor();
    // The kiosk's gear asks for a key of the store first ("Staff only"): the kiosk key itself opens it.
    await page.getByRole('button', { name: 'Settings' }).click();
    const staff = page.getByRole('dialog', { name: 'Staff only' });
    await staff.getByLabel('Store key').fill(kioskKey);
    await staff.getByRole('button', { name: 'Open Settings' }).click();
    const table = page.getByRole('table', { name: 'Node health' });
    await table.waitFor();
    await expect(table.textContent()).resolves.toContain(String(node.engine.nodeId));
    const text = await table.textContent();
    expect(text).toContain('sqlite');
    expect(text).toMatch(/Role\s*Store node/);
    expect(text).toMatch(/Status\s*ok/);
    mkdirSync(`${ROOT}test-results`, { recursive: true });
    await page.screenshot({ path: `${ROOT}test-results/health-screen.png`, fullPage: true });
  });

  it('says so when the node cannot be reached', async () => {
    await node.app.close();
    await page.getByTestId('settings-node').getByRole('button', { name: 'Refresh' }).click();
    // The shell's offline banner is an alert too: take the health card's own.
    const alert = page.getByRole('alert').filter({ hasText: 'Not connected' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Not connected.*cannot reach the node/s);
    expect(await page.getByRole('table', { name: 'Node health' }).textContent()).toContain('last known: ok');
  });
});

describe('health screen of a node that needs attention', () => {
  it('shows degraded in orange and says what to look at', async () => {
    // A threshold above any real disk: the node's data folder reads as low on space.
    const node = await startTestNode({ rendererDir: buildRenderer(), diskLowBytes: Number.MAX_SAFE_INTEGER });
    const browser = await launchChromium();
    try {
      const kioskKey = (await node.addVendor()).kioskApiKey;
      const page = await browser.newPage({ viewport: { width: 900, height: 600 }, reducedMotion: 'reduce' });
      await page.goto(node.url);
      await page.getByLabel('Store key').fill(kioskKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Settings' }).click();
      const staff = page.getByRole('dialog', { name: 'Staff only' });
      await staff.getByLabel('Store key').fill(kioskKey);
      await staff.getByRole('button', { name: 'Open Settings' }).click();
      const table = page.getByRole('table', { name: 'Node health' });
      await table.waitFor();
      const text = await table.textContent();
      expect(text).toMatch(/Status\s*degraded/);
      expect(text).toMatch(/Needs attention\s*the data folder's disk has [\d.]+ GiB free/);
    } finally {
      await browser.close();
      await node.close();
    }
  });
});
