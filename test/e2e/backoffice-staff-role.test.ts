import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import { invitedStaff, type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectCount, expectText, saveScreenshot } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// Changing a staff member's role from the Staff screen in Chromium, against a real node: an owner
// makes a manager the store manager of a store after confirming (cancelling changes nothing; the
// manager's live session is limited to that store from its next call), then a manager again; the
// node's refusal to demote the only owner is shown, in Spanish too, and changes nothing; an owner
// who makes themselves a manager (another owner remaining) loses the Staff screen at once.
describe('back-office staff role changes in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendorId: number;
  let mainStoreId: number;
  let northStoreId: number;
  let owner: SignedInStaff;
  let manager: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    const vendor = await node.addVendor('Café Andino');
    vendorId = vendor.vendorId;
    mainStoreId = vendor.storeId;
    const { staff } = await addOwner(node.engine, { vendorId, email: `ana.${process.pid}@andino.test`, name: 'Ana Torres', password: STAFF_PASSWORD });
    owner = { id: staff.id, email: staff.email, token: await signInOverHttp(node, staff.email) };
    const north = await staffCall(node, owner.token, 'POST', '/backoffice/stores', { name: 'Quito Norte', address: 'Av. Amazonas', city: 'Quito', country: 'EC', time_zone: 'America/Guayaquil' });
    expect(north.status, JSON.stringify(north.body)).toBe(201);
    northStoreId = north.body.id as number;
    manager = await invitedStaff(node, owner, 'manager');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  /** A fresh browser signed in as `email`, on the Staff screen. */
  const staffScreen = (email: string) => backOfficePage(browser, node.url, email, 'staff', 'Staff');

  const rowOf = (page: Page, email: string, table = 'Staff'): Locator => page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: email });
  const memberOf = async (email: string) => (await staffCall(node, owner.token, 'GET', '/backoffice/staff')).body.items.find((s: { email: string }) => s.email === email) as { role: string; store_id: number | null; status: string };

  async function choose(page: Page, label: string, option: string) {
    await page.getByRole('dialog').getByRole('combobox', { name: label }).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }

  it('makes a manager the store manager of a store after confirming, which limits their session, and a manager again', async () => {
    const page = await staffScreen(owner.email);
    const row = rowOf(page, manager.email);
    await expectText(row, /Manager.*Active/s);

    // Cancelling the dialog changes nothing.
    await row.getByRole('button', { name: 'Change role' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, /Change the role of The manager\?.*next action/s);
    await choose(page, 'Role', 'Store manager');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expectCount(page.getByRole('dialog'), 0);
    expect(await memberOf(manager.email)).toMatchObject({ role: 'manager', store_id: null });

    // A store manager needs their store: the dialog waits for one.
    await row.getByRole('button', { name: 'Change role' }).click();
    await choose(page, 'Role', 'Store manager');
    await expect.poll(() => dialog.getByRole('button', { name: 'Yes, change role' }).isDisabled()).toBe(true);
    await choose(page, 'Store', 'Quito Norte');
    await saveScreenshot(page, 'backoffice-staff-role');
    await dialog.getByRole('button', { name: 'Yes, change role' }).click();
    await expectText(page.getByRole('status'), 'The manager is now store manager of Quito Norte.');
    await expectText(row, /Store manager.*Quito Norte.*Active/s);
    await saveScreenshot(page, 'backoffice-staff-role-changed');
    expect(await memberOf(manager.email)).toMatchObject({ role: 'store_manager', store_id: northStoreId, status: 'active' });
    // The session they hold is a store manager's from its next call: their store only.
    const stores = await staffCall(node, manager.token, 'GET', '/backoffice/stores');
    expect(stores.body.items.map((s: { id: number }) => s.id)).toEqual([northStoreId]);
    expect((await staffCall(node, manager.token, 'GET', `/backoffice/stores/${mainStoreId}`)).status).toBe(403);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'staff.update', object_id: String(manager.id), before: { role: 'manager', store_id: null }, after: { role: 'store_manager', store_id: northStoreId } });

    // In Spanish, the row says it too.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(rowOf(page, manager.email, 'Personal'), /Gerente de tienda.*Quito Norte.*Activo.*Cambiar rol/s);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();

    await row.getByRole('button', { name: 'Change role' }).click();
    await choose(page, 'Role', 'Manager');
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, change role' }).click();
    await expectText(page.getByRole('status'), 'The manager is now manager.');
    await expectCount(row.filter({ hasText: 'Quito Norte' }), 0);
    expect(await memberOf(manager.email)).toMatchObject({ role: 'manager', store_id: null });
    expect((await staffCall(node, manager.token, 'GET', `/backoffice/stores/${mainStoreId}`)).status).toBe(200);
    await page.context().close();
  });

  it('shows the node’s refusal to demote the only owner, in Spanish, and changes nothing', async () => {
    const page = await staffScreen(owner.email);
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    const row = rowOf(page, owner.email, 'Personal');
    await row.getByRole('button', { name: 'Cambiar rol' }).click();
    await choose(page, 'Rol', 'Gerente');
    // Their own account: the dialog says what they lose.
    await expectText(page.getByRole('dialog'), /Es su propia cuenta: deja de ser propietario/);
    await page.getByRole('dialog').getByRole('button', { name: 'Sí, cambiar rol' }).click();
    await expectText(page.getByRole('alert'), 'Un programa conserva al menos un propietario activo: primero haga propietario a otra persona.');
    await expectText(row, /Propietario.*Activo/s);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
    await expectText(page.getByRole('alert'), 'A program keeps at least one active owner: make someone else owner first.');
    expect(await memberOf(owner.email)).toMatchObject({ role: 'owner', status: 'active' });
    await page.context().close();
  });

  it('an owner who makes themselves a manager, another owner remaining, leaves the Staff screen at once', async () => {
    const second = `owner.two.${process.pid}@staff.test`;
    await addOwner(node.engine, { vendorId, email: second, name: 'Second Owner', password: STAFF_PASSWORD });
    const page = await staffScreen(second);
    await rowOf(page, second).getByRole('button', { name: 'Change role' }).click();
    await choose(page, 'Role', 'Manager');
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, change role' }).click();
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    await expectCount(page.getByRole('tab', { name: 'Staff' }), 0);
    await expectText(page.getByRole('banner'), /Second Owner · Manager/);
    expect(await memberOf(second)).toMatchObject({ role: 'manager', status: 'active' });
    await page.context().close();
  });
  it('a role another owner changes shows from the next screen on: the tabs and the header follow it', async () => {
    const third = `owner.three.${process.pid}@staff.test`;
    const { staff } = await addOwner(node.engine, { vendorId, email: third, name: 'Third Owner', password: STAFF_PASSWORD });
    const page = await staffScreen(third);
    await expectText(page.getByRole('banner'), /Third Owner · Owner/);
    const changed = await staffCall(node, owner.token, 'PUT', `/backoffice/staff/${staff.id}`, { role: 'store_manager', store_id: northStoreId });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await page.getByRole('tab', { name: 'Stores & keys' }).click();
    await expectText(page.getByRole('banner'), /Third Owner · Store manager/);
    await expectCount(page.getByRole('tab', { name: 'Staff' }), 0);
    await expectCount(page.getByRole('tab', { name: 'Audit log' }), 0);
    await expectText(page.getByRole('table', { name: 'Stores' }), /Quito Norte/);
    await page.context().close();
  });
  it('renames a member in place; an empty name is the node’s refusal; the owner’s own new name shows in the header', async () => {
    const page = await staffScreen(owner.email);
    const row = rowOf(page, manager.email);
    await row.getByRole('button', { name: 'Rename' }).click();
    await row.getByRole('textbox', { name: 'Name' }).fill('   ');
    await row.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('alert'), 'Name must not be empty.');
    await row.getByRole('textbox', { name: 'Name' }).fill('Luis Mena');
    await row.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Saved: Luis Mena.');
    await expectText(row, /Luis Mena.*Rename/s);
    await expectCount(row.getByRole('textbox', { name: 'Name' }), 0);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'staff.update', object_id: String(manager.id), before: { name: 'The manager' }, after: { name: 'Luis Mena' } });

    const own = rowOf(page, owner.email);
    await own.getByRole('button', { name: 'Rename' }).click();
    await own.getByRole('textbox', { name: 'Name' }).fill('Ana Torres Vega');
    await own.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('banner'), /Ana Torres Vega · Owner/);
    await page.context().close();
  });
});
