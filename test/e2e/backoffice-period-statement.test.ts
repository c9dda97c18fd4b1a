import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, signIn, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { backOfficePage, expectText, saveScreenshot } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { type AddedStore, inStoreApi, receiptCounter } from '../support/in-store';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The bookkeeper's month end in Chromium (fifteenth round): on the dashboard, November 2026 of a
// three-store program in Quito is shown (the liability at its start, its moves, its end, which add
// up) and downloaded as a CSV, whose bytes are read back from the browser's download: UTF-8 with a
// byte-order mark, a header, a row per day and store, plain decimals. A store manager's file holds
// their store's rows only.
describe('the statement of a month in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let norte: AddedStore;
  let owner: SignedInStaff;
  let norteManager: SignedInStaff;
  const store = inStoreApi(() => node);
  const pay = paymentsApi(() => node);
  const newReceipt = receiptCounter('e2e-month');

  async function at(iso: string): Promise<void> {
    node.clock.set(Date.parse(iso));
    for (const staff of [owner, norteManager]) if (staff) staff.token = await signIn(node, staff.email);
  }

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests(), rateLimits: ROOMY_RATE_LIMITS });
    await at('2026-10-25T15:00:00Z');
    vendor = await node.addVendor('Café Andino');
    norte = await store.addStore(vendor, 'Norte');
    await store.addStore(vendor, 'Sur');
    owner = await ownerOf(node, vendor.vendorId);
    norteManager = await invitedStaff(node, owner, 'store_manager', norte.storeId);
    expect((await staffCall(node, owner.token, 'PUT', `/backoffice/stores/${vendor.storeId}`, { time_zone: 'America/Guayaquil' })).status).toBe(200);
    const ana = await signUpAt(node, vendor.vendorId, { first_name: 'Ana' });
    const card = await pay.addProfileOk(ana.key);
    await pay.reloadOk(ana.key, { user_billingprofile: card.id, amount: 40 }); // October: the opening
    await at('2026-11-04T15:00:00Z');
    await pay.reloadOk(ana.key, { user_billingprofile: card.id, amount: 25 });
    await store.orderOk(norte.apiKey, { card_number: ana.email, receipt_number: newReceipt(), subtotal: 12, quick_pay: 12 });
    await at('2026-11-18T15:00:00Z');
    await store.orderOk(vendor.apiKey, { card_number: ana.email, receipt_number: newReceipt(), subtotal: 8, quick_pay: 7.25 });
    expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${ana.userId}/pay-backs`, { amount: 500, method: 'cash', idempotency_key: 'e2e-month-1' })).status).toBe(201);
    const gift = await http(`${node.url}/vendor/${vendor.vendorId}/egift`, {
      method: 'POST',
      body: {
        amount: 15,
        buyer: { name: 'Mateo Ruiz', email: 'mateo@example.com' },
        recipient: { name: 'Bea', email: 'bea@example.com' },
        billing: { name: 'Mateo Ruiz', number: CARDS.visa, expiry: { month: '12', year: '2030' }, cvv: '123', zip_code: '10001' },
      },
    });
    expect(gift.status, JSON.stringify(gift.body)).toBe(200); // sold, not claimed: owed outside the balances
    await at('2026-12-02T15:00:00Z');
    await store.orderOk(norte.apiKey, { card_number: ana.email, receipt_number: newReceipt(), subtotal: 3, quick_pay: 3 }); // December: not in the month
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  /** The page's November: the days typed, as a bookkeeper may. */
  async function november(email: string) {
    const page = await backOfficePage(browser, node.url, email, '', 'Figures');
    const section = page.getByRole('region', { name: 'Statement of a period' });
    await section.getByLabel('From').fill('2026-11-01');
    await section.getByLabel('To').fill('2026-11-30');
    return { page, section };
  }

  /** Downloads the CSV from the page: its name and its bytes. */
  async function downloaded(page: Awaited<ReturnType<typeof november>>['page'], section: Awaited<ReturnType<typeof november>>['section']) {
    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download CSV' }).click()]);
    const path = await download.path();
    return { name: download.suggestedFilename(), bytes: readFileSync(path) };
  }

  it('an owner sees November’s liability move and add up, and downloads the file that says the same', async () => {
    const { page, section } = await november(owner.email);
    await section.getByRole('button', { name: 'Show' }).click();
    const statement = section.getByRole('table', { name: 'Statement' });
    await expectText(statement.getByRole('row', { name: 'Liability at the start (stored value)' }), '$40.00');
    await expectText(statement.getByRole('row', { name: 'Loaded' }), '$25.00');
    await expectText(statement.getByRole('row', { name: 'Spent' }), '$19.25');
    await expectText(statement.getByRole('row', { name: 'Paid back to customers' }), '$5.00');
    await expectText(statement.getByRole('row', { name: 'Liability at the end (stored value)' }), '$40.75');
    await expectText(section, 'Start + net change = end.');
    await expectText(statement.getByRole('row', { name: 'eGifts sold and not claimed at the start (owed, in no balance)' }), '$0.00');
    await expectText(statement.getByRole('row', { name: 'eGifts sold and not claimed at the end' }), '$15.00');
    await expectText(section.getByRole('table', { name: 'Statement per store' }).getByRole('row', { name: 'Norte' }), /Norte\s*1\s*12\s*0\s*\$12\.00/);
    await section.getByRole('heading', { name: 'Statement of a period' }).scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'backoffice-period-statement');

    const file = await downloaded(page, section);
    expect(file.name).toBe('punchcard-2026-11-01-to-2026-11-30.csv');
    expect([...file.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = file.bytes.toString('utf8').slice(1).split('\r\n');
    expect(lines.at(-1)).toBe('');
    const [header, ...rows] = lines.slice(0, -1).map((l) => l.split(','));
    expect(header!.slice(0, 4)).toEqual(['date', 'time_zone', 'store_id', 'store']);
    expect(rows).toHaveLength(30 * 4);
    const col = (name: string) => header!.indexOf(name);
    const norte4 = rows.find((r) => r[col('date')] === '2026-11-04' && r[col('store')] === 'Norte')!;
    expect([norte4[col('time_zone')], norte4[col('currency')], norte4[col('stored_value_spent')], norte4[col('points_issued')]]).toEqual(['America/Guayaquil', 'USD', '12.00', '12']);
    const programRows = rows.filter((r) => r[col('store_id')] === '');
    expect(programRows.at(-1)![col('outstanding_stored_value_end_of_day')]).toBe('40.75');
    expect(programRows.at(-1)![col('unclaimed_egifts_end_of_day')]).toBe('15.00');
    const cents = rows.reduce((sum, r) => sum + Math.round(Number(r[col('stored_value_net_change')]) * 100), 0);
    expect(cents).toBe(4075 - 4000);
    await page.context().close();
  });

  it('a store manager’s file holds their store’s rows only', async () => {
    const { page, section } = await november(norteManager.email);
    const file = await downloaded(page, section);
    expect(file.name).toBe(`punchcard-2026-11-01-to-2026-11-30-store-${norte.storeId}.csv`);
    const rows = file.bytes.toString('utf8').slice(1).trim().split('\r\n').slice(1);
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r.split(',')[3]))).toEqual(new Set(['Norte']));
    await expectText(section.getByRole('status'), `Downloaded punchcard-2026-11-01-to-2026-11-30-store-${norte.storeId}.csv.`);
    await page.context().close();
  });
});
