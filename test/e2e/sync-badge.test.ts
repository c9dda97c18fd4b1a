import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { launchChromium } from '../support/browser';
import { openScreen, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// The cashier screen of a store paired with a central node: a badge says whether central is
// reachable and how many sales wait to be sent, another that the computer's clock is off from
// central's (by the Date of central's replies), and Settings shows the pairing's state.
describe('sync badge in Chromium', () => {
  const dirs = [makeTempDir('punchcard-central-'), makeTempDir('punchcard-store-')];
  let central: RunningNode;
  let store: RunningNode;
  let vendor: VendorCredentials;
  let browser: Browser;

  beforeAll(async () => {
    central = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0 });
    vendor = await setUpVendor(central.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    const { code } = await issuePairingCode(central.engine, vendor.vendorId, vendor.storeId);
    await pairStoreWithCentral({ dataDir: dirs[1]!.path, central: central.url, code });
    // This computer's clock runs two days ahead of central's: the badge says so.
    store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0, rendererDir: builtRendererForTests(), clock: { now: () => Date.now() + 2 * 86_400_000 } });
    const deadline = Date.now() + 30_000;
    while (!(await http(`${store.url}/sync/status`)).body.first_sync.done) {
      if (Date.now() > deadline) throw new Error('the first sync never finished');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await store?.close();
    await central?.close();
    for (const dir of dirs) dir.remove();
  });

  it('shows central online, then offline with the sales waiting to be sent', async () => {
    const { page } = await openScreen(browser, store.url, vendor.apiKey);
    const badge = page.getByTestId('sync-badge');
    await badge.waitFor();
    await expect.poll(() => badge.textContent(), { timeout: UI_TIMEOUT }).toBe('Central: online');
    const clock = page.getByTestId('clock-badge');
    await expect.poll(() => clock.textContent(), { timeout: UI_TIMEOUT }).toBe('Clock 2 days ahead');
    expect(await clock.getAttribute('title')).toContain("This computer's clock is off from central's");
    expect((await http(`${store.url}/sync/status`)).body.clock_offset_seconds).toBeGreaterThan(2 * 86_400 - 5);
    // The badge follows sync.changed events: an idle round of the sync loop (every 5 s) that
    // changes nothing makes the screen ask nothing.
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/sync/status')) asked.push(r.url());
    });
    await page.waitForTimeout(5_500);
    expect(asked).toEqual([]);

    await central.close();
    // A sale at the counter while central is away: it stays in the store's outbox.
    const sale = await http(`${store.url}/onscreen/register?api_key=${vendor.apiKey}`, { method: 'POST', body: { email: 'walk.in@example.com' } });
    expect([200, 201]).toContain(sale.status);
    await expect.poll(() => badge.textContent(), { timeout: UI_TIMEOUT * 2 }).toMatch(/^Central offline · [1-9]\d* pending$/);

    await page.getByRole('button', { name: 'Settings' }).click();
    const pairing = page.getByTestId('settings-pairing');
    await pairing.waitFor();
    await expect.poll(() => pairing.textContent(), { timeout: UI_TIMEOUT }).toContain(central.url);
    expect(await pairing.textContent()).toMatch(/Linkdown/);
  }, 120_000);
});
