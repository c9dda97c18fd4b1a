import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYBACK_FINISH_GRACE_MS } from '../../src/core/payments/pay-back/finish-lost-paybacks';
import { RECONCILE_GRACE_MS, reconcileCharges } from '../../src/core/payments/reconcile/reconcile-charges';
import { BACKGROUND_REQUEST_HEADER, BACKGROUND_REQUEST_VALUE } from '../../src/shared/background-request';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectText, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { buyGuestGift } from '../support/payment-exceptions';
import { paymentsApi } from '../support/payments';
import { startTestNode, type TestNode } from '../support/test-node';

// The back office's loose ends of the tenth round, in Chromium against a real node: the payment
// exceptions tab counts the card pay-backs waiting too and their section comes first; a test event
// or a replay for a paused endpoint says it waits for the endpoint; the delivery log's refreshes
// on its timer are marked as background (the node does not count them as the staff member's activity).
describe('the back office’s loose ends in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendorId: number;
  let owner: SignedInStaff;
  const pay = paymentsApi(() => node);

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests(), rateLimits: ROOMY_RATE_LIMITS, webhooksAllowPrivate: true });
    vendorId = (await node.addVendor('Café Suelto')).vendorId;
    owner = await ownerOf(node, vendorId);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function signedIn(route: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/${route}`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    return page;
  }

  it('the tab counts card pay-backs waiting beside open exceptions, and their section comes before the exceptions', async () => {
    pay.gateway().loseNextAnswers(3);
    for (let i = 1; i <= 3; i++) expect((await buyGuestGift(node, vendorId, i, { name: `Buyer ${i}`, email: `buyer${i}@example.com` })).status).toBe(503);
    node.clock.advance(RECONCILE_GRACE_MS + 1000);
    expect((await reconcileCharges(node.engine)).paidWithoutGift).toHaveLength(3);
    const paula = await signUpAt(node, vendorId, { first_name: 'Paula', last_name: 'Payback', email_address: 'paula@example.com' });
    await pay.reloadOk(paula.key, { user_billingprofile: (await pay.addProfileOk(paula.key)).id, amount: 20 });
    pay.gateway().loseNextAnswers(1);
    expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${paula.userId}/pay-backs`, { amount: 800, method: 'card', idempotency_key: 'loose-paula' })).status).toBe(503);
    node.clock.advance(PAYBACK_FINISH_GRACE_MS);

    const page = await signedIn('dashboard');
    const tab = page.getByRole('tab', { name: /Payment exceptions/ });
    await expectText(tab, 'Payment exceptions3 open · 1 pay-back');
    await tab.click();
    const heading = page.getByRole('heading', { name: 'Card pay-backs not finished' });
    await heading.waitFor();
    await page.getByRole('table', { name: 'Payment exceptions' }).waitFor();
    const paybacks = (await heading.boundingBox())!;
    const filter = (await page.getByRole('combobox', { name: 'Show' }).boundingBox())!;
    // Above the exceptions' filter and list, in the first screenful: no page of exceptions to scroll past.
    expect(paybacks.y).toBeLessThan(filter.y);
    expect(paybacks.y + paybacks.height).toBeLessThan(800);

    await page.getByRole('button', { name: 'Finish the refund $8.00, Paula Payback' }).click();
    await expectText(page.getByText(/Refunded \$8\.00 to Paula Payback’s card/), /the pay-back is finished/);
    await expectText(tab, 'Payment exceptions3 open');
    await page.context().close();
  });

  it('a test event and a replay for a paused endpoint say they wait for it; the log’s timer refreshes are background requests', async () => {
    const made = await staffCall(node, owner.token, 'POST', '/backoffice/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.placed'] });
    expect(made.status).toBe(201);
    expect((await staffCall(node, owner.token, 'PUT', `/backoffice/webhooks/${made.body.id}`, { status: 'paused' })).status).toBe(200);

    const page = await signedIn('webhooks');
    await page.getByRole('row', { name: 'http://127.0.0.1:9/hook' }).getByRole('button', { name: 'Send test' }).click();
    await expectText(page.getByRole('status'), 'Test event queued, but the endpoint is paused: it is sent when the endpoint is enabled.');

    const logRequests: Request[] = [];
    page.on('request', (request) => {
      if (request.url().includes(`/backoffice/webhooks/${made.body.id}/deliveries`)) logRequests.push(request);
    });
    await page.getByRole('row', { name: 'http://127.0.0.1:9/hook' }).getByRole('link', { name: 'Deliveries' }).click();
    await page.getByRole('table', { name: 'Deliveries to http://127.0.0.1:9/hook' }).waitFor();
    // The pending test event keeps the log refreshing every 2 s, each marked as the screen's own.
    await expect.poll(() => logRequests.length, { timeout: 8_000 }).toBeGreaterThanOrEqual(3);
    const marks = logRequests.map((request) => request.headers()[BACKGROUND_REQUEST_HEADER] ?? null);
    expect(marks[0]).toBeNull(); // opening the log is the staff member's doing
    expect(marks.slice(1).every((mark) => mark === BACKGROUND_REQUEST_VALUE)).toBe(true);

    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => logRequests.at(-1)!.headers()[BACKGROUND_REQUEST_HEADER] ?? null).toBeNull();

    await page.getByRole('button', { name: 'Replay' }).first().click();
    await expectText(page.getByRole('status'), 'A new delivery is queued, but the endpoint is paused: it is sent when the endpoint is enabled.');
    await page.context().close();
  });
});
