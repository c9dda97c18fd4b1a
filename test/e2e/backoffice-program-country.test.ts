import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// A merchant who set the program up in the wrong country changes it on the Program page: the page
// says what the country decides, a code that is no country is refused under the form, and the
// other pages (a new store's form) follow the new country without signing in again.
describe("the program's country on the Program page", () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let page: Page;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café del Centro');
    owner = await ownerOf(node, vendor.vendorId);
    browser = await launchChromium();
    page = await backOfficePage(browser, node.url, owner.email, 'program', 'Currencies');
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const section = (): Locator => page.locator('.mantine-Paper-root').filter({ has: page.getByRole('heading', { name: 'Country', exact: true }) });

  it('says where the program is and what that decides', async () => {
    await expectText(section().getByTestId('program-country-now'), 'The program is in United States (US).');
    await expectText(section(), /Phones typed without a \+code are read in this country/);
  });

  it('refuses a code that is no country under its form, the field marked', async () => {
    const code = section().getByRole('textbox', { name: 'Country code' });
    await code.fill('XX');
    await section().getByRole('button', { name: 'Save' }).click();
    await expectText(section().getByRole('alert'), /two-letter code/);
    await expect.poll(() => code.getAttribute('aria-invalid')).toBe('true');
    await expectText(section().getByTestId('program-country-now'), 'The program is in United States (US).');
  });

  it('changes it, and a new store then starts in the new country', async () => {
    await section().getByRole('textbox', { name: 'Country code' }).fill('ec');
    await section().getByRole('button', { name: 'Save' }).click();
    await expectText(section().getByTestId('program-country-now'), 'The program is in Ecuador (EC).');
    expect((await node.engine.db.selectFrom('vendors').select('country').where('id', '=', vendor.vendorId).executeTakeFirstOrThrow()).country).toBe('EC');

    await page.getByRole('tab', { name: 'Stores' }).click();
    await page.getByRole('button', { name: 'Add a store' }).click();
    await expect.poll(() => page.getByRole('textbox', { name: 'Country', exact: true }).inputValue()).toBe('EC');
  });
});
