import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYBACK_FINISH_GRACE_MS, PAYBACK_STUCK_MS } from '../../src/core/payments/pay-back/finish-lost-paybacks';
import { RECONCILE_GRACE_MS, reconcileCharges } from '../../src/core/payments/reconcile/reconcile-charges';
import { invitedStaff, ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectCount, expectText, saveScreenshot, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { buyGuestGift } from '../support/payment-exceptions';
import { paymentsApi } from '../support/payments';
import { startTestNode, type TestNode } from '../support/test-node';
import { sidewaysOverflow } from './screens-reflow';

// What the tenth round added to the payment exceptions screen, in Chromium against a real node:
// its own address (#/payment-exceptions; #/payments still opens it), one clear "not allowed" for a
// store manager who types either, paging past 25 exceptions, a guest buyer's contact on their row,
// and the card pay-backs whose refund outcome is unknown, finished from there (audited).
describe('payment exceptions: address, paging, guests and unfinished pay-backs in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendorId: number;
  let owner: SignedInStaff;
  let storeManager: SignedInStaff;
  const pay = paymentsApi(() => node);

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests(), rateLimits: ROOMY_RATE_LIMITS });
    vendorId = (await node.addVendor('Café Paginado')).vendorId;
    owner = await ownerOf(node, vendorId);
    const store = await node.engine.db.selectFrom('stores').select('id').where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
    storeManager = await invitedStaff(node, owner, 'store_manager', store.id);
    // 26 guest eGifts whose answers were lost ($1 … $26): one more than a page.
    pay.gateway().loseNextAnswers(26);
    for (let i = 1; i <= 26; i++) expect((await buyGuestGift(node, vendorId, i, { name: `Buyer ${i}`, email: `buyer${i}@example.com` })).status).toBe(503);
    node.clock.advance(RECONCILE_GRACE_MS + 1000);
    expect((await reconcileCharges(node.engine)).paidWithoutGift).toHaveLength(26);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function signedIn(route: string, email: string, width = 1280): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 800 }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/${route}`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Under 576 px the sign-out buttons are behind the menu button (seventeenth round: the back office on a phone).
    await page.getByRole('button', { name: 'Sign out', exact: true }).or(page.getByRole('button', { name: 'Sections and sign-out' })).waitFor();
    return page;
  }
  const exceptionRows = (page: Page) => page.getByRole('table', { name: 'Payment exceptions' }).getByRole('row');

  it('#/payment-exceptions pages past 25 with Next and Previous; a guest’s row says who bought it', async () => {
    const page = await signedIn('payment-exceptions', owner.email);
    await expectText(page.getByRole('status').first(), '26 payment exceptions.');
    await expectCount(exceptionRows(page), 26); // the header row and 25
    await expectText(page.getByText(/^1–25 of 26$/), '1–25 of 26');
    await expectText(page.getByRole('tab', { name: /Payment exceptions/ }), 'Payment exceptions26 open');
    // Newest first: the $26 gift on top, its buyer's contact as the purchase took it.
    await expectText(exceptionRows(page).nth(1), /eGift paid, never sent.*Buyer 26.*Guest \(no account\) · buyer26@example\.com.*\$26\.00.*Open/s);
    await expectCount(exceptionRows(page).filter({ hasText: /Buyer 1(?![0-9])/ }), 0);
    expect(await page.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);

    await page.getByRole('button', { name: 'Next' }).click();
    await expectText(page.getByText(/^26–26 of 26$/), '26–26 of 26');
    await expectCount(exceptionRows(page), 2);
    await expectText(exceptionRows(page).nth(1), /Buyer 1.*buyer1@example\.com.*\$1\.00/s);
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    // Refunding the only row of the last page shows the page before it.
    await exceptionRows(page).nth(1).getByRole('button', { name: 'Refund $1.00, Buyer 1' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, refund' }).click();
    await expectText(page.getByRole('status').first(), 'Refunded $1.00 to the card: the exception is closed.');
    await expectCount(exceptionRows(page), 26);
    await expectCount(page.getByText(/^1–25 of 25$/), 0); // one page holds them: no pager
    await expectText(page.getByRole('tab', { name: /Payment exceptions/ }), 'Payment exceptions25 open');
    // The tab's own address is the new one.
    await page.getByRole('tab', { name: /Dashboard/ }).click();
    await page.getByRole('tab', { name: /Payment exceptions/ }).click();
    expect(new URL(page.url()).hash).toBe('#/payment-exceptions');
    await page.context().close();
  });

  it('#/payments still opens the screen', async () => {
    const page = await signedIn('payments', owner.email);
    await expectText(page.getByRole('status').first(), '25 payment exceptions.');
    await expectText(page.getByRole('tab', { name: /Payment exceptions/, selected: true }), /Payment exceptions/);
    await page.context().close();
  });

  it('a store manager who types either address sees one clear “not allowed”, not the screen with a refusal', async () => {
    for (const route of ['payment-exceptions', 'payments']) {
      const page = await signedIn(route, storeManager.email);
      await expectText(page.getByRole('alert'), 'Payment exceptions are for owners and managers: these charges belong to no store. Ask an owner or a manager of the program.');
      await expectCount(page.getByRole('alert'), 1);
      await expectCount(page.getByRole('combobox', { name: 'Show' }), 0);
      await expectCount(page.getByRole('heading', { name: /Payment exceptions: / }), 0);
      await expectCount(page.getByRole('tab', { name: /Payment exceptions/ }), 0);
      await page.context().close();
    }
  });

  async function memberWithReload(first: string, last: string, dollars: number): Promise<Customer> {
    const customer = await signUpAt(node, vendorId, { first_name: first, last_name: last, email_address: `${first.toLowerCase()}@example.com` });
    const profile = (await pay.addProfileOk(customer.key)).id;
    await pay.reloadOk(customer.key, { user_billingprofile: profile, amount: dollars });
    return customer;
  }

  /** A card pay-back of `minor` whose refund answer was lost (the gateway did refund): left `refunding`. */
  async function lostPayback(customer: Customer, minor: number, key: string): Promise<number> {
    pay.gateway().loseNextAnswers(1);
    const reply = await staffCall(node, owner.token, 'POST', `/backoffice/customers/${customer.userId}/pay-backs`, { amount: minor, method: 'card', idempotency_key: key });
    expect(reply.status).toBe(503);
    return Number((await node.engine.db.selectFrom('stored_value_paybacks').select('id').where('idempotency_key', '=', key).executeTakeFirstOrThrow()).id);
  }

  it('card pay-backs not finished: the customer to contact, stuck after a day, "Finish the refund" once, audited; Spanish; 320 px', async () => {
    const paula = await memberWithReload('Paula', 'Payback', 20);
    const sara = await memberWithReload('Sara', 'Stuck', 10);
    await lostPayback(paula, 800, 'e2e-paula');
    const saraId = await lostPayback(sara, 500, 'e2e-sara');
    const made = await node.engine.db.selectFrom('stored_value_paybacks').select('created_at').where('id', '=', saraId).executeTakeFirstOrThrow();
    await node.engine.db.updateTable('stored_value_paybacks').set({ created_at: Number(made.created_at) - PAYBACK_STUCK_MS }).where('id', '=', saraId).execute();
    node.clock.advance(PAYBACK_FINISH_GRACE_MS);

    const page = await signedIn('payment-exceptions', owner.email);
    const section = page.getByRole('table', { name: 'Card pay-backs not finished' });
    const row = (text: string) => section.getByRole('row').filter({ hasText: text });
    await expectText(page.getByRole('heading', { name: 'Card pay-backs not finished' }), 'Card pay-backs not finished');
    await expectText(page.getByText('2 card pay-backs not finished.'), '2 card pay-backs');
    // Oldest first: the one stuck a day on top.
    await expectText(section.getByRole('row').nth(1), /Sara Stuck.*sara@example\.com.*\$5\.00.*\$5\.00 to Visa ••4242.*Stuck for over a day/s);
    await expectText(row('Paula Payback'), /paula@example\.com.*\$8\.00.*Outcome unknown/s);
    expect(await row('Paula Payback').getByRole('link', { name: 'Paula Payback' }).getAttribute('href')).toBe(`#/customers/${paula.userId}`);
    await page.getByRole('heading', { name: 'Card pay-backs not finished' }).scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'backoffice-unfinished-paybacks');

    // The gateway still silent: said, and the row stays.
    pay.gateway().refuseNextRequests(1);
    await row('Sara Stuck').getByRole('button', { name: 'Finish the refund $5.00, Sara Stuck' }).click();
    await expectText(page.getByRole('alert'), 'The gateway still did not answer: the pay-back stays unfinished.');
    await expectCount(row('Sara Stuck'), 1);

    await row('Paula Payback').getByRole('button', { name: 'Finish the refund $8.00, Paula Payback' }).click();
    await expectText(page.getByText(/Refunded \$8\.00 to Paula Payback’s card/), 'Refunded $8.00 to Paula Payback’s card: the pay-back is finished.');
    await expectCount(row('Paula Payback'), 0);
    // The focus is on the section's heading, not lost with the row's button.
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText.trim())).toBe('Card pay-backs not finished');
    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=customer')).body.items as Array<Record<string, any>>;
    expect(audit[0]).toMatchObject({ actor: owner.email, action: 'customer.pay_back_finished', object_id: String(paula.userId), after: { status: 'paid', amount_paid: 800 } });
    expect(await pay.quickPay(paula.key)).toBe(12);

    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    const seccion = page.getByRole('table', { name: 'Devoluciones de saldo a tarjeta sin terminar' });
    await expectText(seccion.getByRole('row').filter({ hasText: 'Sara Stuck' }), /Atascada hace más de un día.*Terminar el reembolso/s);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
    await page.context().close();

    const narrow = await signedIn('payment-exceptions', owner.email, 320);
    await narrow.getByRole('table', { name: 'Card pay-backs not finished' }).waitFor();
    expect(await sidewaysOverflow(narrow)).toEqual([]);
    await narrow.context().close();
  });
});
