import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { backOfficePage, expectCount, expectText, saveScreenshot } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { inStoreApi } from '../support/in-store';
import { paymentsApi } from '../support/payments';
import { startTestNode, type TestNode } from '../support/test-node';

// Paying stored value back from the customer's profile in Chromium, against a real node and its
// test gateway: the confirmation opens on Cancel (Enter pays nothing), a refund to the card lowers
// the balance and says so; a refund the gateway refuses is said and leaves the balance; more than
// the balance is refused on the page; a store manager sees no such control.
describe('back-office pay-back of stored value in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let storeManager: SignedInStaff;
  const pay = paymentsApi(() => node);
  const store = inStoreApi(() => node);

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests(), rateLimits: ROOMY_RATE_LIMITS });
    vendor = await node.addVendor('Café Andino');
    const { staff } = await addOwner(node.engine, { vendorId: vendor.vendorId, email: 'pia.owner@andino.test', name: 'Pía Owner', password: STAFF_PASSWORD });
    owner = { id: staff.id, email: staff.email, token: await signInOverHttp(node, staff.email) };
    storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const profileOf = (email: string, id: number): Promise<Page> => backOfficePage(browser, node.url, email, `customers/${id}`, 'Balances');

  /** A member who reloaded `dollars` by card. */
  async function memberWithReload(firstName: string, dollars: number): Promise<Customer> {
    const customer = await signUpAt(node, vendor.vendorId, { first_name: firstName, last_name: 'Ríos' });
    const profile = (await pay.addProfileOk(customer.key)).id;
    await pay.reloadOk(customer.key, { user_billingprofile: profile, amount: dollars });
    return customer;
  }

  it('an owner refunds part of the balance to the card, after a confirmation that opens on Cancel', async () => {
    const marta = await memberWithReload('Marta', 30);
    const page = await profileOf(owner.email, marta.userId);
    const control = page.getByRole('group', { name: 'Pay back stored value' });
    await expectText(control, 'Quick-pay balance: $30.00. Up to $30.00 can go back to the card');
    await control.getByRole('radio', { name: 'Refund to the card' }).check();
    await control.getByRole('textbox', { name: /Amount to pay back/ }).fill('12.50');
    await control.getByRole('button', { name: 'Pay back' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, 'Pay back $12.50 to Marta Ríos?');
    // The focus is on Cancel: Enter closes the dialog and pays nothing.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Enter');
    await expectCount(page.getByRole('dialog'), 0);
    expect(await pay.quickPay(marta.key)).toBe(30);

    await control.getByRole('button', { name: 'Pay back' }).click();
    await saveScreenshot(page, 'backoffice-customer-pay-back');
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, pay back' }).click();
    await expectText(control.getByRole('status'), 'Refunded $12.50 to the card. The balance is now $17.50.');
    expect(await pay.quickPay(marta.key)).toBe(17.5);
    // The page's balances and ledger follow.
    await expectText(page.getByRole('row', { name: 'USD' }), '$17.50');
    await expectText(page.getByRole('table', { name: 'Ledger' }), 'Paid back');
    await page.context().close();
  });

  it('a refund the gateway refuses is said, and the balance stays; more than the balance is refused on the page', async () => {
    const nico = await memberWithReload('Nico', 8);
    const page = await profileOf(owner.email, nico.userId);
    const control = page.getByRole('group', { name: 'Pay back stored value' });
    await control.getByRole('radio', { name: 'Refund to the card' }).check();
    await control.getByRole('textbox', { name: /Amount to pay back/ }).fill('9');
    await control.getByRole('button', { name: 'Pay back' }).click();
    await expectText(control.getByRole('alert'), 'Type an amount more than 0 and at most $8.00.');
    await expectCount(page.getByRole('dialog'), 0);

    pay.gateway().declineNextRefunds(1);
    await control.getByRole('button', { name: 'All of it' }).click();
    await control.getByRole('button', { name: 'Pay back' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, pay back' }).click();
    await expectText(control.getByRole('alert'), /refused to refund the card: nothing was paid back/);
    expect(await pay.quickPay(nico.key)).toBe(8);

    // In cash instead.
    await control.getByRole('radio', { name: 'In cash' }).check();
    await control.getByRole('button', { name: 'All of it' }).click();
    await control.getByRole('button', { name: 'Pay back' }).click();
    await expectText(page.getByRole('dialog'), /Hand the money over first/);
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, pay back' }).click();
    await expectText(control.getByRole('status'), 'Paid back $8.00 in cash. The balance is now $0.00.');
    expect(await pay.quickPay(nico.key)).toBe(0);
    await page.context().close();
  });

  it('a refund whose gateway answer was lost is listed on the profile and finished from there, once', async () => {
    const olga = await memberWithReload('Olga', 6);
    const page = await profileOf(owner.email, olga.userId);
    const control = page.getByRole('group', { name: 'Pay back stored value' });
    await control.getByRole('radio', { name: 'Refund to the card' }).check();
    await control.getByRole('button', { name: 'All of it' }).click();
    pay.gateway().loseNextAnswers(1);
    await control.getByRole('button', { name: 'Pay back' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, pay back' }).click();
    await expectText(control.getByRole('alert'), 'The payment gateway has not answered yet');
    expect(await pay.quickPay(olga.key)).toBe(0);
    // Another visit of the page (the key is the node's, not the tab's).
    await page.reload();
    const again = page.getByRole('group', { name: 'Pay back stored value' });
    await expectText(again, 'A refund of $6.00 to the card is not finished');
    await again.getByRole('button', { name: 'Finish the refund of $6.00' }).click();
    await expectText(again.getByRole('status'), 'Refunded $6.00 to the card. The balance is now $0.00.');
    await expectCount(again.getByRole('button', { name: /Finish the refund/ }), 0);
    expect(await pay.quickPay(olga.key)).toBe(0);
    const refunds = await node.engine.db.selectFrom('test_gateway_refunds').select('amount').where('amount', '=', 600).execute();
    expect(refunds).toHaveLength(1);
    await page.context().close();
  });

  it('in Spain, an amount typed with a decimal comma is paid back as written (7,25 is 7.25, not 725)', async () => {
    // A Madrid café: euros, Spanish; its member's quick pay put there by the owner (cash, no card).
    const madrid = await setUpVendor(node.engine, { name: 'Café Lupe', currency: 'EUR', country: 'ES', language: 'es', store: { name: 'Lupe Centro', address1: 'Calle Mayor 1', city: 'Madrid' } });
    const { staff } = await addOwner(node.engine, { vendorId: madrid.vendorId, email: 'lupe.owner@lupe.test', name: 'Lupe Owner', password: STAFF_PASSWORD });
    const token = await signInOverHttp(node, staff.email);
    const lia = await signUpAt(node, madrid.vendorId, { first_name: 'Lía', last_name: 'Ríos' });
    const euros = await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', madrid.quickPayCurrencyId).executeTakeFirstOrThrow();
    expect((await staffCall(node, token, 'POST', `/backoffice/customers/${lia.userId}/adjustments`, { currency: euros.public_id, amount: 2000, reason: 'Saldo inicial' })).status).toBe(201);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'Europe/Madrid', locale: 'es-ES', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.addInitScript(() => localStorage.setItem('punchcard.language', 'es'));
    await page.goto(`${node.url}/admin#/customers/${lia.userId}`);
    await page.locator('input[type="email"], input[type="text"]').first().fill(staff.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.locator('button[type="submit"]').click();
    const control = page.getByRole('group', { name: 'Devolver saldo' });
    await expectText(control, /Saldo de pago rápido: 20,00\s€/);
    await control.getByRole('radio', { name: 'En efectivo' }).check();
    await control.getByRole('textbox', { name: /Importe a devolver/ }).fill('7,25');
    await control.getByRole('button', { name: 'Devolver', exact: true }).click();
    await expectText(page.getByRole('dialog'), /¿Devolver 7,25\s€ a Lía Ríos\?/);
    await page.getByRole('dialog').getByRole('button', { name: 'Sí, devolver' }).click();
    await expectText(control.getByRole('status'), /Devueltos 7,25\s€ en efectivo\. El saldo ahora es 12,75\s€\./);
    const account = await node.engine.db.selectFrom('ledger_accounts').select('balance').where('holder_id', '=', lia.userId).where('currency_id', '=', madrid.quickPayCurrencyId).executeTakeFirstOrThrow();
    expect(Number(account.balance)).toBe(1275);
    await context.close();
  });

  it('a store manager sees no pay-back control', async () => {
    const ines = await memberWithReload('Inés', 5);
    // Seen at the manager's store, so the profile is theirs to read.
    expect((await store.checkIn(vendor.apiKey, ines.email)).status).toBe(201);
    const page = await profileOf(storeManager.email, ines.userId);
    await expectCount(page.getByRole('group', { name: 'Pay back stored value' }), 0);
    await page.context().close();
  });
});
