import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { backOfficePage, expectCount, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Nineteenth round: the dashboard of a café with "Points" and "Stamps" in Chromium. A sale of 40.00
// earned 40 points and 8 stamps, and the dashboard said "Points issued: 48"; it now says each
// currency's figures, in its figures table, per store and in the statement of a period; and the
// customer's ledger said "Points earned" on the row of the stamps.
describe('the dashboard of a program with two loyalty currencies, in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  const store = inStoreApi(() => node);
  let anaId = 0;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests(), rateLimits: ROOMY_RATE_LIMITS });
    vendor = await node.addVendor('Café de Dos');
    owner = await ownerOf(node, vendor.vendorId);
    const stamps = await http(`${node.url}/currencies`, { method: 'POST', token: vendor.accessToken, body: { name: 'Stamps' } });
    const rule = await http(`${node.url}/earning-rules`, { method: 'POST', token: vendor.accessToken, body: { name: '1 stamp per 5 dollars', currency: stamps.body.id, points: 1, per_amount: 5 } });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const ana = await signUpAt(node, vendor.vendorId, { first_name: 'Ana' });
    anaId = ana.userId;
    await store.orderOk(vendor.apiKey, { card_number: ana.email, receipt_number: 'TWO-1', subtotal: 40 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  it('says Points issued and Stamps issued apart, never their sum', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, '', 'Figures');
    const figures = page.getByRole('table', { name: 'Figures' });
    await expectText(figures.getByRole('row', { name: 'Points issued' }), /^Points issued\s*40\s*40$/);
    await expectText(figures.getByRole('row', { name: 'Stamps issued' }), /^Stamps issued\s*8\s*8$/);
    await expectText(figures.getByRole('row', { name: 'Stamps redeemed' }), /^Stamps redeemed\s*0\s*0$/);
    await expectCount(figures.getByText('48'), 0);
    const perStore = page.getByRole('table', { name: 'Per store, last 30 days' });
    await expectText(perStore.getByRole('row').first(), /Points issued\s*Points redeemed\s*Stamps issued\s*Stamps redeemed/);
    await expectText(perStore.getByRole('row', { name: 'Main Store' }), /^Main Store\s*0\s*1\s*40\s*0\s*8\s*0\s*\$0\.00$/);

    const today = new Date(node.clock.now()).toISOString().slice(0, 10);
    const section = page.getByRole('region', { name: 'Statement of a period' });
    await section.getByLabel('From').fill(today);
    await section.getByLabel('To').fill(today);
    await section.getByRole('button', { name: 'Show' }).click();
    await expectText(section.getByRole('table', { name: 'Statement per store' }).getByRole('row', { name: 'Main Store' }), /^Main Store\s*1\s*40\s*0\s*8\s*0\s*\$0\.00\s*\$0\.00$/);
  });

  it('the customer’s ledger says what each entry did, not "Points earned" on a row of stamps', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, `customers/${anaId}`, null);
    const rows = page.getByRole('row').filter({ hasText: 'TWO-1' });
    await expectCount(rows, 2);
    await expectText(rows.filter({ hasText: 'Stamps' }), /Stamps\s*Earned\s*\+8/);
    await expectText(rows.filter({ hasText: 'Points' }), /Points\s*Earned\s*\+40/);
  });
});
