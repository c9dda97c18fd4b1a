import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { signUpAt } from '../support/customers';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A merchant's first day: `punchcard init` without --currency made quick pay in USD, and the back
// office could only rename it — the node takes another code until money exists in it, but only
// through the bearer API. Now the quick-pay row's Edit changes the code too, and after the first
// sale the node's refusal says why it no longer can.
describe('the quick-pay currency’s code in the back office', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Panadería Lupe');
    owner = await ownerOf(node, vendor.vendorId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const programPage = async (): Promise<Page> => {
    const page = await backOfficePage(browser, node.url, owner.email, 'program', 'Currencies');
    return page;
  };
  const quickPayCode = async () => {
    const program = await staffCall(node, owner.token, 'GET', '/backoffice/program');
    return program.body.currencies.find((c: { id: string }) => c.id === program.body.quick_pay_currency).code as string;
  };

  it('changes before the first sale, with the node’s refusal of a code that is none; points get no code box', async () => {
    const page = await programPage();
    const currencies = page.getByRole('table', { name: 'Currencies' });
    // The loyalty currency is renamed only: it has no code to change.
    const points = currencies.getByRole('row', { name: 'Points' });
    await points.getByRole('button', { name: 'Rename Points' }).click();
    expect(await points.getByRole('textbox').count()).toBe(1);
    await points.getByRole('button', { name: 'Cancel' }).click();

    const quickPay = currencies.getByRole('row', { name: 'Quick Pay USD' });
    await quickPay.getByRole('button', { name: 'Edit Quick Pay USD' }).click();
    const code = quickPay.getByRole('textbox', { name: 'ISO code (Quick Pay USD)' });
    expect(await code.inputValue()).toBe('USD');
    await code.fill('zzz');
    expect(await code.inputValue()).toBe('ZZZ');
    await quickPay.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('alert'), /"ZZZ" is not an ISO 4217 currency code/);
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    expect(await quickPayCode()).toBe('USD');

    await code.fill('EUR');
    await quickPay.getByRole('textbox', { name: 'Name (Quick Pay USD)' }).fill('Quick Pay');
    await quickPay.getByRole('button', { name: 'Save' }).click();
    await expectText(currencies.getByRole('row', { name: 'Quick Pay', exact: true }), /Quick Pay\s*EUR\s*Active/);
    // The rest of the page follows at once: the payment limits are in euros.
    await page.getByRole('spinbutton', { name: 'Largest eGift (EUR)' }).or(page.getByRole('textbox', { name: 'Largest eGift (EUR)' })).waitFor();
    expect(await quickPayCode()).toBe('EUR');
    await page.context().close();
  });

  it('after the first sale the code stays, and the screen says the node’s reason', async () => {
    const ana = await signUpAt(node, vendor.vendorId, { first_name: 'Ana', last_name: 'Ríos' });
    const sale = await http(`${node.url}/order?api_key=${encodeURIComponent(vendor.apiKey)}`, { method: 'POST', body: { card_number: ana.email, receipt_number: 'q-1', subtotal: 4.25 } });
    expect(sale.status, JSON.stringify(sale.body)).toBe(200);

    const page = await programPage();
    const quickPay = page.getByRole('table', { name: 'Currencies' }).getByRole('row', { name: 'Quick Pay', exact: true });
    await quickPay.getByRole('button', { name: 'Edit Quick Pay' }).click();
    await quickPay.getByRole('textbox', { name: 'ISO code (Quick Pay)' }).fill('GBP');
    await quickPay.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('alert'), /quick-pay currency and .* in it: its code can no longer change/);
    expect(await quickPayCode()).toBe('EUR');
    // A rename alone sends no code, so it is not refused.
    await quickPay.getByRole('textbox', { name: 'ISO code (Quick Pay)' }).fill('EUR');
    await quickPay.getByRole('textbox', { name: 'Name (Quick Pay)' }).fill('Lupe Pay');
    await quickPay.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('table', { name: 'Currencies' }).getByRole('row', { name: 'Lupe Pay' }), /Lupe Pay\s*EUR/);
    await page.context().close();
  });
});
