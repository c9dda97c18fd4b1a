import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectCount, expectFocusInDialog, expectText, saveScreenshot, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// Adding a store and editing its details from the Stores screen in Chromium, against a real node:
// the required fields are marked before sending, the node's other checks show in the dialog (which keeps what was typed),
// the phone is stored as the node reads it in the store's country, hours are per day; a store
// manager gets no such buttons; a paired store's refusal is the node's message.
describe('back-office stores in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let storeManager: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const storesPage = (email: string) => backOfficePage(browser, node.url, email, 'stores', 'Stores');

  const storeNamed = async (name: string) => (await staffCall(node, owner.token, 'GET', '/backoffice/stores')).body.items.find((s: { name: string }) => s.name === name);
  const field = (page: Page, label: string) => page.getByRole('dialog').getByRole('textbox', { name: label, exact: true });

  it('an owner adds a store: every empty required field is marked before sending, then the store is listed as the node holds it', async () => {
    const page = await storesPage(owner.email);
    await page.getByRole('button', { name: 'Add a store' }).click();
    const dialog = page.getByRole('dialog');
    // The country starts as the program's; sent otherwise empty, every required field is marked at once, before the node is asked.
    await expect.poll(() => field(page, 'Country').inputValue()).toBe('US');
    await dialog.getByRole('button', { name: 'Add a store' }).click();
    for (const label of ['Name', 'Address', 'City']) {
      await expectText(dialog, new RegExp(`${label} is required\\.`));
      expect(await field(page, label).getAttribute('aria-invalid')).toBe('true');
    }
    await expectCount(dialog.getByRole('alert'), 0);
    await field(page, 'Name').fill('Guayaquil Centro');
    await field(page, 'Address').fill('Av. 9 de Octubre 100');
    await field(page, 'Country').fill('ec');
    expect(await field(page, 'Country').inputValue()).toBe('EC');
    await field(page, 'Phone').fill('099 123 4567');
    await dialog.getByRole('combobox', { name: 'Time zone' }).fill('Guayaquil');
    await page.getByRole('option', { name: 'America/Guayaquil' }).click();
    await field(page, 'Monday').fill('08:00-18:00');
    await field(page, 'Saturday').fill('09:00-13:00');
    // Still no city: only it stays marked, and the dialog keeps the rest.
    await dialog.getByRole('button', { name: 'Add a store' }).click();
    expect(await field(page, 'City').getAttribute('aria-invalid')).toBe('true');
    expect(await field(page, 'Name').getAttribute('aria-invalid')).not.toBe('true');
    await expectText(dialog, /City is required\./);
    expect(await dialog.textContent()).not.toMatch(/Name is required/);
    expect(await field(page, 'Name').inputValue()).toBe('Guayaquil Centro');
    expect(await storeNamed('Guayaquil Centro')).toBeUndefined();

    await field(page, 'City').fill('Guayaquil');
    await saveScreenshot(page, 'backoffice-store-add');
    await dialog.getByRole('button', { name: 'Add a store' }).click();
    await expectText(page.getByRole('status'), 'Guayaquil Centro added, with its first point of sale: issue its keys from Keys.');
    await expectCount(page.getByRole('dialog'), 0);
    await expectText(page.getByRole('table', { name: 'Stores' }).getByRole('row').filter({ hasText: 'Guayaquil Centro' }), /Guayaquil, EC.*America\/Guayaquil.*Active/s);
    expect(await storeNamed('Guayaquil Centro')).toMatchObject({
      address: 'Av. 9 de Octubre 100',
      city: 'Guayaquil',
      country: 'EC',
      phone: '+593991234567',
      time_zone: 'America/Guayaquil',
      status: 'active',
      hours: { mon: '08:00-18:00', sat: '09:00-13:00' },
    });
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'store.create', actor: owner.email });
    await page.context().close();
  });

  it('a new store starts in the program’s country and the time zone of the browser it is added from', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: 'America/Los_Angeles', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/stores`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Stores' }).waitFor();
    await page.getByRole('button', { name: 'Add a store' }).click();
    const dialog = page.getByRole('dialog');
    // They were empty and UTC: a merchant in San Francisco got a store whose hours read in London's winter time.
    await expect.poll(() => field(page, 'Country').inputValue()).toBe('US');
    expect(await dialog.getByRole('combobox', { name: 'Time zone' }).inputValue()).toBe('America/Los_Angeles');
    // The focus trap's late focus (on the dialog's Close) would take the name as it is filled.
    await expectFocusInDialog(page);
    await field(page, 'Name').fill('Castro');
    await field(page, 'Address').fill('400 Castro St');
    await field(page, 'City').fill('San Francisco');
    await dialog.getByRole('button', { name: 'Add a store' }).click();
    await expectText(page.getByRole('table', { name: 'Stores' }).getByRole('row').filter({ hasText: 'Castro' }), /San Francisco, US.*America\/Los_Angeles/s);
    expect(await storeNamed('Castro')).toMatchObject({ country: 'US', time_zone: 'America/Los_Angeles' });
    await context.close();
  });

  it('an owner edits a store’s details: a bad day’s hours are the node’s refusal; saved, the page shows them', async () => {
    const store = await storeNamed('Guayaquil Centro');
    const page = await storesPage(owner.email);
    await page.getByRole('table', { name: 'Stores' }).getByRole('row').filter({ hasText: 'Guayaquil Centro' }).getByRole('link', { name: 'Keys' }).click();
    const details = page.getByRole('table', { name: 'Store details' });
    // The phone as the store's country writes it (stored in E.164, as the API check above says).
    await expectText(details, /Av\. 9 de Octubre 100, Guayaquil, EC.*099 123 4567.*America\/Guayaquil.*Monday08:00-18:00.*TuesdayClosed.*Saturday09:00-13:00/s);

    await page.getByRole('button', { name: 'Edit details' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, /Details of Guayaquil Centro/);
    expect(await field(page, 'Monday').inputValue()).toBe('08:00-18:00');
    // The focus trap's late focus (on the dialog's Close) would take the name as it is filled.
    await expectFocusInDialog(page);
    await field(page, 'Name').fill('Guayaquil Malecón');
    await field(page, 'Tuesday').fill('25:00-26:00');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expectText(dialog.getByRole('alert'), 'Opening hours: Tuesday must be “closed” or ranges like 08:00-12:00,14:00-18:00.');
    expect((await storeNamed('Guayaquil Centro')).hours).toEqual({ mon: '08:00-18:00', sat: '09:00-13:00' });

    await field(page, 'Tuesday').fill('22:00-02:00');
    await field(page, 'Saturday').fill('');
    // What inactive means is said where it is chosen.
    await expectText(dialog, /Inactive: left out of the app’s list of stores; its screens and keys keep working\./);
    await dialog.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Inactive' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Store details saved.');
    await expectCount(page.getByRole('dialog'), 0);
    await expectText(page.getByRole('heading', { name: 'Guayaquil Malecón', exact: true }), 'Guayaquil Malecón');
    await expectText(details, /Inactive.*Monday08:00-18:00.*Tuesday22:00-02:00.*SaturdayClosed/s);
    await saveScreenshot(page, 'backoffice-store-details');
    expect(await staffCall(node, owner.token, 'GET', `/backoffice/stores/${store.id}`)).toMatchObject({
      status: 200,
      body: { name: 'Guayaquil Malecón', status: 'inactive', hours: { mon: '08:00-18:00', tue: '22:00-02:00' }, phone: '+593991234567' },
    });
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'store.update', before: { name: 'Guayaquil Centro' }, after: { name: 'Guayaquil Malecón', status: 'inactive' } });

    // In Spanish, the page and the dialog say the same.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(page.getByRole('table', { name: 'Datos de la tienda' }), /Inactiva.*Lunes08:00-18:00.*Martes22:00-02:00.*SábadoCerrada/s);
    await page.getByRole('button', { name: 'Editar datos' }).click();
    await expectText(page.getByRole('dialog'), /Datos de Guayaquil Malecón.*Horario/s);
    // A required field left empty is marked in Spanish too.
    await field(page, 'Nombre').fill('');
    await page.getByRole('dialog').getByRole('button', { name: 'Guardar' }).click();
    await expectText(page.getByRole('dialog'), /«Nombre» es obligatorio\./);
    await field(page, 'Nombre').fill('Guayaquil Malecón');
    // The node's refusal in the form's words and in Spanish.
    await field(page, 'Martes').fill('25:00-26:00');
    await page.getByRole('dialog').getByRole('button', { name: 'Guardar' }).click();
    await expectText(page.getByRole('dialog').getByRole('alert'), '«Horario: Martes» debe ser «closed» o franjas como 08:00-12:00,14:00-18:00.');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();
    await page.context().close();
  });

  it('a paired store shows the node’s refusal: stores are central’s', async () => {
    const page = await storesPage(owner.email);
    await page.goto(`${node.url}/admin#/stores/${vendor.storeId}`);
    await page.getByRole('button', { name: 'Edit details' }).click();
    await field(page, 'City').fill('Quito');
    node.engine.programRole = 'replica';
    try {
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await expectText(page.getByRole('dialog').getByRole('alert'), 'This store is paired with a central node: stores and their API keys are central’s, so change them in the back office of central.');
    } finally {
      node.engine.programRole = 'owner';
    }
    expect((await staffCall(node, owner.token, 'GET', `/backoffice/stores/${vendor.storeId}`)).body.city).toBe('Springfield');
    await page.context().close();
  });

  it('a store manager reads their store’s details but gets no button to add or edit stores', async () => {
    const page = await storesPage(storeManager.email);
    await expectText(page.getByRole('table', { name: 'Stores' }), /Main Store/);
    await expectCount(page.getByRole('button', { name: 'Add a store' }), 0);
    await page.goto(`${node.url}/admin#/stores/${vendor.storeId}`);
    await expectText(page.getByRole('table', { name: 'Store details' }), /1 Main Street, Springfield/);
    await expectCount(page.getByRole('button', { name: 'Edit details' }), 0);
    await page.context().close();
  });
});
