import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { registerOkAt } from '../support/customers';
import { expectText, saveScreenshot, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The back office at /admin in Chromium, served by a real node: an owner signs in, revokes the
// counter's key and the counter is refused, the audit log shows it; a store manager sees only their
// store and is refused another store's keys by the node; the one-time link of `punchcard init`.
describe('back office in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let storeManager: SignedInStaff;
  let secondStoreId: number;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    const second = await staffCall(node, owner.token, 'POST', '/backoffice/stores', {
      name: 'Quito Norte',
      address: 'Av. Amazonas',
      city: 'Quito',
      country: 'EC',
      time_zone: 'America/Guayaquil',
      hours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, '00:00-24:00'])),
    });
    secondStoreId = second.body.id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function signedInPage(email: string): Promise<Page> {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Stores' }).waitFor();
    return page;
  }

  it('refuses a wrong password with the node’s message', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(`${node.url}/admin`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(page.getByRole('alert'), 'The email address or password is not correct.');
    await page.close();
  });

  it('an owner revokes the counter’s key; the counter is refused at its next call; the audit log shows who did it', async () => {
    const counter = () => http(`${node.url}/onscreen/queue?api_key=${encodeURIComponent(vendor.apiKey)}`);
    expect((await counter()).status).toBe(200);

    const page = await signedInPage(owner.email);
    const stores = page.getByRole('table', { name: 'Stores' });
    await expectText(stores, /Main Store.*Quito Norte/s);
    await expectText(stores.getByRole('row').filter({ hasText: 'Quito Norte' }), /America\/Guayaquil.*Open/s);
    await saveScreenshot(page, 'backoffice-stores');

    await stores.getByRole('row').filter({ hasText: 'Main Store' }).getByRole('link', { name: 'Keys' }).click();
    const keys = page.getByRole('table', { name: 'API keys of Main Store' });
    const row = keys.getByRole('row', { name: 'Counter 1' });
    // The counter's call above shows as its last use.
    await expectText(row, /cashier.*…\S{4}.*\d/s);
    expect(await row.textContent()).not.toContain('Never');
    await expect(page.getByTestId('node-health-placeholder').isVisible()).resolves.toBe(true);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expectText(row, /Revoked/);
    await saveScreenshot(page, 'backoffice-keys');

    const refused = await counter();
    expect([refused.status, refused.body.error.errors[0].reason]).toEqual([401, 'invalid_api_key']);

    await page.getByRole('tab', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Audit log' });
    await expectText(audit.getByRole('row').nth(1), new RegExp(`${owner.email.replace(/\./g, '\\.')}.*api_key\\.revoke`, 's'));
    await saveScreenshot(page, 'backoffice-audit');
  });

  it('a store manager sees only their store, and the node refuses them another store’s keys', async () => {
    const page = await signedInPage(storeManager.email);
    const stores = page.getByRole('table', { name: 'Stores' });
    await expectText(stores, /Main Store/);
    expect(await stores.textContent()).not.toContain('Quito Norte');
    await expect(page.getByRole('tab', { name: 'Staff' }).count()).resolves.toBe(0);
    await expect(page.getByRole('tab', { name: 'Audit log' }).count()).resolves.toBe(0);

    await page.goto(`${node.url}/admin#/stores/${secondStoreId}`);
    await expectText(page.getByRole('alert'), 'A store manager sees only their own store.');
    await expect(page.getByRole('table', { name: /API keys/ }).count()).resolves.toBe(0);
    await saveScreenshot(page, 'backoffice-store-manager-refused');
  });

  it('an owner finds a customer by email, adjusts her points with a reason and sees the ledger entry', async () => {
    const { email } = await registerOkAt(node, vendor.vendorId, { first_name: 'Ana', last_name: 'Zambrano' });
    const page = await signedInPage(owner.email);
    await page.getByRole('tab', { name: 'Customers' }).click();
    await page.getByRole('textbox', { name: 'Email, phone, card, cédula or name' }).fill(email);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('table', { name: 'Customers found' }).getByRole('link', { name: 'Ana Zambrano' }).click();
    await expectText(page.getByRole('table', { name: 'Balances' }).getByRole('row', { name: 'Points' }), /Points\s*0/);
    await page.getByRole('combobox', { name: 'Currency' }).click();
    await page.getByRole('option', { name: 'Points' }).click();
    await page.getByRole('textbox', { name: /Amount/ }).fill('40');
    await page.getByRole('textbox', { name: /Reason/ }).fill('Missed stamps from last week');
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    await expectText(page.getByRole('status'), 'Adjusted: the balance is now 40.');
    await expectText(page.getByRole('table', { name: 'Balances' }).getByRole('row', { name: 'Points' }), /Points\s*40/);
    await expectText(page.getByRole('table', { name: 'Ledger' }).getByRole('row').nth(1), /Points\s*adjustment\s*\+40/);
    await saveScreenshot(page, 'backoffice-customer');
  });

  it('the one-time sign-in link of punchcard init signs the first owner in', async () => {
    const other = await node.addVendor('Panadería Sol');
    const { signInToken } = await addOwner(node.engine, { vendorId: other.vendorId, email: 'first.owner@sol.test', name: 'Sol' });
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(`${node.url}/admin#/sign-in-link?token=${signInToken}`);
    await page.getByRole('table', { name: 'Stores' }).waitFor();
    await expectText(page.getByRole('banner'), /Sol · Owner/);
  });

  it('an owner invites staff from the Staff screen, in Spanish too', async () => {
    const page = await signedInPage(owner.email);
    await page.getByRole('tab', { name: 'Staff' }).click();
    await page.getByRole('textbox', { name: 'Email' }).fill('luis@andino.test');
    await page.getByRole('textbox', { name: 'Name' }).fill('Luis');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expectText(page.getByRole('status'), 'Invitation sent.');
    await expectText(page.getByRole('table', { name: 'Staff' }), /Luis.*luis@andino\.test.*Manager.*invited/s);
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await page.getByRole('table', { name: 'Personal' }).waitFor();
    await saveScreenshot(page, 'backoffice-staff-es');
  });
});
