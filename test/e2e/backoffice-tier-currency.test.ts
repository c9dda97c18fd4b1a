import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The Program screen's tiers of a program with "Points" and "Stamps": it says which one the tiers
// count (the program's first by default, as migration 0050 set programs with several), labels the
// thresholds by it, and changes it (program settings' tier_currency).
describe('the tier currency on the back office’s Program screen, in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    const vendor = await node.addVendor('Café de Sellos');
    owner = await ownerOf(node, vendor.vendorId);
    const stamps = await http(`${node.url}/currencies`, { method: 'POST', token: vendor.accessToken, body: { name: 'Stamps' } });
    expect(stamps.status, JSON.stringify(stamps.body)).toBe(201);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  it('says the tiers count Points, and counts Stamps once chosen', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, 'program', 'Tiers');
    const choice = page.getByRole('group', { name: 'Tiers count' });
    await expectText(choice, /Tiers count only Points:/);
    await expectText(page.getByRole('table', { name: 'Tiers' }).getByRole('row').first(), /Threshold \(Points\)/);

    await choice.getByRole('combobox', { name: 'Currency' }).click();
    await page.getByRole('option', { name: 'Stamps' }).click();
    await choice.getByRole('button', { name: 'Save' }).click();
    await expectText(choice, /Tiers count only Stamps:/);
    await expectText(page.getByRole('table', { name: 'Tiers' }).getByRole('row').first(), /Threshold \(Stamps\)/);
    const program = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body;
    const stampsId = (program.currencies as Array<{ id: string; name: string }>).find((c) => c.name === 'Stamps')!.id;
    expect(program.settings.tier_currency).toBe(stampsId);
    await page.context().close();
  });
});
