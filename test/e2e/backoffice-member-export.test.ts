import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { signUpAt } from '../support/customers';
import { backOfficePage, expectCount, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// The program's members as a CSV from the Customers screen, in Chromium against a real node: an
// owner's button saves the node's file (byte-order mark, header, the member); a manager sees none.
describe('back-office download of every member in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let manager: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Norte');
    owner = await ownerOf(node, vendor.vendorId);
    manager = await invitedStaff(node, owner, 'manager');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  it('an owner downloads the members’ CSV from the Customers screen', async () => {
    const carmen = await signUpAt(node, vendor.vendorId, { first_name: 'Carmen', last_name: 'Vidal', contact_consent: 1 });
    const page = await backOfficePage(browser, node.url, owner.email, 'customers', null);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download members (CSV)' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^members-\d{4}-\d{2}-\d{2}\.csv$/);
    const bytes = readFileSync(await download.path());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.toString('utf8').slice(1).split('\r\n');
    expect(lines[0]).toMatch(/^first_name,last_name,email,phone,card,points,quick_pay,birthdate,marketing,sms_marketing,language,points_expire_on,member_since,tier,blocked,/);
    expect(lines[1]).toMatch(new RegExp(`^Carmen,Vidal,${carmen.email.replace(/[.+]/g, '\\$&')},,,0,0\\.00,,yes,no,`));
    await expectText(page.getByRole('status').filter({ hasText: 'Downloaded' }), /Downloaded members-.*\.csv\./);
    await page.context().close();
  });

  it('a manager sees no such button', async () => {
    const page = await backOfficePage(browser, node.url, manager.email, 'customers', null);
    await page.getByRole('button', { name: 'Search' }).waitFor();
    await expectCount(page.getByRole('button', { name: 'Download members (CSV)' }), 0);
    await page.context().close();
  });
});
