import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectText, openScreen } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// A merchant whose program speaks the wrong language (init took it from the country, or it was set
// up before init did) changes it on the Program page: the page says what it decides, and a counter
// screen opened afterwards speaks the new language without anyone choosing it there.
describe("the program's language on the Program page", () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let page: Page;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Lupe');
    owner = await ownerOf(node, vendor.vendorId);
    browser = await launchChromium();
    page = await backOfficePage(browser, node.url, owner.email, 'program', 'Currencies');
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const section = (): Locator => page.locator('.mantine-Paper-root').filter({ has: page.getByRole('heading', { name: 'Language', exact: true }) });

  it('says what the program speaks and what that decides', async () => {
    await expectText(section().getByTestId('program-language-now'), 'The program speaks English.');
    await expectText(section(), /Customers who chose no language get their mail/);
    await expect.poll(() => section().getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
  });

  it('changes it; a counter screen opened afterwards speaks it, and the audit log says so', async () => {
    await section().getByRole('combobox', { name: 'Program language' }).click();
    await page.getByRole('option', { name: 'Español' }).click();
    await section().getByRole('button', { name: 'Save' }).click();
    await expectText(section().getByTestId('program-language-now'), 'The program speaks Spanish.');
    expect((await node.engine.db.selectFrom('vendors').select('language').where('id', '=', vendor.vendorId).executeTakeFirstOrThrow()).language).toBe('es');

    const counter = await openScreen(browser, node.url, vendor.apiKey);
    try {
      await expectText(counter.page.getByRole('region', { name: 'Cola' }), /Cola/);
    } finally {
      await counter.context.close();
    }

    await page.getByRole('tab', { name: 'Audit log' }).click();
    await expectText(page.getByRole('table'), /Language changed/);
  });
});
