import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { addOwner } from '../../src/core/staff/add-owner';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { registerOkAt, signUpAt } from '../support/customers';
import { paymentsApi } from '../support/payments';
import { expectCount, expectText, saveScreenshot, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
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
  const payments = paymentsApi(() => node);

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
    const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The dashboard is where a signed-in staff member lands.
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    return page;
  }

  /** A new cashier key of Main Store (an earlier flow revokes the first one). */
  async function freshCounterKey(): Promise<string> {
    const issued = await staffCall(node, owner.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'cashier', label: `Counter ${Date.now()}` });
    return issued.body.api_key as string;
  }

  async function storesOf(page: Page) {
    await page.getByRole('tab', { name: 'Stores & keys' }).click();
    return page.getByRole('table', { name: 'Stores' });
  }

  it('refuses a wrong password with the node’s message', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT, reducedMotion: 'reduce' });
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
    const stores = await storesOf(page);
    await expectText(stores, /Main Store.*Quito Norte/s);
    await expectText(stores.getByRole('row').filter({ hasText: 'Quito Norte' }), /America\/Guayaquil.*Open/s);
    await saveScreenshot(page, 'backoffice-stores');

    await stores.getByRole('row').filter({ hasText: 'Main Store' }).getByRole('link', { name: 'Keys' }).click();
    const keys = page.getByRole('table', { name: 'API keys of Main Store' });
    const row = keys.getByRole('row', { name: 'Counter 1' });
    // The counter's call above shows as its last use.
    await expectText(row, /Cashier \(counter\).*…\S{4}.*\d/s);
    expect(await row.textContent()).not.toContain('Never');
    // A standalone store node has no chain: the store page says where chain health is shown.
    await expectText(page.getByTestId('node-health'), 'This is a store node: the chain’s health is shown in the back office of the central node.');
    // Revoking asks first; cancelled, the key still works.
    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, /Revoke the key “Counter 1”\?.*refused from its next call.*cannot be restored/s);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expectCount(page.getByRole('dialog'), 0);
    expect((await counter()).status).toBe(200);
    await expectCount(row.getByText('Revoked'), 0);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, revoke' }).click();
    await expectText(row, /Revoked/);
    await saveScreenshot(page, 'backoffice-keys');

    const refused = await counter();
    expect([refused.status, refused.body.error.errors[0].reason]).toEqual([401, 'invalid_api_key']);

    await page.getByRole('tab', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Audit log' });
    await expectText(audit.getByRole('row').nth(1), new RegExp(`${owner.email.replace(/\./g, '\\.')}.*api_key\\.revoke`, 's'));
    await saveScreenshot(page, 'backoffice-audit');
    // Long changes wrap: the page is never wider than the window (it was 3,048 px at 1366).
    await page.setViewportSize({ width: 1366, height: 768 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1366);
  });

  it('key roles read as words, in the table and the issue picker, in English and Spanish', async () => {
    const page = await signedInPage(owner.email);
    await page.goto(`${node.url}/admin#/stores/${secondStoreId}`);
    const keys = page.getByRole('table', { name: 'API keys of Quito Norte' });
    await keys.waitFor();
    expect(await keys.getByRole('columnheader').nth(2).textContent()).toBe('Key ends with');
    await page.getByRole('combobox', { name: 'Role' }).click();
    await expectText(page.getByRole('listbox'), /Cashier \(counter\).*Kiosk \(self check-in\).*Integration/s);
    await page.getByRole('option', { name: 'Kiosk (self check-in)' }).click();
    await page.getByRole('textbox', { name: 'Label' }).fill('Entrance kiosk');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    await page.getByTestId('issued-key').waitFor();
    await expectText(keys.getByRole('row', { name: 'Entrance kiosk' }), /Entrance kiosk.*Kiosk \(self check-in\).*…\S{4}/s);
    const issued = (await staffCall(node, owner.token, 'GET', `/backoffice/stores/${secondStoreId}/keys`)).body.items.find((k: { label: string }) => k.label === 'Entrance kiosk');
    expect(issued.role).toBe('kiosk');
    const key = await page.getByTestId('issued-key').textContent();
    expect((await authenticateApiKey(node.engine, key ?? '')).role).toBe('kiosk');
    // Revoked, the key's one-time display goes with it.
    await keys.getByRole('row', { name: 'Entrance kiosk' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, revoke' }).click();
    await expectText(keys.getByRole('row', { name: 'Entrance kiosk' }), /Revoked/);
    await expectCount(page.getByTestId('issued-key'), 0);
    // A refusal goes at the next action.
    await page.getByRole('textbox', { name: 'Label' }).fill('x'.repeat(101));
    await page.getByRole('button', { name: 'Issue a key' }).click();
    await expectText(page.getByRole('alert'), 'Label must be at most 100 characters.');
    await page.getByRole('textbox', { name: 'Label' }).fill('Back door kiosk');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    await page.getByTestId('issued-key').waitFor();
    await expectCount(page.getByRole('alert').filter({ hasText: 'Label must be' }), 0);

    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(page.getByRole('table', { name: 'Claves API de Quito Norte' }).getByRole('row', { name: 'Entrance kiosk' }), /Quiosco \(autorregistro\)/);
    await page.getByRole('combobox', { name: 'Rol' }).click();
    await expectText(page.getByRole('listbox'), /Caja \(mostrador\).*Quiosco \(autorregistro\).*Integración/s);
    await page.context().close();
  });

  it('a store manager sees only their store, and the node refuses them another store’s keys', async () => {
    const page = await signedInPage(storeManager.email);
    const stores = await storesOf(page);
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
    await page.getByRole('textbox', { name: 'Email, phone, card or name' }).fill(email);
    await page.getByRole('button', { name: 'Search' }).click();
    // The list says what each column is and what the search matched.
    const found = page.getByRole('table', { name: 'Customers found' });
    await expectText(found.getByRole('row').filter({ hasText: 'Ana Zambrano' }), /Ana Zambrano.*Email$/);
    expect(await found.getByRole('columnheader').allTextContents()).toEqual(['Name', 'Email', 'Phone', 'Found by']);
    await found.getByRole('link', { name: 'Ana Zambrano' }).click();
    await expectText(page.getByRole('table', { name: 'Balances' }).getByRole('row', { name: 'Points' }), /Points\s*0/);
    await page.getByRole('combobox', { name: 'Currency' }).click();
    await page.getByRole('option', { name: 'Points' }).click();
    // Points are whole: "12.5" typed is refused, never read as 125 (the point key was dropped).
    await page.getByRole('textbox', { name: /Amount/ }).pressSequentially('12.5');
    await page.getByRole('textbox', { name: 'Reason for the adjustment (required)', exact: true }).fill('Typo check');
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    await expectText(page.getByRole('alert'), 'Enter a whole, non-zero amount.');
    await expectText(page.getByRole('table', { name: 'Balances' }).getByRole('row', { name: 'Points' }), /Points\s*0/);
    await page.getByRole('textbox', { name: /Amount/ }).fill('40');
    await page.getByRole('textbox', { name: 'Reason for the adjustment (required)', exact: true }).fill('Missed stamps from last week');
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    await expectText(page.getByRole('status'), 'Adjusted: the balance is now 40.');
    await expectText(page.getByRole('table', { name: 'Balances' }).getByRole('row', { name: 'Points' }), /Points\s*40/);
    await expectText(page.getByRole('table', { name: 'Ledger' }).getByRole('row').nth(1), /Points\s*Adjusted by staff\s*\+40/);
    // Money is typed and shown in dollars, never in cents.
    await page.getByRole('combobox', { name: 'Currency' }).click();
    await page.getByRole('option', { name: 'Quick Pay USD' }).click();
    await page.getByRole('textbox', { name: /Amount/ }).fill('12.50');
    await page.getByRole('textbox', { name: 'Reason for the adjustment (required)', exact: true }).fill('Refund of a spilled latte');
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    await expectText(page.getByRole('status'), 'Adjusted: the balance is now $12.50.');
    await expectText(page.getByRole('table', { name: 'Balances' }).getByRole('row', { name: 'Quick Pay USD' }), /Quick Pay USD\s*\$12\.50/);
    await expectText(page.getByRole('table', { name: 'Ledger' }).getByRole('row').nth(1), /Quick Pay USD\s*Adjusted by staff\s*\+\$12\.50/);
    await saveScreenshot(page, 'backoffice-customer');
  });

  it('a name many customers share shows the first 25 by last name and says more match', async () => {
    // Another program, so this file's other figures keep their customers.
    const family = await node.addVendor('Panadería Quiroz');
    const familyOwner = await ownerOf(node, family.vendorId);
    const counter = await authenticateApiKey(node.engine, family.apiKey);
    const firstNames = 'Abel Berta Carlos Diana Elena Fabio Gloria Hugo Inés Jorge Karina Luis Marta Nicolás Olga Pablo Quique Rosa Sergio Teresa Úrsula Víctor Wendy Ximena Yolanda Zoe'.split(' ');
    for (const [i, firstName] of firstNames.entries()) await registerInStore(node.engine, counter, { email: `quiroz${i}@family.test`, firstName, lastName: 'Quiroz' });
    const page = await signedInPage(familyOwner.email);
    await page.getByRole('tab', { name: 'Customers' }).click();
    const search = async (text: string) => {
      await page.getByRole('textbox', { name: 'Email, phone, card or name' }).fill(text);
      await page.getByRole('button', { name: 'Search' }).click();
    };
    await search('quiroz');
    const found = page.getByRole('table', { name: 'Customers found' }).getByRole('link');
    await expectText(page.getByRole('status'), 'More customers match: these are the first 25 by last name. Type more of the name to narrow them down.');
    await expectCount(found, 25);
    await expectText(found.first(), 'Abel Quiroz');
    await expectText(page.getByRole('table', { name: 'Customers found' }).getByRole('row').nth(1), /Abel Quiroz.*Name$/);
    await expectText(found.last(), 'Yolanda Quiroz');
    await search('zoe');
    await expectText(found.first(), 'Zoe Quiroz');
    await expectCount(found, 1);
    // The search's live region says only how many were found now.
    await expectText(page.getByRole('status'), /^1 customer found\.$/);
    await page.context().close();
  });

  it('the one-time sign-in link of punchcard init signs the first owner in', async () => {
    const other = await node.addVendor('Panadería Sol');
    const { signInToken } = await addOwner(node.engine, { vendorId: other.vendorId, email: 'first.owner@sol.test', name: 'Sol' });
    const page = await browser.newPage({ viewport: VIEWPORT, reducedMotion: 'reduce' });
    await page.goto(`${node.url}/admin#/sign-in-link?token=${signInToken}`);
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    await expectText(page.getByRole('banner'), /Sol · Owner/);
  });

  it('an owner invites staff from the Staff screen, in Spanish too', async () => {
    const page = await signedInPage(owner.email);
    await page.getByRole('tab', { name: 'Staff' }).click();
    await page.getByRole('textbox', { name: 'Email' }).fill('luis@andino.test');
    await page.getByRole('textbox', { name: 'Name' }).fill('Luis');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expectText(page.getByRole('status'), 'Invitation sent.');
    await expectText(page.getByRole('table', { name: 'Staff' }), /Luis.*luis@andino\.test.*Manager.*Invited/s);
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(page.getByRole('table', { name: 'Personal' }), /Luis.*luis@andino\.test.*Gerente.*Invitado/s);
    // The message said before the switch is said again in Spanish.
    await expectText(page.getByRole('status'), 'Invitación enviada.');
    await saveScreenshot(page, 'backoffice-staff-es');
  });

  it('an owner changes an earning rule in the Program screen and the next order at the counter earns by it', async () => {
    const { email } = await registerOkAt(node, vendor.vendorId, { first_name: 'Rita', last_name: 'Vega' });
    const counterKey = await freshCounterKey();
    const order = (receipt: string) => http(`${node.url}/order?api_key=${encodeURIComponent(counterKey)}`, { method: 'POST', body: { card_number: email, receipt_number: receipt, subtotal: 12 } });
    const before = await order('rule-1');
    expect([before.status, before.body.points_earned]).toEqual([200, 12]);

    const page = await signedInPage(owner.email);
    await page.getByRole('tab', { name: 'Program' }).click();
    const row = page.getByRole('table', { name: 'Earning rules' }).getByRole('row', { name: '1 point per unit spent' });
    await row.getByRole('textbox', { name: 'Points' }).fill('2');
    await row.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Saved.');

    const after = await order('rule-2');
    expect([after.status, after.body.points_earned]).toEqual([200, 24]);

    // A reward added here, then paused.
    await page.getByRole('textbox', { name: 'Name' }).nth(1).fill('Free coffee');
    await page.getByRole('textbox', { name: 'Cost (points)' }).fill('50');
    await page.getByRole('button', { name: 'Add' }).nth(1).click();
    const reward = page.getByRole('table', { name: 'Rewards' }).getByRole('row', { name: 'Free coffee' });
    await expectText(reward, /Free coffee\s*50\s*Active/);
    await reward.getByRole('button', { name: 'Pause' }).click();
    await expectText(reward, /Free coffee\s*50\s*Paused/);

    // A tier without a name: the node refuses it, and the screen says so with the form's label.
    await page.getByRole('textbox', { name: 'Threshold (points)' }).fill('500');
    await page.getByRole('button', { name: 'Add' }).nth(2).click();
    const expected = await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: '', threshold: 500 });
    expect([expected.status, expected.body.message]).toEqual([400, 'name must not be empty.']);
    await expectText(page.getByRole('alert'), 'Name must not be empty.');
    await expectText(page.getByLabel('Offline caps'), 'This node is not paired with a central node');
    await saveScreenshot(page, 'backoffice-program');
  });

  it('an owner blocks a customer: the counter is refused, the audit log has it; unblocked, the counter checks them in', async () => {
    const { email } = await registerOkAt(node, vendor.vendorId, { first_name: 'Bruno', last_name: 'Paz' });
    const counterKey = await freshCounterKey();
    const checkIn = () => http(`${node.url}/onscreen?api_key=${encodeURIComponent(counterKey)}`, { method: 'POST', body: { card_number: email } });
    const page = await signedInPage(owner.email);
    await page.getByRole('tab', { name: 'Customers' }).click();
    await page.getByRole('textbox', { name: 'Email, phone, card or name' }).fill(email);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('table', { name: 'Customers found' }).getByRole('link', { name: 'Bruno Paz' }).click();
    await page.getByRole('textbox', { name: 'Reason to block (required)' }).fill('Repeated chargebacks');
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page.getByRole('dialog', { name: 'Block Bruno Paz?' }).getByRole('button', { name: 'Yes, block' }).click();
    await expectText(page.getByRole('status'), 'Blocked: check-ins and orders are refused.');
    await expectText(page.getByText(/^Blocked: Repeated chargebacks/), 'Blocked: Repeated chargebacks. Check-ins and orders are refused.');
    await saveScreenshot(page, 'backoffice-customer-blocked');

    const refused = await checkIn();
    expect([refused.status, refused.body.error.errors[0].reason]).toEqual([403, 'customer_blocked']);

    await page.getByRole('button', { name: 'Unblock' }).click();
    await expectText(page.getByRole('status'), 'Unblocked: the customer can check in and order again.');
    expect((await checkIn()).status).toBe(201);

    await page.getByRole('tab', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Audit log' });
    await expectText(audit.getByRole('row').nth(1), /customer\.unblock/);
    await expectText(audit.getByRole('row').nth(2), /customer\.block.*Repeated chargebacks/s);
  });

  it('the dashboard shows today’s figures, the liability, charts per day and each store', async () => {
    // A week of visits at both stores, with quick pay loaded and spent.
    const counterKey = await freshCounterKey();
    const norteKey = (await staffCall(node, owner.token, 'POST', `/backoffice/stores/${secondStoreId}/keys`, { role: 'cashier', label: 'Norte counter' })).body.api_key as string;
    const today = node.clock.now();
    for (let daysAgo = 7; daysAgo >= 0; daysAgo--) {
      node.clock.set(today - daysAgo * 86_400_000);
      const customer = await signUpAt(node, vendor.vendorId, { first_name: `Day${daysAgo}` });
      const card = await payments.addProfileOk(customer.key);
      await payments.reloadOk(customer.key, { user_billingprofile: card.id, amount: 10 + daysAgo * 5 });
      for (const [key, visits] of [[counterKey, daysAgo % 3 + 1], [norteKey, (daysAgo + 1) % 2 + 1]] as const) {
        for (let i = 0; i < visits; i++) {
          await http(`${node.url}/onscreen?api_key=${encodeURIComponent(key)}`, { method: 'POST', body: { card_number: customer.email } });
          await http(`${node.url}/order?api_key=${encodeURIComponent(key)}`, { method: 'POST', body: { card_number: customer.email, receipt_number: `d${daysAgo}-${i}-${key.slice(-4)}`, subtotal: 8 + i, quick_pay: 3 } });
        }
      }
    }
    node.clock.set(today);
    const page = await signedInPage(owner.email);
    const figures = page.getByRole('table', { name: 'Figures' });
    const d = (await staffCall(node, owner.token, 'GET', '/backoffice/dashboard')).body;
    expect(d.today.orders).toBeGreaterThan(0);
    await expectText(figures.getByRole('row', { name: 'Orders' }), new RegExp(`Orders\\s*${d.today.orders}\\s*${d.last_30_days.orders}`));
    // Each figure's heading is named with its label and its amount (a screen reader hears both).
    const outstanding = `$${(d.outstanding_stored_value / 100).toFixed(2)}`;
    const liability = `$${(d.outstanding_liability / 100).toFixed(2)}`;
    await expectText(page.getByRole('heading', { name: `Outstanding stored value (balances): ${outstanding}`, exact: true }), outstanding);
    await expectText(page.getByRole('heading', { name: `Total liability: ${liability}`, exact: true }), liability);
    expect(d.last_30_days.reloads).toBe(8);
    await expect(page.locator('.recharts-wrapper').count()).resolves.toBe(2);
    await expectText(page.getByRole('table', { name: 'Per store, last 30 days' }).getByRole('row', { name: 'Main Store' }), new RegExp(`Main Store\\s*\\d+\\s*${d.stores[0].orders}`));
    await page.getByText('Check-ins and orders per day').scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'backoffice-dashboard');
  });
});
