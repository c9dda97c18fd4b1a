import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { phoneOnlyGuestAt, registerOkAt } from '../support/customers';
import { expectCount, expectText, saveScreenshot, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// Adding an email to a customer who has none, from the customer's profile in Chromium, against a real
// node: an owner gives a guest the counter registered by phone an email and the profile shows it (the
// control then goes away); an address another customer has is refused with the node's message and
// changes nothing; a store manager, who may not write customers, sees no such control. Beside it, the
// profile's birthday, contact consent, language and member since, in English and Spanish.
describe('back-office add email to a phone-only guest in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let storeManager: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    // A named owner with a fixed email, so the screenshot reads the same on every run.
    const { staff } = await addOwner(node.engine, { vendorId: vendor.vendorId, email: 'ana.torres@andino.test', name: 'Ana Torres', password: STAFF_PASSWORD });
    owner = { id: staff.id, email: staff.email, token: await signInOverHttp(node, staff.email) };
    storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  /** A guest the counter registered by phone alone (the counter's in-store register): no email. */
  const phoneGuest = (number: string, firstName: string, lastName: string) => phoneOnlyGuestAt(node, vendor.apiKey, { number, code: '1', e164: `+1${number}` }, { first_name: firstName, last_name: lastName });

  const emailOf = async (id: number) => (await staffCall(node, owner.token, 'GET', `/backoffice/customers/${id}`)).body.email as string | null;

  /** A fresh browser signed in as `email`, on the profile of customer `id`. */
  async function profileOf(email: string, id: number, timezoneId = 'UTC'): Promise<Page> {
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId, locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/customers/${id}`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Balances' }).waitFor();
    return page;
  }

  it('an owner adds an email to a phone-only guest and the profile shows it; the control is then gone', async () => {
    const id = await phoneGuest('2025550199', 'Pía', 'Ortega');
    const page = await profileOf(owner.email, id);
    await expectText(page.getByRole('heading', { name: 'Pía Ortega' }), 'Pía Ortega');
    await expectText(page.getByText('(202) 555-0199'), '(202) 555-0199');

    // In Spanish, like the rest of the screen.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await page.getByRole('textbox', { name: 'Correo electrónico del cliente' }).waitFor();
    await expectCount(page.getByRole('button', { name: 'Agregar correo' }), 1);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();

    await page.getByRole('textbox', { name: 'Email for this customer' }).fill('pia.ortega@example.com');
    await saveScreenshot(page, 'backoffice-customer-add-email');
    await page.getByRole('button', { name: 'Add email' }).click();
    await expectText(page.getByRole('status'), 'Email added: the customer can claim their app account with a password reset.');
    await expectText(page.getByText(/pia\.ortega@example\.com/), 'pia.ortega@example.com · (202) 555-0199');
    await expectCount(page.getByRole('button', { name: 'Add email' }), 0);
    await expectCount(page.getByRole('textbox', { name: 'Email for this customer' }), 0);
    expect(await emailOf(id)).toBe('pia.ortega@example.com');
    await page.context().close();
  });

  it('an address another customer has is refused with the node’s message and changes nothing', async () => {
    const { email: taken } = await registerOkAt(node, vendor.vendorId, { first_name: 'Rita', last_name: 'Vega' });
    const id = await phoneGuest('2025550198', 'Tomás', 'Vera');
    const page = await profileOf(owner.email, id);
    await page.getByRole('textbox', { name: 'Email for this customer' }).fill(taken);
    await page.getByRole('button', { name: 'Add email' }).click();
    await expectText(page.getByRole('alert'), 'Another customer already has that email address.');
    // The node's own answer, word for word.
    const refused = await staffCall(node, owner.token, 'PUT', `/backoffice/customers/${id}/email`, { email: taken });
    expect([refused.status, refused.body.code]).toEqual([409, 'email_taken']);
    await expectText(page.getByRole('alert'), refused.body.message);
    // Nothing changed: the control is still offered, with the address kept to correct it.
    await expectCount(page.getByRole('button', { name: 'Add email' }), 1);
    expect(await page.getByRole('textbox', { name: 'Email for this customer' }).inputValue()).toBe(taken);
    expect(await emailOf(id)).toBeNull();
    await page.context().close();
  });

  it('a store manager sees the guest’s profile but no Add email control', async () => {
    const id = await phoneGuest('2025550197', 'Elena', 'Ruiz');
    const page = await profileOf(storeManager.email, id);
    await expectText(page.getByRole('heading', { name: 'Elena Ruiz' }), 'Elena Ruiz');
    await expectCount(page.getByRole('button', { name: 'Add email' }), 0);
    await expectCount(page.getByRole('textbox', { name: 'Email for this customer' }), 0);
    // The node agrees: store managers may not write customers.
    expect((await staffCall(node, storeManager.token, 'PUT', `/backoffice/customers/${id}/email`, { email: 'elena@example.com' })).status).toBe(403);
    await page.context().close();
  });

  it('shows the birthday (the same day west of UTC), the contact consent in words, the language by name and since when, in English and Spanish', async () => {
    // Sign-up sends the day as Unix seconds of its UTC midnight: 15 March 1990, which in Guayaquil
    // (UTC−5) is still 14 March at that moment.
    const zone = 'America/Guayaquil';
    const { user } = await registerOkAt(node, vendor.vendorId, { first_name: 'Lucía', last_name: 'Cedeño', birthdate: Date.UTC(1990, 2, 15) / 1000, contact_consent: 1, language: 2 });
    const given = Number(user.id);
    const { user: quiet } = await registerOkAt(node, vendor.vendorId, { first_name: 'Raúl', last_name: 'Paz', contact_consent: 3 });
    const since = (await staffCall(node, owner.token, 'GET', `/backoffice/customers/${given}`)).body.member_since as string;
    const day = (language: string) => new Date(since).toLocaleDateString(language, { dateStyle: 'medium', timeZone: zone });

    const page = await profileOf(owner.email, given, zone);
    const about = page.getByTestId('customer-membership');
    await expectText(about, `Birthday 15 March 1990 · Contact consent: Email only · Language: Spanish · Member since ${day('en')}`);
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(about, `Cumpleaños 15 de marzo de 1990 · Consentimiento de contacto: Solo correo · Idioma: español · Cliente desde el ${day('es')}`);
    await page.goto(`${node.url}/admin#/customers/${quiet.id}`);
    await expectText(page.getByRole('heading', { name: 'Raúl Paz' }), 'Raúl Paz');
    await expectText(about, /^Cumpleaños no indicado · Consentimiento de contacto: Correo y SMS · Idioma: el del programa · /);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
    await expectText(about, /^Birthday not given · Contact consent: Email and SMS · Language: the program’s · Member since /);
    await page.context().close();
  });
});
