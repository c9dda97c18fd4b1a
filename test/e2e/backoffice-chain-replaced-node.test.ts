import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitedStaff, type SignedInStaff, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ManualClock } from '../support/clock';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { http, type TestNode } from '../support/test-node';
import { addStore, type CentralHandle } from '../sync/support/chain';
import { centralWithBackOffice } from '../support/e2e-central';

// A chain operator's bad day: a store's till was replaced and the new machine paired with a new code.
// The old node stayed in central's list looking as live as the new one, and the back office had no
// way to unpair it (only DELETE /sync/nodes/:id with an admin bearer token, unaudited). Now the page
// says how long central has not heard from a node, unpairs it after a confirmation (audited), and
// marks it unpaired.
describe('a replaced till in the back office', () => {
  const clock = new ManualClock(Date.now());
  let central: CentralHandle;
  let app: FastifyInstance;
  let url: string;
  let owner: SignedInStaff;
  let browser: Browser;
  const credentials: Record<string, string> = {};

  const pair = async (label: string, store = central.vendor.storeId) => {
    const code = await http(`${url}/sync/pairing-codes`, { method: 'POST', token: central.vendor.accessToken, body: { store } });
    const paired = await http(`${url}/sync/pair`, { method: 'POST', body: { code: code.body.code, label } });
    credentials[label] = paired.body.credential as string;
    return paired.body.node_id as number;
  };
  const pull = (label: string) => http(`${url}/sync/pull?after=0&limit=5`, { token: credentials[label] });

  beforeAll(async () => {
    ({ central, app, url, owner } = await centralWithBackOffice(clock));
    const oldNode = await pair('old-till');
    expect((await pull('old-till')).status).toBe(200);
    // The old machine died three hours ago: central last heard from it then.
    await central.engine.db
      .updateTable('sync_nodes')
      .set({ last_seen_at: Date.now() - 3 * 3_600_000 })
      .where('id', '=', oldNode)
      .execute();
    await pair('new-till');
    expect((await pull('new-till')).status).toBe(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await central?.close();
  });

  it('says which node central has not heard from, and unpairs it after a confirmation, audited', async () => {
    // The list of stores says it at a glance, before any store is opened.
    const list = await backOfficePage(browser, url, owner.email, 'stores', 'Stores');
    await expectText(list.getByRole('table', { name: 'Stores' }).getByRole('row').filter({ hasText: 'Springfield' }), /2 nodes\s*1 not heard from/);
    await list.context().close();

    const page = await backOfficePage(browser, url, owner.email, `stores/${central.vendor.storeId}`, 'Store nodes');
    const nodes = page.getByRole('table', { name: 'Store nodes' });
    await expectText(nodes.getByRole('row', { name: 'old-till' }), /old-tillPaired \w{3} \d+, \d{4}.*Not heard from for 3 h/);
    expect(await nodes.getByRole('row', { name: 'new-till' }).textContent()).not.toMatch(/Not heard from/);

    await nodes.getByRole('button', { name: 'Unpair old-till' }).click();
    const dialog = page.getByRole('dialog', { name: 'Unpair the store node “old-till”?' });
    await expectText(dialog, /sales it has not sent yet do not reach the chain/);
    // The confirmation opens on the safe answer.
    await expect.poll(() => dialog.getByRole('button', { name: 'Cancel' }).evaluate((b) => b === document.activeElement)).toBe(true);
    await dialog.getByRole('button', { name: 'Yes, unpair' }).click();

    await expectText(page.getByRole('status'), '“old-till” is unpaired.');
    await expectText(nodes.getByRole('row', { name: 'old-till' }), /Unpaired /);
    expect(await nodes.getByRole('row', { name: 'old-till' }).getByRole('button', { name: 'Unpair old-till' }).count()).toBe(0);
    await nodes.getByRole('button', { name: 'Unpair new-till' }).waitFor();

    // Central refuses the old machine from its next request; the new one syncs on.
    const refused = await pull('old-till');
    expect([refused.status, refused.body.code]).toEqual([401, 'node_revoked']);
    expect((await pull('new-till')).status).toBe(200);

    const audit = await staffCall({ url } as TestNode, owner.token, 'GET', '/backoffice/audit?object_type=sync_node&limit=5');
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({ action: 'sync_node.unpair', actor: owner.email, before: { label: 'old-till', paired: true }, after: { paired: false } });
  });

  it("says a paired store's keys are used at its node, out of central's sight ('Not at central', not 'Never')", async () => {
    const page = await backOfficePage(browser, url, owner.email, `stores/${central.vendor.storeId}`, 'Store nodes');
    const keys = page.getByRole('table', { name: /^API keys of / });
    await expectText(keys, /Not at central/);
    expect(await keys.textContent()).not.toMatch(/Never/);
    await expectText(page.getByTestId('keys-used-at-node'), /central does not see that use/);
    await page.context().close();

    // A store without a node: its keys are used at central, whose record is the whole story.
    const alone = await addStore(central, 'Shelbyville');
    const other = await backOfficePage(browser, url, owner.email, `stores/${alone.storeId}`, 'API keys of Shelbyville');
    await expectText(other.getByRole('table', { name: 'API keys of Shelbyville' }), /Never/);
    expect(await other.getByTestId('keys-used-at-node').count()).toBe(0);
    await other.context().close();
  });

  it('refuses a node already unpaired (404, nothing recorded again) and a store manager (403)', async () => {
    const again = await staffCall({ url } as TestNode, owner.token, 'DELETE', `/backoffice/chain/nodes/${(await central.engine.db.selectFrom('sync_nodes').select('id').where('label', '=', 'old-till').executeTakeFirstOrThrow()).id}`);
    expect([again.status, again.body.code]).toEqual([404, 'sync_node_not_found']);
    const storeManager = await invitedStaff({ url, engine: central.engine } as TestNode, owner, 'store_manager', central.vendor.storeId);
    const newTill = (await central.engine.db.selectFrom('sync_nodes').select('id').where('label', '=', 'new-till').executeTakeFirstOrThrow()).id;
    const refused = await staffCall({ url } as TestNode, storeManager.token, 'DELETE', `/backoffice/chain/nodes/${newTill}`);
    expect(refused.status).toBe(403);
    expect((await pull('new-till')).status).toBe(200);
    const audit = await staffCall({ url } as TestNode, owner.token, 'GET', '/backoffice/audit?object_type=sync_node&limit=5');
    expect(audit.body.items).toHaveLength(1);
  });

  it("asks central for the store's chain once, and its keys' words follow an unpair at once", async () => {
    // A store whose only till is paired: its keys are used there, out of central's sight.
    const ogdenville = await addStore(central, 'Ogdenville');
    await pair('ogdenville-till', ogdenville.storeId);
    expect((await pull('ogdenville-till')).status).toBe(200);
    const page = await backOfficePage(browser, url, owner.email, `stores/${ogdenville.storeId}`, 'Store nodes');
    const chainLoads: string[] = [];
    page.context().on('request', (request) => {
      if (new URL(request.url()).pathname === '/backoffice/chain') chainLoads.push(new URL(request.url()).search);
    });
    await page.reload();
    const keys = page.getByRole('table', { name: 'API keys of Ogdenville' });
    await expectText(keys, /Not at central/);
    await page.getByRole('table', { name: 'Store nodes' }).getByRole('row', { name: 'ogdenville-till' }).waitFor();
    // StoreDetail and the node's health used to load it each (the whole chain, then this store's).
    expect(chainLoads).toEqual([`?store=${ogdenville.storeId}`]);

    await page.getByRole('button', { name: 'Unpair ogdenville-till' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, unpair' }).click();
    await expectText(page.getByRole('status'), '“ogdenville-till” is unpaired.');
    // No node uses the keys any more: central's record is the whole story, without a reload.
    await expectText(keys, /Never/);
    expect(await keys.textContent()).not.toMatch(/Not at central/);
    expect(await page.getByTestId('keys-used-at-node').count()).toBe(0);
    await page.context().close();
  });
});
