import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { signUpAt } from '../support/customers';
import { backOfficePage, expectCount, expectText, saveScreenshot } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { inStoreApi } from '../support/in-store';
import { startTestNode, type TestNode } from '../support/test-node';

// Removing a member at their request from the customer's profile in Chromium, against a real node:
// the balance they hold must be ticked as given up (the node's refusal shows otherwise), a last
// confirmation, then the screen says the person was erased and the node no longer knows them; a
// store manager sees no such control.
describe('back-office removal of a member at their request in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let storeManager: SignedInStaff;
  const store = inStoreApi(() => node);

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    const { staff } = await addOwner(node.engine, { vendorId: vendor.vendorId, email: 'ana.torres@andino.test', name: 'Ana Torres', password: STAFF_PASSWORD });
    owner = { id: staff.id, email: staff.email, token: await signInOverHttp(node, staff.email) };
    storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const profileOf = (email: string, id: number): Promise<Page> => backOfficePage(browser, node.url, email, `customers/${id}`, 'Balances');

  it('an owner removes a member who holds points: ticked as given up, confirmed, erased', async () => {
    const marta = await signUpAt(node, vendor.vendorId, { first_name: 'Marta', last_name: 'Ríos' });
    expect((await store.postOrder(vendor.apiKey, { card_number: marta.email, receipt_number: 'RM-1', subtotal: 20 })).status).toBe(200);
    const page = await profileOf(owner.email, marta.userId);
    const removal = page.getByRole('group', { name: 'Remove at their request' });
    await removal.getByRole('textbox', { name: 'Who asked, and how (required)' }).fill('Asked by phone on 3 Dec');
    // Without the balance ticked as given up, the node refuses and says why.
    await removal.getByRole('button', { name: 'Remove from the program' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove from the program' }).click();
    await expectText(removal.getByRole('alert'), /still holds a balance/);
    await removal.getByRole('checkbox', { name: /They give up what they still hold here/ }).check();
    await saveScreenshot(page, 'backoffice-customer-remove');
    await removal.getByRole('button', { name: 'Remove from the program' }).click();
    await expectText(page.getByRole('dialog'), /Remove Marta Ríos from the program for good\?/);
    await page.getByRole('dialog').getByRole('button', { name: 'Remove from the program' }).click();
    await expectText(page.getByRole('status'), 'Removed: no other program held the account, so the person was erased.');
    expect((await staffCall(node, owner.token, 'GET', `/backoffice/customers/${marta.userId}`)).status).toBe(404);
    await page.context().close();
  });

  it('a store manager sees no removal control', async () => {
    const nico = await signUpAt(node, vendor.vendorId, { first_name: 'Nico', last_name: 'Paz' });
    expect((await store.checkIn(vendor.apiKey, nico.email)).status).toBe(201);
    const page = await profileOf(storeManager.email, nico.userId);
    await expectCount(page.getByRole('group', { name: 'Remove at their request' }), 0);
    await page.context().close();
  });
});
