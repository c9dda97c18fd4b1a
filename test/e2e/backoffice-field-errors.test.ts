import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { registerOkAt } from '../support/customers';
import { expectAttribute, expectCount, expectText, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// The back office ties a refusal shown in its alert to the field it is about the way the cashier's
// screens do (src/renderer/src/a11y/field-error.ts): the field is red, aria-invalid and described by
// the alert itself, and the message is on the page once (no hidden copy). The refusal names the
// field as the form labels it, without "(required)".

describe('back office: a refusal marks its field and names it as the form does', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let customerId: number;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    customerId = (await registerOkAt(node, vendor.vendorId, { first_name: 'Bruno', last_name: 'Paz' })).user.id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function signedInAt(route: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/${route}`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    return page;
  }

  /** The field's aria-invalid, Mantine's error look, and "<role>: <text>" of what its aria-describedby points at. */
  const fieldError = (field: Locator) =>
    field.evaluate((el) => ({
      invalid: el.getAttribute('aria-invalid'),
      red: el.hasAttribute('data-error'),
      describedBy: (el.getAttribute('aria-describedby') ?? '')
        .split(/\s+/)
        .filter(Boolean)
        .map((id) => document.getElementById(id))
        .map((d) => (d ? `${d.getAttribute('role') ?? '-'}: ${d.innerText.replace(/\s+/g, ' ').trim()}` : '<missing>')),
    }));

  it("a block without a reason: said once, in the form's words, and the reason field points at it", async () => {
    const page = await signedInAt(`customers/${customerId}`);
    await page.getByRole('table', { name: 'Balances' }).waitFor();
    const reason = page.getByRole('textbox', { name: 'Reason to block (required)', exact: true });
    expect(await fieldError(reason)).toEqual({ invalid: null, red: false, describedBy: [] });

    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await expectText(page.getByRole('alert'), 'Reason to block is required.');
    expect(await page.getByRole('alert').textContent()).toBe('Reason to block is required.');
    await expect.poll(() => fieldError(reason)).toEqual({ invalid: 'true', red: true, describedBy: ['alert: Reason to block is required.'] });
    // On the page once: no copy of it hidden beside the field.
    await expectCount(page.getByText('Reason to block is required.'), 1);
    // The adjustment's fields are not marked.
    expect((await fieldError(page.getByRole('textbox', { name: 'Reason for the adjustment (required)', exact: true }))).invalid).toBeNull();

    // A reason given and the block asked for: the refusal is gone, and so are the marks.
    await reason.fill('Repeated chargebacks');
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    await expect.poll(() => fieldError(reason)).toEqual({ invalid: null, red: false, describedBy: [] });
    const currency = page.getByRole('combobox', { name: 'Currency' });
    await expect.poll(() => fieldError(currency)).toEqual({ invalid: 'true', red: true, describedBy: ['alert: Choose the currency to adjust.'] });
    await page.context().close();
  });

  it("a Program row's refused Save: the row's field points at the section's alert, and Edit still puts the focus in its name", async () => {
    const page = await signedInAt('program');
    const rewards = page.getByRole('table', { name: 'Rewards' });
    await rewards.waitFor();
    await page.getByRole('group', { name: 'New reward' }).getByRole('textbox', { name: 'Name', exact: true }).fill('Muffin');
    await page.getByRole('group', { name: 'New reward' }).getByRole('textbox', { name: /Cost/ }).fill('80');
    await page.getByRole('group', { name: 'New reward' }).getByRole('button', { name: /^Add/ }).click();
    const row = rewards.getByRole('row', { name: 'Muffin' });
    await row.getByRole('button', { name: 'Edit Muffin', exact: true }).click();
    const name = row.getByRole('textbox', { name: 'Name (Muffin)', exact: true });
    // The row's own ref still works beside the mark's: Edit puts the focus in the name.
    await expect.poll(() => name.evaluate((el) => el === document.activeElement)).toBe(true);
    await name.fill('');
    await row.getByRole('button', { name: 'Save Muffin', exact: true }).click();
    await expect.poll(() => fieldError(name)).toMatchObject({ invalid: 'true', red: true, describedBy: [expect.stringMatching(/^alert: Name/)] });
    await expectAttribute(name, 'aria-invalid', 'true');
    await page.context().close();
  });
});
