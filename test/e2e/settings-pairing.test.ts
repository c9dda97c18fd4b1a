import { sql } from 'kysely';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { recordVerdicts } from '../../src/core/sync/outbox/pending-events';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { launchChromium } from '../support/browser';
import { expectText, openScreen, saveScreenshot, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// A store of its own joins a chain from the cashier's Settings: central's address and a pairing
// code, its own data set aside; the node restarts paired, the cashier signs in with a key of the
// chain, sees the first sync done, and can unpair again (with confirmation).
describe('pairing from Settings in Chromium', () => {
  const dirs = [makeTempDir('punchcard-central-'), makeTempDir('punchcard-store-')];
  let central: RunningNode;
  let store: RunningNode;
  let chain: VendorCredentials;
  let local: VendorCredentials;
  let browser: Browser;

  beforeAll(async () => {
    central = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0 });
    chain = await setUpVendor(central.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0, rendererDir: builtRendererForTests() });
    local = await setUpVendor(store.engine, { name: 'Corner Shop', currency: 'USD', country: 'US', store: { name: 'Corner', address1: '2 Lane', city: 'Shelbyville' } });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await store?.close();
    await central?.close();
    for (const dir of dirs) dir.remove();
  });

  it('pairs with a code, signs in with a key of the chain, and unpairs after confirming', async () => {
    const storeUrl = store.url;
    const { page } = await openScreen(browser, storeUrl, local.apiKey);
    await page.getByRole('button', { name: 'Settings' }).click();
    const card = page.getByTestId('settings-pairing');
    const form = card.getByTestId('pairing-form');
    await form.waitFor();
    const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);
    await form.getByLabel('Central address').fill(central.url);
    await form.getByLabel('Pairing code').fill(code);

    // Without setting the store's own data aside, the node refuses and says why.
    await form.getByRole('button', { name: 'Pair' }).click();
    await expectText(form.getByRole('alert'), /already has data of its own/);
    await form.getByLabel(/Set this store's own data aside/).check();
    await saveScreenshot(page, 'settings-pairing');
    await form.getByRole('button', { name: 'Pair' }).click();
    await expectText(card.getByTestId('pairing-done'), /Paired\. The store restarts/);

    // The node restarted paired; once its first sync is in, the chain's key signs in.
    await expect.poll(async () => (await http(`${storeUrl}/sync/status`).catch(() => ({ body: {} }))).body?.first_sync?.done ?? false, { timeout: UI_TIMEOUT * 4 }).toBe(true);
    // The card re-renders while the restarted node reconnects (a loaded machine: for seconds), which
    // can detach the button under a click: click again until the sign-in step shows.
    const login = page.getByTestId('login');
    await vi.waitFor(
      async () => {
        if (await login.isVisible()) return;
        await card.getByRole('button', { name: 'Sign in again' }).click({ timeout: 3_000 });
        await login.waitFor({ timeout: 3_000 });
      },
      { timeout: UI_TIMEOUT * 3, interval: 200 },
    );
    await page.getByLabel('Store key').fill(chain.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await login.waitFor({ state: 'detached' });
    // The screen loads the chain's program behind the sign-in: seconds on a loaded machine.
    await page.getByRole('button', { name: 'Settings' }).click({ timeout: UI_TIMEOUT * 3 });
    await expectText(page.getByTestId('settings-terminal'), /Chain Café/);
    await expectText(card, new RegExp(`Paired with${central.url.replace(/[.]/g, '\\.')}`));
    await expectText(card, /First syncdone/);
    await expectText(page.getByTestId('sync-badge'), 'Central: online');

    // An event central refused (as a sale of a card another store took would be): the card says
    // how many, and lists when it was made and central's reason on demand.
    const db = store.engine.db;
    await sql`insert into sync_events (node_seq, event_id, node_id, type, version, payload, offline, created_at) values (900001, 'evt-refused', ${store.engine.nodeId}, 'local.write', 1, '{}', 1, ${Date.UTC(2026, 10, 20, 9)})`.execute(db);
    await db.transaction().execute((trx) => recordVerdicts(trx, store.engine, [{ node_seq: 900001, event_id: 'evt-refused', verdict: 'rejected', code: 'card_taken', message: 'Card C-7 belongs to another customer.' }]));
    store.engine.events.publish({ type: 'sync.changed', vendorId: chain.vendorId, storeId: chain.storeId, sessionId: null, at: Date.now() });
    const refused = card.getByTestId('rejected-events');
    await refused.getByRole('button', { name: 'Show what central refused (1)' }).click();
    await expectText(refused.getByRole('table'), /Card C-7 belongs to another customer\./);
    await saveScreenshot(page, 'settings-sync-refused');

    // Unpairing asks first, then restarts the node empty.
    await card.getByRole('button', { name: 'Unpair…' }).click();
    const confirm = card.getByTestId('unpair-confirm');
    await expectText(confirm, /sets the chain’s data on this store aside/);
    await confirm.getByRole('button', { name: 'Yes, unpair' }).click();
    await expectText(card.getByTestId('pairing-done'), /Unpaired/);
    await expect.poll(async () => (await http(`${storeUrl}/sync/status`).catch(() => ({ body: {} }))).body?.paired, { timeout: UI_TIMEOUT * 2 }).toBe(false);
  }, 180_000);
});
