import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import { invitedStaff, type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { type Customer, signUpAt } from '../support/customers';
import { backOfficePage, expectCount, expectText, saveScreenshot, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { giftPaidWithoutGift, reloadRefused } from '../support/payment-exceptions';
import { paymentsApi } from '../support/payments';
import { startTestNode, type TestNode } from '../support/test-node';
import { sidewaysOverflow } from './screens-reflow';

// Payment exceptions on the back office's screen in Chromium, against a real node: exceptions made
// through the test gateway's lost answers and the reconciliation job are listed with the customer
// and the amount; a refund asks first (the dialog opens on Cancel, so Enter pays nothing), then goes
// through the gateway and is in the audit log; a manager credits a refused reload; a resolution
// someone else made meanwhile is refused and said; the screen reads in Spanish and reflows at 320 px.
describe('back-office payment exceptions in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendorId: number;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  let carla: Customer;
  const pay = paymentsApi(() => node);

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendorId = (await node.addVendor('Café Andino')).vendorId;
    // Named people with fixed emails, so the screenshot reads the same on every run.
    const { staff } = await addOwner(node.engine, { vendorId, email: 'ana.torres@andino.test', name: 'Ana Torres', password: STAFF_PASSWORD });
    owner = { id: staff.id, email: staff.email, token: await signInOverHttp(node, staff.email) };
    manager = await invitedStaff(node, owner, 'manager');
    await giftPaidWithoutGift(node, vendorId, 12, { name: 'Gus Guest', email: 'gus@example.com' });
    carla = await signUpAt(node, vendorId, { first_name: 'Carla', last_name: 'Crédito', email_address: 'carla.credito@example.com' });
    await reloadRefused(node, vendorId, carla, 30);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const screen = (email: string) => backOfficePage(browser, node.url, email, 'payments', 'Payment exceptions');
  const rowOf = (page: Page, text: string, table = 'Payment exceptions'): Locator => page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: text });
  const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? (document.activeElement as HTMLElement | null)?.innerText.trim() ?? null);
  const exceptions = async (status = 'all') => (await staffCall(node, owner.token, 'GET', `/backoffice/payment-exceptions?status=${status}`)).body.items as Array<Record<string, any>>;
  const audit = async () => (await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=payment_exception')).body.items as Array<Record<string, any>>;

  it('lists the exceptions with their customer; a refund asks first on Cancel, then goes through the gateway, audited', async () => {
    const page = await screen(owner.email);
    await expectText(page.getByRole('tab', { name: /Payment exceptions/ }), 'Payment exceptions2 open');
    const guest = rowOf(page, 'Guest (no account)');
    const reload = rowOf(page, 'Carla Crédito');
    // A guest's row names the buyer as the purchase took them (the charge keeps it since migration 0041).
    await expectText(guest, /eGift paid, never sent.*Gus Guest.*Guest \(no account\) · gus@example\.com.*\$12\.00.*Open/s);
    await expectText(reload, /Reload refused after the charge.*Carla Crédito.*carla\.credito@example\.com.*\$30\.00.*Open/s);
    await expectText(page.getByRole('status'), '2 payment exceptions.');
    // A guest's charge has no account to credit: the row offers only a refund.
    await expectCount(guest.getByRole('button', { name: /^Credit/ }), 0);
    await saveScreenshot(page, 'backoffice-payment-exceptions');

    // By keyboard: the dialog opens on Cancel, so a second Enter changes nothing.
    const refund = guest.getByRole('button', { name: 'Refund $12.00, Gus Guest' });
    await refund.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await expectText(dialog, /Refund \$12\.00 to the card\?.*back to the card that paid/s);
    await expect.poll(() => focusedName(page)).toBe('Cancel');
    await page.keyboard.press('Enter');
    await expectCount(page.getByRole('dialog'), 0);
    expect((await exceptions('open')).map((x) => x.status)).toEqual(['open', 'open']);

    await refund.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, refund' }).click();
    await expectText(page.getByRole('status'), 'Refunded $12.00 to the card: the exception is closed.');
    await expectCount(rowOf(page, 'Guest (no account)'), 0);
    await expectText(page.getByRole('tab', { name: /Payment exceptions/ }), 'Payment exceptions1 open');
    // The focus is on the list's heading, not lost with the row's buttons.
    await expect.poll(() => focusedName(page)).toBe('Payment exceptions: Open');
    const gift = (await exceptions()).find((x) => x.kind === 'paid_without_gift')!;
    expect(gift.status).toBe('refunded');
    const charge = await node.engine.db.selectFrom('payment_charges').select('gateway_charge_id').where('id', '=', gift.charge_id).executeTakeFirstOrThrow();
    const atGateway = await node.engine.db.selectFrom('test_gateway_charges').select('refunded_at').where('id', '=', charge.gateway_charge_id!).executeTakeFirstOrThrow();
    expect(atGateway.refunded_at).not.toBeNull();
    expect(await audit()).toMatchObject([{ actor: owner.email, action: 'payment_exception.refund', object_id: String(gift.id) }]);
    await page.context().close();
  });

  it('a manager credits the refused reload to the customer; All shows both resolved; Spanish', async () => {
    const page = await screen(manager.email);
    const reload = rowOf(page, 'Carla Crédito');
    await reload.getByRole('button', { name: 'Credit $30.00, Carla Crédito' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, /Credit \$30\.00 to Carla Crédito\?.*quick-pay balance/s);
    await dialog.getByRole('button', { name: 'Yes, credit' }).click();
    await expectText(page.getByRole('status'), 'Credited $30.00 to Carla Crédito: the exception is closed.');
    expect(await pay.quickPay(carla.key)).toBe(30);
    expect((await audit())[0]).toMatchObject({ actor: manager.email, action: 'payment_exception.credit' });
    // Nothing waits any more: no count on the tab.
    await expectText(page.getByRole('tab', { name: /Payment exceptions/ }), /^Payment exceptions$/);

    await page.getByRole('combobox', { name: 'Show' }).click();
    await page.getByRole('option', { name: 'All', exact: true }).click();
    await expectText(rowOf(page, 'Carla Crédito'), /Credited/);
    await expectText(rowOf(page, 'Guest (no account)'), /Refunded/);
    await expectCount(page.getByRole('table', { name: 'Payment exceptions' }).getByRole('button'), 0);

    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(rowOf(page, 'Carla Crédito', 'Excepciones de pago'), /Recarga rechazada tras el cobro.*Abonada/s);
    await expectText(page.getByRole('tab', { name: /Excepciones de pago/ }), 'Excepciones de pago');
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
    await page.context().close();
  });

  it('a refund someone resolved meanwhile is refused and said; at 320 px the screen reflows', async () => {
    await giftPaidWithoutGift(node, vendorId, 9, { name: 'Rita Race', email: 'rita@example.com' });
    const context = await browser.newContext({ viewport: { width: 320, height: 700 }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/payments`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const row = rowOf(page, '$9.00');
    await row.waitFor();
    expect(await sidewaysOverflow(page)).toEqual([]);

    // Another owner refunds it from elsewhere while this screen still shows it open.
    const gift = (await exceptions('open'))[0]!;
    expect((await staffCall(node, owner.token, 'POST', `/backoffice/payment-exceptions/${gift.id}/resolve`, { action: 'refund' })).status).toBe(200);
    await row.getByRole('button', { name: /^Refund/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await sidewaysOverflow(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Yes, refund' }).click();
    await expectText(page.getByRole('alert'), 'This exception was resolved meanwhile, or its payment settled by itself: nothing was paid now.');
    await expectCount(rowOf(page, '$9.00'), 0);
    expect(await sidewaysOverflow(page)).toEqual([]);
    expect((await audit()).filter((e) => e.object_id === String(gift.id))).toHaveLength(1);
    await context.close();
  });
});
