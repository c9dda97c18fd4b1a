import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectCount, expectText, saveScreenshot, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { type Mailbox, startMailbox } from '../support/mailbox';
import { startTestNode, type TestNode } from '../support/test-node';

// The Staff screen's waiting invitations in Chromium, against a real node whose mail goes to a
// real SMTP server: an owner invites, the node's clock passes the link's 72 hours, the screen shows
// the invitation expired, the owner sends it again from its row, the new email arrives and its link
// lets the invited manager choose a password and sign in; the first link stays dead.
describe('back-office staff invitations in Chromium', () => {
  let mailbox: Mailbox;
  let node: TestNode;
  let browser: Browser;
  let owner: SignedInStaff;
  const HOUR = 3_600_000;
  const email = 'ines.vera@andino.test';

  beforeAll(async () => {
    mailbox = await startMailbox();
    node = await startTestNode({ rendererDir: builtRendererForTests(), messaging: { smtpUrl: mailbox.url } });
    const vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
    await mailbox?.close();
  });

  /** A fresh browser (UTC, so the expiry reads as the node wrote it) on /admin. */
  async function newPage(hash = ''): Promise<Page> {
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin${hash}`);
    return page;
  }

  async function signIn(page: Page): Promise<void> {
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** The accept link of the newest invitation mailed to `email` whose link is none of `seen`. */
  async function mailedLink(...seen: string[]): Promise<string> {
    await node.messaging.drain();
    const mail = await mailbox.waitFor((m) => m.to.includes(email) && !seen.some((link) => m.text.includes(link)));
    const link = /(http\S+#\/accept\?token=\S+)/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();
    return link!;
  }

  /** A day as the screen writes it in English (dateStyle medium, UTC). */
  const day = (ms: number) => new Date(ms).toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' });

  it('shows when a waiting invitation expires, that it has expired, and sends it again from its row', async () => {
    const page = await newPage('#/staff');
    await signIn(page);
    const table = page.getByRole('table', { name: 'Staff' });
    await table.waitFor();
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('textbox', { name: 'Name' }).fill('Inés');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expectText(page.getByRole('status'), 'Invitation sent.');
    const row = table.getByRole('row').filter({ hasText: email });
    const firstExpiry = node.clock.now() + 72 * HOUR;
    await expectText(row, new RegExp(`Inés.*Manager.*Invited.*Expires ${day(firstExpiry)}`, 's'));
    // The owner's own row (active) has no invitation to send again.
    await expectCount(table.getByRole('row').filter({ hasText: owner.email }).getByRole('button', { name: 'Resend invitation' }), 0);
    const firstLink = await mailedLink();

    // 72 hours and a minute later by the node's clock: the link is dead, the owner's session too.
    node.clock.advance(72 * HOUR + 60_000);
    await page.reload();
    await signIn(page);
    await expectText(row, /Invited.*Expired/s);
    expect(await row.textContent()).not.toContain('Expires');
    await saveScreenshot(page, 'backoffice-staff-invitation-expired');

    // In Spanish too, the statuses included.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    const personal = page.getByRole('table', { name: 'Personal' });
    await expectText(personal.getByRole('row').filter({ hasText: email }), /Gerente.*Invitado.*Caducada.*Reenviar invitación/s);
    await expectText(personal.getByRole('row').filter({ hasText: owner.email }), /Propietario.*Activo/s);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();

    await row.getByRole('button', { name: 'Resend invitation' }).click();
    const secondExpiry = node.clock.now() + 72 * HOUR;
    await expectText(page.getByRole('status'), new RegExp(`Invitation sent again to ${email.replace(/\./g, '\\.')}\\. The new link expires ${day(secondExpiry)}`));
    await expectText(row, new RegExp(`Invited.*Expires ${day(secondExpiry)}`, 's'));
    expect(await table.getByRole('row').filter({ hasText: email }).count()).toBe(1);

    // The new email's link: Inés chooses a password and is signed in as a manager.
    const secondLink = await mailedLink(firstLink);
    expect(secondLink).not.toBe(firstLink);
    expect(secondLink.startsWith(`${node.url}/admin#/accept?token=pcsi_`)).toBe(true);
    const invited = await newPage(secondLink.slice(secondLink.indexOf('#')));
    await invited.getByLabel('New password (8 characters or more)').fill('a long new password');
    await invited.getByRole('button', { name: 'Save and sign in' }).click();
    await invited.getByRole('table', { name: 'Figures' }).waitFor();
    await expectText(invited.getByRole('banner'), /Inés · Manager/);

    // The first link stays dead; the owner's screen shows Inés active, nothing to send again.
    const old = await staffCall(node, null, 'POST', '/backoffice/invitations/accept', { token: firstLink.split('token=')[1], password: 'another long password' });
    expect([old.status, old.body.code]).toEqual([400, 'invalid_code']);
    await page.getByRole('tab', { name: 'Audit log' }).click();
    await page.getByRole('tab', { name: 'Staff' }).click();
    await expectText(table.getByRole('row').filter({ hasText: email }), /Inés.*Manager.*Active/s);
    await expectCount(table.getByRole('row').filter({ hasText: email }).getByRole('button', { name: 'Resend invitation' }), 0);

    // Disabled (through the API: the Staff screen's button is tested in backoffice-staff-disable), in both languages.
    const session = await signInOverHttp(node, owner.email);
    const ines = (await staffCall(node, session, 'GET', '/backoffice/staff')).body.items.find((s: { email: string }) => s.email === email);
    expect((await staffCall(node, session, 'PUT', `/backoffice/staff/${ines.id}`, { status: 'disabled' })).body.status).toBe('disabled');
    await page.getByRole('tab', { name: 'Audit log' }).click();
    await page.getByRole('tab', { name: 'Staff' }).click();
    await expectText(table.getByRole('row').filter({ hasText: email }), /Inés.*Manager.*Disabled/s);
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(personal.getByRole('row').filter({ hasText: email }), /Inés.*Gerente.*Desactivado/s);
  });

  it('a staff member who forgot the password asks for a link on the sign-in screen, and the emailed link sets a new one', async () => {
    const page = await newPage();
    await page.getByRole('button', { name: 'Forgot your password? Email me a link' }).click();
    await expectText(page.getByRole('alert'), 'Type your email above first.');
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.getByRole('button', { name: 'Forgot your password? Email me a link' }).click();
    await expectText(page.getByRole('status'), `If ${owner.email} has a back-office account, a link to choose a new password is on its way.`);
    await node.messaging.drain();
    const mail = await mailbox.waitFor((m) => m.to.includes(owner.email) && m.text.includes('#/reset?token='));
    const link = /(http\S+#\/reset\?token=\S+)/.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();
    await page.goto(link!);
    await page.locator('input[type="password"]').fill('a brand new secret');
    await page.getByRole('button', { name: 'Save the new password' }).click();
    await expectText(page.getByRole('alert'), 'Your password is changed. Sign in with it.');
    expect(await signInOverHttp(node, owner.email, 'a brand new secret')).toEqual(expect.any(String));
  });
});
