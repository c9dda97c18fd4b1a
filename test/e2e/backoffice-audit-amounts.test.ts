import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { signUpAt } from '../support/customers';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// Sixteenth round: the audit log showed amounts in minor units ("balance: 0 → 1250") and values as
// stored ("role: manager"). A café in Madrid (euros, Spain) reads money as money in the entry's
// currency and the screen's language, points named by their currency, and roles and statuses in
// words, in English and in Spanish; a field it has no words for stays as recorded.
describe('audit log amounts and values in words, in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let points: string;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await setUpVendor(node.engine, { name: 'Café Lupe', currency: 'EUR', country: 'ES', store: { name: 'Lupe Centro', address1: 'Calle Mayor 1', city: 'Madrid' } });
    owner = await ownerOf(node, vendor.vendorId);
    const ana = await signUpAt(node, vendor.vendorId, { first_name: 'Ana', last_name: 'García' });
    const currency = (id: number) => node.engine.db.selectFrom('currencies').select(['public_id', 'name']).where('id', '=', id).executeTakeFirstOrThrow();
    const [euros, loyalty] = [await currency(vendor.quickPayCurrencyId), await currency(vendor.loyaltyCurrencyId)];
    points = loyalty.name;
    const adjust = (currency: string, amount: number, reason: string) => staffCall(node, owner.token, 'POST', `/backoffice/customers/${ana.userId}/adjustments`, { currency, amount, reason });
    expect((await adjust(loyalty.public_id, 40, 'Bienvenida')).status).toBe(201);
    expect((await adjust(euros.public_id, 1250, 'Compensación')).status).toBe(201);
    expect((await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email: 'luis@lupe.test', name: 'Luis', role: 'manager', store_id: null })).status).toBe(201);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  /** The change column of the `nth` row (newest first) whose action reads `action`. */
  const changeOf = (page: Page, action: RegExp, nth = 0): Locator =>
    page.locator('tbody tr').filter({ has: page.locator('[data-audit-words]', { hasText: action }) }).nth(nth).locator('td').nth(4);

  it('writes money in its currency, points by name and roles in words, in English and in Spanish', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, 'audit', 'Audit log');
    try {
      const [euros, loyal] = [changeOf(page, /^Balance adjusted$/), changeOf(page, /^Balance adjusted$/, 1)];
      // Newest first: the euros, then the points.
      await expectText(euros, /balance: €0\.00 → €12\.50\s*amount: €12\.50\s*reason: Compensación\s*ledger_entry: \d+/);
      await expectText(loyal, new RegExp(`balance: 0 ${points} → 40 ${points}\\s*amount: 40 ${points}`));
      await expectText(changeOf(page, /^Invited$/), /role: Manager[\s\S]*status: Invited/);

      await page.getByRole('banner').getByText('ES', { exact: true }).click();
      await expectText(changeOf(page, /^Ajuste de saldo$/), /saldo: 0,00\s€ → 12,50\s€\s*importe: 12,50\s€\s*motivo: Compensación\s*movimiento: \d+/);
      await expectText(changeOf(page, /^Ajuste de saldo$/, 1), new RegExp(`saldo: 0 ${points} → 40 ${points}\\s*importe: 40 ${points}`));
      await expectText(changeOf(page, /^Invitación$/), /rol: Gerente[\s\S]*estado: Invitado/);
      // Nothing in minor units or codes is left on those lines (whole words: a staff email may hold the digits, owner.21250.1@…).
      for (const text of await page.locator('tbody td:nth-child(5)').allTextContents()) expect(text).not.toMatch(/\b1250\b|\bmanager\b|\binvited\b/);
    } finally {
      await page.context().close();
    }
  });
});
