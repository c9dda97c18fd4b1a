import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { signUpAt } from '../support/customers';
import { backOfficePage, expectCount, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { inStoreApi } from '../support/in-store';
import { startTestNode, type TestNode } from '../support/test-node';

// A member asks for a copy of their data: an owner downloads it from the customer's page in
// Chromium, against a real node, and the file the browser saved is the node's JSON document of that
// member (their order, nobody else's); the audit log says so, in words; a store manager sees no such control.
describe('back-office download of a member’s data in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let storeManager: SignedInStaff;
  const store = inStoreApi(() => node);

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Mediterráneo');
    const { staff } = await addOwner(node.engine, { vendorId: vendor.vendorId, email: 'elena.ruiz@mediterraneo.test', name: 'Elena Ruiz', password: STAFF_PASSWORD });
    owner = { id: staff.id, email: staff.email, token: await signInOverHttp(node, staff.email) };
    storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  it('an owner downloads the member’s JSON file; it holds their order and nothing of another member', async () => {
    const carmen = await signUpAt(node, vendor.vendorId, { first_name: 'Carmen', last_name: 'Vidal' });
    const jorge = await signUpAt(node, vendor.vendorId, { first_name: 'Jorge', last_name: 'Soler' });
    await store.orderOk(vendor.apiKey, { card_number: carmen.email, receipt_number: 'PD-1', subtotal: 8, items: [{ name: 'Cortado', quantity: 2, price: 4 }] });
    await store.orderOk(vendor.apiKey, { card_number: jorge.email, receipt_number: 'PD-2', subtotal: 5 });
    const page = await backOfficePage(browser, node.url, owner.email, `customers/${carmen.userId}`, 'Balances');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download their data (JSON)' }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^personal-data-${carmen.userId}-\\d{4}-\\d{2}-\\d{2}\\.json$`));
    const file = readFileSync(await download.path(), 'utf8');
    const document = JSON.parse(file);
    expect(document).toMatchObject({ format: 'punchcard.personal-data', version: 1, person: { id: carmen.userId, first_name: 'Carmen', last_name: 'Vidal', email: carmen.email } });
    expect(document.orders).toEqual([expect.objectContaining({ receipt_number: 'PD-1', items: [expect.objectContaining({ name: 'Cortado', quantity: 2 })] })]);
    expect(file).not.toContain(jorge.email);
    expect(file).not.toContain('PD-2');
    await expectText(page.getByRole('status').filter({ hasText: 'Downloaded' }), /Downloaded personal-data-.*\.json\. Hand it to the person only\./);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=5');
    expect(audit.body.items[0]).toMatchObject({ action: 'customer.data_exported', actor: owner.email, object_id: String(carmen.userId) });
    // The audit log says it in words: who exported whose data, and when.
    await page.goto(`${node.url}/admin#/audit`);
    const row = page.getByRole('table', { name: 'Audit log' }).getByRole('row').filter({ hasText: 'customer.data_exported' });
    await expectText(row, /Data exported/);
    await expectText(row, owner.email);
    await page.context().close();
  });

  it('a store manager sees no download', async () => {
    const nuria = await signUpAt(node, vendor.vendorId, { first_name: 'Nuria', last_name: 'Pons' });
    expect((await store.checkIn(vendor.apiKey, nuria.email)).status).toBe(201);
    const page = await backOfficePage(browser, node.url, storeManager.email, `customers/${nuria.userId}`, 'Balances');
    await expectCount(page.getByRole('button', { name: 'Download their data (JSON)' }), 0);
    await page.context().close();
  });
});
