import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { ownerOf, STAFF_PASSWORD, type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectText, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { makeTempDir } from '../support/temp-dir';
import { http, type TestNode } from '../support/test-node';

// The chain's owner opened a store's back office (http://<store>/admin) and was told only that the
// email or password was not correct: staff live at central and are never pulled to the stores. The
// sign-in of a paired store now says so and links to central's back office.
describe("a paired store's back-office sign-in in Chromium", () => {
  const dirs = [makeTempDir('punchcard-central-'), makeTempDir('punchcard-store-')];
  let central: RunningNode;
  let store: RunningNode;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let browser: Browser;

  beforeAll(async () => {
    const renderer = builtRendererForTests();
    central = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0, rendererDir: renderer });
    vendor = await setUpVendor(central.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    owner = await ownerOf({ url: central.url, engine: central.engine } as TestNode, vendor.vendorId);
    const { code } = await issuePairingCode(central.engine, vendor.vendorId, vendor.storeId);
    await pairStoreWithCentral({ dataDir: dirs[1]!.path, central: central.url, code });
    store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0, rendererDir: renderer });
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

  it("says the chain's staff sign in at central, links there, and the owner signs in there", async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US', reducedMotion: 'reduce' });
    context.setDefaultTimeout(UI_TIMEOUT);
    const page = await context.newPage();
    await page.goto(`${store.url}/admin`);
    const note = page.getByTestId('paired-store-note');
    await expectText(note, `staff accounts live at the central node. Sign in to the chain’s back office at ${central.url}/admin.`);
    // The node's own answer is unchanged (it holds no such account), now read beside the note.
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.getByRole('alert'), 'The email address or password is not correct.');

    await note.getByRole('link', { name: `${central.url}/admin` }).click();
    await page.waitForURL(`${central.url}/admin**`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    await context.close();
  });

  it('says nothing of the kind at central itself', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    const asked: string[] = [];
    page.on('response', (response) => asked.push(`${response.status()} ${new URL(response.url()).pathname}`));
    const health = page.waitForResponse((response) => new URL(response.url()).pathname === '/health');
    await page.goto(`${central.url}/admin`);
    await health;
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForTimeout(500);
    expect(await page.getByTestId('paired-store-note').count()).toBe(0);
    // Central has no /sync/status: the screen does not ask (no 404 in the console).
    expect(asked.filter((line) => line.endsWith('/sync/status'))).toEqual([]);
    await context.close();
  });
});
