import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitedStaff, ownerOf, type SignedInStaff, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { signUpAt } from '../support/customers';
import { paymentsApi } from '../support/payments';
import { expectCount, expectText, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { type Mailbox, startMailbox } from '../support/mailbox';
import { startTestNode, type TestNode } from '../support/test-node';

// What a merchant's week in the back office showed in Chromium, against a real node whose mail goes
// to a real SMTP server: a customer's ledger in Spanish says each entry's kind in words and a too
// short reason in Spanish with the form's label (the amount typed is kept); one store's dashboard
// leaves out the figures the node counts only for the whole program instead of showing them as
// $0.00; an invitation link opened a second time says it was used and offers the sign-in form.
describe('a merchant’s week in the back office, in Chromium', () => {
  let mailbox: Mailbox;
  let node: TestNode;
  let browser: Browser;
  let vendorId: number;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  let storeManager: SignedInStaff;
  let customerId: number;
  const payments = paymentsApi(() => node);

  beforeAll(async () => {
    mailbox = await startMailbox();
    node = await startTestNode({ rendererDir: builtRendererForTests(), messaging: { smtpUrl: mailbox.url } });
    const vendor = await node.addVendor('Café Andino');
    vendorId = vendor.vendorId;
    owner = await ownerOf(node, vendorId);
    manager = await invitedStaff(node, owner, 'manager');
    storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    // A customer who loaded $20.00 of stored value with a card.
    const customer = await signUpAt(node, vendorId, { first_name: 'Rosa', last_name: 'Mena' });
    const card = await payments.addProfileOk(customer.key);
    await payments.reloadOk(customer.key, { user_billingprofile: card.id, amount: 20 });
    customerId = customer.userId;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
    await mailbox?.close();
  });

  async function newPage(hash: string, language: 'en' | 'es' = 'en'): Promise<Page> {
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: 'UTC', locale: language === 'es' ? 'es-ES' : 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    if (language === 'es') await page.addInitScript(() => localStorage.setItem('punchcard.language', 'es'));
    await page.goto(`${node.url}/admin${hash}`);
    return page;
  }

  async function signedIn(email: string, hash: string, language: 'en' | 'es' = 'en'): Promise<Page> {
    const page = await newPage(hash, language);
    await page.getByRole('textbox', { name: language === 'es' ? 'Correo electrónico' : 'Email' }).fill(email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: language === 'es' ? 'Iniciar sesión' : 'Sign in', exact: true }).click();
    return page;
  }

  it('a customer’s ledger says its kinds in Spanish, and a short reason is refused in Spanish keeping what was typed', async () => {
    const page = await signedIn(manager.email, `#/customers/${customerId}`, 'es');
    const ledger = page.getByRole('table', { name: 'Movimientos' });
    await expectText(ledger, /Quick Pay USD\s*Recarga\s*\+\$20\.00/);

    await page.getByRole('combobox', { name: 'Moneda' }).click();
    await page.getByRole('option', { name: 'Points' }).click();
    await page.getByRole('textbox', { name: /^Importe \(negativo/ }).fill('5');
    await page.getByRole('textbox', { name: /^Motivo del ajuste/ }).fill('no');
    await page.getByRole('button', { name: 'Ajustar saldo', exact: true }).click();
    await expectText(page.getByRole('alert'), '«Motivo del ajuste» debe tener de 3 a 500 caracteres.');
    expect(await page.getByRole('textbox', { name: /^Importe \(negativo/ }).inputValue()).toBe('5');
    expect(await page.getByRole('textbox', { name: /^Motivo del ajuste/ }).inputValue()).toBe('no');

    await page.getByRole('textbox', { name: /^Motivo del ajuste/ }).fill('Compensación por demora');
    await page.getByRole('button', { name: 'Ajustar saldo', exact: true }).click();
    await expectText(page.getByRole('status'), 'Ajustado: el saldo ahora es 5.');
    await expectText(ledger, /Points\s*Ajustado por el personal\s*\+5/);
    expect(await ledger.textContent()).not.toMatch(/adjustment|reload/);
  });

  it('one store’s dashboard leaves out what the node counts only for the whole program', async () => {
    // The owner's dashboard of all stores: the $20.00 reload is there.
    const page = await signedIn(owner.email, '#/dashboard');
    const figures = page.getByRole('table', { name: 'Figures' });
    await expectText(figures.getByRole('row', { name: 'Stored value loaded' }), /\$20\.00.*\$20\.00/s);
    await expectText(figures.getByRole('row', { name: 'Reloads' }), /1 · \$20\.00/);
    // Main Store alone: no loads, reloads or adjustments read $0.00 there; the page says where they are.
    await page.getByRole('combobox', { name: 'Store' }).click();
    await page.getByRole('option', { name: 'Main Store' }).click();
    await expectCount(figures.getByRole('row', { name: 'Stored value loaded' }), 0);
    await expectCount(figures.getByRole('row', { name: 'Reloads' }), 0);
    await expectText(figures.getByRole('row', { name: 'Stored value spent' }), /\$0\.00/);
    await expectText(page.getByRole('main'), 'are counted for the whole program, not per store');

    // A store manager sees only their store: the same, in Spanish too.
    const store = await signedIn(storeManager.email, '#/dashboard', 'es');
    const cifras = store.getByRole('table', { name: 'Cifras' });
    await expectText(cifras.getByRole('row', { name: 'Saldo gastado' }), /\$0\.00/);
    await expectCount(cifras.getByRole('row', { name: 'Saldo cargado' }), 0);
    await expectCount(cifras.getByRole('row', { name: 'Recargas' }), 0);
    await expectText(store.getByRole('main'), 'se cuentan para todo el programa, no por tienda');
  });

  it('an invitation link opened again after it was used says so and offers the sign-in form', async () => {
    const page = await signedIn(owner.email, '#/staff');
    await page.getByRole('table', { name: 'Staff' }).waitFor();
    await page.getByRole('textbox', { name: 'Email' }).fill('luz.paredes@andino.test');
    await page.getByRole('textbox', { name: 'Name' }).fill('Luz');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expectText(page.getByRole('status'), 'Invitation sent.');
    await node.messaging.drain();
    const mail = await mailbox.waitFor((m) => m.to.includes('luz.paredes@andino.test'));
    const link = /(http\S+#\/accept\?token=\S+)/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();
    const hash = link!.slice(link!.indexOf('#'));

    const first = await newPage(hash);
    await first.getByLabel('New password (8 characters or more)').fill('a long new password');
    await first.getByRole('button', { name: 'Save and sign in' }).click();
    await first.getByRole('table', { name: 'Figures' }).waitFor();

    // The same link again (a second click in the mail): it was used, so the form to sign in is shown.
    const again = await newPage(hash);
    await again.getByLabel('New password (8 characters or more)').fill('another long password');
    await again.getByRole('button', { name: 'Save and sign in' }).click();
    await expectText(again.getByRole('alert'), 'This invitation link has already been used or is no longer valid. If you chose your password with it, sign in here');
    await expectCount(again.getByRole('alert'), 1);
    expect(await again.getByRole('alert').textContent()).not.toContain('Check it');
    await again.getByRole('textbox', { name: 'Email' }).fill('luz.paredes@andino.test');
    await again.locator('input[type="password"]').fill('a long new password');
    await again.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectText(again.getByRole('banner'), /Luz · Manager/);
  });
});
