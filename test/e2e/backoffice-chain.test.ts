import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { type SignedInStaff, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ManualClock } from '../support/clock';
import { backOfficePage, expectText, saveScreenshot } from '../support/e2e-browser';
import { http, type TestNode } from '../support/test-node';
import type { CentralHandle } from '../sync/support/chain';
import { centralWithBackOffice } from '../support/e2e-central';

// Central's back office in Chromium: a store node paired, pulled and pushed an event central
// rejected; the store's page shows the node's health and the exception, which the owner resolves
// with a note that lands in the audit log.
describe('chain health in Chromium', () => {
  const clock = new ManualClock(Date.now());
  let central: CentralHandle;
  let app: FastifyInstance;
  let url: string;
  let owner: SignedInStaff;
  let browser: Browser;

  beforeAll(async () => {
    ({ central, app, url, owner } = await centralWithBackOffice(clock));
    const code = await http(`${url}/sync/pairing-codes`, { method: 'POST', token: central.vendor.accessToken, body: { store: central.vendor.storeId } });
    const credential = (await http(`${url}/sync/pair`, { method: 'POST', body: { code: code.body.code, label: 'Counter PC' } })).body.credential as string;
    clock.advance(120_000);
    // An older store (an upgrade store by store under way).
    await http(`${url}/sync/pull?after=0&limit=5`, { token: credential, headers: { 'punchcard-schema': '0040-stored-value-paybacks' } });
    const pushed = await http(`${url}/sync/push`, {
      method: 'POST',
      token: credential,
      body: { events: [{ node_seq: 1, event_id: 'evt-1', type: 'local.write', offline: true, created_at: clock.now(), changes: [{ tbl: 'vendors', op: 'upsert', data: { id: 1 } }] }] },
    });
    expect(pushed.body.results[0].verdict).toBe('rejected');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await central?.close();
  });

  it('shows a store node’s health and resolves its exception, audited', async () => {
    const page = await backOfficePage(browser, url, owner.email, `stores/${central.vendor.storeId}`, 'Store nodes');

    const nodes = page.getByRole('table', { name: 'Store nodes' });
    // last event 1 (it sells: first sync done), changes still to pull, 1 rejected event, 1 open exception
    await expectText(nodes.getByRole('row', { name: 'Counter PC' }), /Counter PC.*\d{4}.*1\s*[1-9]\d*\s*Done\s*1\s*1\s*0040\s*Older than central: upgrade it/s);
    const exception = page.getByRole('table', { name: 'Sync exceptions to resolve' }).getByRole('row', { name: 'event 1 (local.write)' });
    // The kind in words, then what central said.
    await expectText(exception, /Change refused.*table_not_accepted/s);
    await saveScreenshot(page, 'backoffice-chain');

    await exception.getByRole('textbox', { name: 'How it was resolved' }).fill('Store software updated');
    await exception.getByRole('button', { name: 'Resolve' }).click();
    await expectText(page.getByRole('status'), 'Resolved.');
    await expectText(page.getByTestId('node-health'), 'No open exceptions.');
    const audit = await staffCall({ url } as TestNode, owner.token, 'GET', '/backoffice/audit?object_type=sync_exception&limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'sync_exception.resolve', actor: owner.email, after: { note: 'Store software updated' } });
  });

  it("an exception about a customer links to the customer's profile", async () => {
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    const userId = Number((await registerInStore(central.engine, scope, { email: 'olga.overdraft@example.com', firstName: 'Olga', lastName: 'Ortiz' })).session.user_id);
    await central.engine.db
      .insertInto('sync_exceptions')
      .values({ vendor_id: central.vendor.vendorId, store_id: central.vendor.storeId, node_id: null, kind: 'offline_overdraft', subject: `user ${userId}`, message: 'spends left a balance of -6.00 USD', created_at: clock.now(), resolved_at: null })
      .execute();
    const page = await backOfficePage(browser, url, owner.email, `stores/${central.vendor.storeId}`, 'Store nodes');
    const row = page.getByRole('table', { name: 'Sync exceptions to resolve' }).getByRole('row', { name: `user ${userId}` });
    // Named, not by id (twelfth round).
    await row.getByRole('link', { name: 'Olga Ortiz' }).click();
    await expectText(page.getByRole('main'), /Olga Ortiz.*olga\.overdraft@example\.com/s);
    await page.close();
  });

  it('offline caps for quick pay are typed and shown in the currency’s units, sent in minor units', async () => {
    const page = await backOfficePage(browser, url, owner.email, 'program', 'Earning rules');
    const caps = page.getByLabel('Offline caps');
    await caps.getByRole('textbox', { name: 'Quick pay per order (USD)' }).fill('12.345');
    await expectText(caps, /Quick pay per order: at most 2 decimals\./);
    await caps.getByRole('textbox', { name: 'Quick pay per order (USD)' }).fill('12.50');
    await caps.getByRole('textbox', { name: 'Quick pay per customer per day (USD)' }).fill('40');
    await caps.getByRole('textbox', { name: 'Points per order' }).fill('300');
    await caps.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Saved.');
    const program = await staffCall({ url } as TestNode, owner.token, 'GET', '/backoffice/program');
    expect(program.body.offline_caps).toMatchObject({ quick_pay_per_order: 1250, quick_pay_per_day: 4000, points_per_order: 300, points_per_day: null });
    // Read again, the caps show in units.
    await page.reload();
    expect(await page.getByLabel('Offline caps').getByRole('textbox', { name: 'Quick pay per order (USD)' }).inputValue()).toBe('12.5');
    expect(await page.getByLabel('Offline caps').getByRole('textbox', { name: 'Quick pay per customer per day (USD)' }).inputValue()).toBe('40');
    await page.close();
  });
});
