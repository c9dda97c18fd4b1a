import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// The audit log in Chromium against a real node: the changes to one kind of object (the node
// filters them: `object_type`), paged from the first page whenever the kind changes, in Spanish too.
describe('back-office audit log in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    // 26 keys issued (more than a page), one invitation, one store change.
    for (let i = 1; i <= 26; i++) {
      const issued = await staffCall(node, owner.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'cashier', label: `Till ${i}` });
      expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    }
    expect((await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email: 'luis.mena@andino.test', name: 'Luis Mena', role: 'manager', store_id: null })).status).toBe(201);
    expect((await staffCall(node, owner.token, 'PUT', `/backoffice/stores/${vendor.storeId}`, { city: 'Quito' })).status).toBe(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const auditPage = () => backOfficePage(browser, node.url, owner.email, 'audit', 'Audit log');

  const actionsShown = (page: Page) => page.getByRole('table', { name: 'Audit log' }).getByRole('row').locator('td:nth-child(3) [data-audit-words]').allTextContents();
  const codesShown = (page: Page) => page.getByRole('table', { name: 'Audit log' }).getByRole('row').locator('td:nth-child(3)').allTextContents();

  it('shows the changes to one kind of object, from the first page, and every change again', async () => {
    const page = await auditPage();
    // The owner's creation, 26 keys, an invitation, a store change.
    await expectText(page.getByText(/of 29$/), '1–25 of 29');
    await page.getByRole('button', { name: 'Next' }).click();
    await expectText(page.getByText(/of 29$/), '26–29 of 29');

    // Another kind starts at its first page.
    await page.getByRole('combobox', { name: 'Show changes to' }).click();
    await page.getByRole('option', { name: 'Staff', exact: true }).click();
    await expectText(page.getByText(/ of 2$/), '1–2 of 2');
    // In words, the action's code under them.
    expect(await actionsShown(page)).toEqual(['Invited', 'Created']);
    expect(await codesShown(page)).toEqual(['Invitedstaff.invite', 'Createdstaff.create']);

    await page.getByRole('combobox', { name: 'Show changes to' }).click();
    await page.getByRole('option', { name: 'Stores', exact: true }).click();
    await expectText(page.getByText(/ of 1$/), '1–1 of 1');
    expect(await actionsShown(page)).toEqual(['Changed']);
    // Field by field: only what moved, no JSON.
    const storeRow = page.getByRole('table', { name: 'Audit log' }).getByRole('row').nth(1);
    await expectText(storeRow.locator('td').nth(3), /^Store \d+$/);
    await expectText(storeRow.locator('td').nth(4), 'city: Springfield → Quito');

    await page.getByRole('combobox', { name: 'Show changes to' }).click();
    await page.getByRole('option', { name: 'API keys', exact: true }).click();
    await expectText(page.getByText(/of 26$/), '1–25 of 26');
    expect(new Set(await actionsShown(page))).toEqual(new Set(['Issued']));

    // In Spanish, the same choice reads in Spanish.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    expect(await page.getByRole('combobox', { name: 'Mostrar cambios de' }).inputValue()).toBe('Claves API');
    await page.getByRole('combobox', { name: 'Mostrar cambios de' }).click();
    await page.getByRole('option', { name: 'Todo', exact: true }).click();
    await expectText(page.getByText(/de 29$/), '1–25 de 29');
    // Newest first: the store's change, in Spanish words.
    await expectText(page.locator('[data-audit-words]').first(), 'Cambio');
    await expectText(page.locator('tbody tr').first().locator('td').nth(3), /^Tienda \d+$/);
    await page.context().close();
  });

  it('says what a change set or moved, not the row’s ids and millisecond times', async () => {
    const program = await staffCall(node, owner.token, 'GET', '/backoffice/program');
    const points = program.body.currencies.find((c: { code: string | null }) => c.code === null).id as string;
    const made = await staffCall(node, owner.token, 'POST', '/backoffice/program/rewards', { name: 'Free coffee', cost: 50, currency: points });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await staffCall(node, owner.token, 'PUT', `/backoffice/program/rewards/${made.body.id}`, { cost: 60 })).status).toBe(200);
    const page = await auditPage();
    const rows = page.getByRole('table', { name: 'Audit log' }).locator('tbody tr');
    // Newest first: the change is its one field (it also read `updatedAt: 1796598563798 → 1796598572305`) …
    await expectText(rows.nth(0).locator('td').nth(4), /^cost: 50 → 60$/);
    // … and the creation what it set (it began with `id:`, `publicId:` and `vendorId:`, and ended with two times in milliseconds).
    const created = await expectText(rows.nth(1).locator('td').nth(4), /name: Free coffee/);
    expect(created).toMatch(/^cost: 50$/m);
    expect(created).not.toMatch(/^(id|publicId|vendorId|createdAt|updatedAt):/m);
    await page.context().close();
  });
});
