import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeMemberOnRequest } from '../../src/core/customer-care/remove-member';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { importJobSettings } from '../../src/core/import/import-jobs';
import { IMPORT_BATCH_ROWS } from '../../src/core/import/import-members';
import { addOwner } from '../../src/core/staff/add-owner';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectCount, expectText, saveScreenshot } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A café owner with no terminal imports the members of their old loyalty system in the back office,
// in Chromium against a real node: chooses the CSV, reads the preview (counts, the refused row by
// line and why, the column not read), imports it, reads the result and downloads the refused row
// to fix; in Spanish the reasons are Spanish; a manager is told the section is the owners'.
describe('back-office import of members in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let manager: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Lupe');
    const { staff } = await addOwner(node.engine, { vendorId: vendor.vendorId, email: 'lupe@cafe.test', name: 'Lupe Ortiz', password: STAFF_PASSWORD });
    owner = { id: staff.id, email: staff.email, token: await signInOverHttp(node, staff.email) };
    manager = await invitedStaff(node, owner, 'manager');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const members = async () =>
    (await node.engine.db.selectFrom('user_vendors').select((eb) => eb.fn.countAll<number>().as('n')).where('vendor_id', '=', vendor.vendorId).executeTakeFirstOrThrow()).n;

  async function chooseAndCheck(page: Page, name: string, text: string, labels: { file: string; check: string }) {
    await page.getByLabel(labels.file).setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
    await page.getByRole('button', { name: labels.check }).click();
  }

  it('an owner previews a file with one refused row, imports it and downloads the refused row', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, 'import', null);
    await expectText(page.getByRole('tab', { selected: true }), 'Import members');
    const file = [
      'first_name,last_name,email,phone,card,points,quick_pay,notes',
      'Ana,López,ana@example.com,(415) 555-0101,OLD0001,120,12.50,regular',
      'Ben,Okafor,ben@example,,,40,,',
      'Carla,Núñez,carla@example.com,,,5,,',
    ].join('\n');
    await chooseAndCheck(page, 'members.csv', file, { file: 'Members file (CSV)', check: 'Check the file' });

    await expectText(page.getByRole('heading', { level: 3 }), 'Preview of members.csv: nothing has been imported yet');
    const summary = page.getByRole('table', { name: 'Summary' });
    await expectText(summary.getByRole('row', { name: 'New members to import' }), '2');
    await expectText(summary.getByRole('row', { name: 'Refused' }), '1');
    await expectText(summary.getByRole('row', { name: 'Opening balances' }), /125 points, \$12\.50 quick pay/);
    await expectText(page.getByRole('table', { name: 'Refused rows' }).getByRole('row', { name: 'Line 3' }), /email.*The email is not an email address\./);
    await expectText(page.getByText('Columns not read:'), 'Columns not read: notes.');
    expect(await members()).toBe(0);
    await saveScreenshot(page, 'backoffice-import-preview');

    await page.getByRole('button', { name: 'Import 2 members' }).click();
    await expectText(page.getByRole('heading', { level: 3 }), 'Imported from members.csv');
    await expectText(summary.getByRole('row', { name: 'Imported' }), '2');
    await expectText(page.getByText(/Fix the refused rows/), 'upload it here again');
    expect(await members()).toBe(2);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the problem rows (CSV)' }).click()]);
    expect(download.suggestedFilename()).toBe('members-problems.csv');
    const text = readFileSync(await download.path(), 'utf8');
    expect(text).toContain('Ben,Okafor,ben@example,,,40,,3,invalid_email,The email is not an email address.');
    await expectText(page.getByRole('status'), 'Downloaded members-problems.csv.');
    await saveScreenshot(page, 'backoffice-import-result');

    // The next file: the same members again are skipped, nothing to import.
    await page.getByRole('button', { name: 'Choose another file' }).click();
    await chooseAndCheck(page, 'members.csv', file, { file: 'Members file (CSV)', check: 'Check the file' });
    await expectText(summary.getByRole('row', { name: 'Already members (skipped, left as they are)' }), '2');
    await expectText(page.getByRole('button', { name: 'Nothing to import' }), 'Nothing to import');
    await page.context().close();
  });

  it('in Spanish: the refused rows’ reasons and an unreadable file in Spanish', async () => {
    const page = await backOfficePage(browser, node.url, owner.email, 'import', null);
    await page.evaluate(() => localStorage.setItem('punchcard.language', 'es'));
    await page.reload();
    await expectText(page.getByRole('tab', { selected: true }), 'Importar socios');
    const labels = { file: 'Archivo de socios (CSV)', check: 'Revisar el archivo' };
    await chooseAndCheck(page, 'socios.csv', 'nombre;apellido\nDora;Paz\n', labels);
    await expectText(page.getByRole('alert'), 'La primera línea no nombra una columna email ni phone');
    await chooseAndCheck(page, 'socios.csv', 'first_name;email;phone;quick_pay\nDora;dora@example.com;;12,50\nEli;;;\n', labels);
    await expectText(page.getByRole('heading', { level: 3 }), 'Vista previa de socios.csv: aún no se importó nada');
    await expectText(page.getByRole('table', { name: 'Filas rechazadas' }).getByRole('row', { name: 'Línea 3' }), 'No tiene correo, teléfono ni tarjeta');
    await page.context().close();
  });

  it('where the program has several loyalty currencies, the owner chooses the points column’s; the preview counts each currency’s points', async () => {
    const stars = await node.addVendor('Café Estrella');
    const { staff } = await addOwner(node.engine, { vendorId: stars.vendorId, email: 'sol@estrella.test', name: 'Sol Vega', password: STAFF_PASSWORD });
    expect((await http(`${node.url}/currencies`, { method: 'POST', token: stars.accessToken, body: { name: 'Stars' } })).status).toBeLessThan(300);
    const page = await backOfficePage(browser, node.url, staff.email, 'import', null);
    const labels = { file: 'Members file (CSV)', check: 'Check the file' };
    // Twentieth round: Points read from the export's own column for it, beside the points column's Stars.
    await chooseAndCheck(page, 'members.csv', 'email,points,points:Points\nluz@estrella.test,10,3\n', labels);
    await expectText(page.getByRole('alert'), 'The program has several loyalty currencies: choose the one the points column holds');
    await page.getByRole('combobox', { name: 'Loyalty currency of the points column' }).click();
    await page.getByRole('option', { name: 'Stars' }).click();
    await page.getByRole('button', { name: 'Check the file' }).click();
    await expectText(page.getByRole('table', { name: 'Summary' }).getByRole('row', { name: 'Opening balances' }), /3 Points, 10 Stars, \$0\.00 quick pay/);
    await page.getByRole('button', { name: 'Import 1 member' }).click();
    await expectText(page.getByRole('heading', { level: 3 }), 'Imported from members.csv');
    await page.context().close();
  });

  // A job keeps its file a day (import-jobs.ts, FILE_KEPT_MS): the file emptied as the hourly drop
  // (or an erasure) empties it, the screen says what to do, in each language.
  it('a preview whose file was dropped: confirming and the problem rows say to upload the file again, in English and Spanish', async () => {
    const dropFiles = () => node.engine.db.updateTable('import_jobs').set({ file: '' }).where('vendor_id', '=', vendor.vendorId).execute();
    const page = await backOfficePage(browser, node.url, owner.email, 'import', null);
    await chooseAndCheck(page, 'late.csv', 'first_name,email\nNora,nora@late.test\nOlga,olga@late\n', { file: 'Members file (CSV)', check: 'Check the file' });
    await expectText(page.getByRole('heading', { level: 3 }), 'Preview of late.csv: nothing has been imported yet');
    await dropFiles();
    await page.getByRole('button', { name: 'Download the problem rows (CSV)' }).click();
    await expectText(page.getByRole('alert'), 'This import no longer keeps its file (a file is kept one day after its import ends');
    await page.getByRole('button', { name: 'Import 1 member' }).click();
    await expectText(page.getByRole('alert').first(), 'upload the file again to see a new preview or its problem rows.');

    await page.evaluate(() => localStorage.setItem('punchcard.language', 'es'));
    await page.reload();
    await chooseAndCheck(page, 'tarde.csv', 'first_name,email\nPia,pia@tarde.test\n', { file: 'Archivo de socios (CSV)', check: 'Revisar el archivo' });
    await expectText(page.getByRole('heading', { level: 3 }), 'Vista previa de tarde.csv: aún no se importó nada');
    await dropFiles();
    await page.getByRole('button', { name: 'Importar 1 socio' }).click();
    await expectText(page.getByRole('alert'), 'Esta importación ya no guarda su archivo');
    expect(await members()).toBe(2);
    await page.context().close();
  });

  // Nineteenth round: a member erased while the import runs stops it (import-jobs.ts, MEMBER_LEFT);
  // the same file again would bring them back, so the screen says to take them out first.
  it('an import stopped because a member in the file was erased meanwhile says to take them out of the file', async () => {
    const email = 'rita@erased.test';
    const { user: rita } = await registerCustomer(node.engine, { vendorId: vendor.vendorId, firstName: 'Rita', lastName: 'Borrada', email, password: 'correct horse 1', terms: true });
    const byOwner: StaffPrincipal = { sessionId: 0, staffId: owner.id, vendorId: vendor.vendorId, email: owner.email, name: 'Lupe Ortiz', role: 'owner', storeId: null };
    const newcomers = Array.from({ length: IMPORT_BATCH_ROWS + 5 }, (_, i) => `Nuevo${i},nuevo${i}@erased.test`);
    const file = ['first_name,email', ...newcomers, `Rita,${email}`].join('\n');
    let removed = false;
    importJobSettings.betweenBatches = async (job) => {
      if (job.dryRun || removed) return;
      removed = true;
      await removeMemberOnRequest(node.engine, byOwner, rita.id, { reason: 'asked at the counter', forfeitBalances: true });
    };
    try {
      const page = await backOfficePage(browser, node.url, owner.email, 'import', null);
      await chooseAndCheck(page, 'erased.csv', file, { file: 'Members file (CSV)', check: 'Check the file' });
      await expectText(page.getByRole('heading', { level: 3 }), 'Preview of erased.csv: nothing has been imported yet');
      await page.getByRole('button', { name: `Import ${(IMPORT_BATCH_ROWS + 5).toLocaleString('en')} members` }).click();
      const alert = page.getByRole('alert');
      await expectText(alert, 'A member in this file left the program or asked to be erased while the file was being checked or imported, so it stopped rather than bring them back');
      await expectText(alert, 'take that person out of the file before you upload it again.');
      await expectText(alert, 'The batches finished before it stopped are kept.');
      expect(await alert.textContent()).not.toContain('upload the same file again');
      expect(removed).toBe(true);
      await page.context().close();
    } finally {
      importJobSettings.betweenBatches = null;
    }
  }, 60_000);

  it('a manager at #/import is told it is the owners’', async () => {
    const page = await backOfficePage(browser, node.url, manager.email, 'import', null);
    await expectText(page.getByTestId('section-not-allowed'), 'Importing members from another system is for the program’s owners');
    await expectCount(page.getByRole('tab', { name: 'Import members' }), 0);
    await page.context().close();
  });
});
