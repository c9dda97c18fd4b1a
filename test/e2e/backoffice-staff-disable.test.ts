import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvitation } from '../../src/core/staff/accept-invitation';
import { addOwner } from '../../src/core/staff/add-owner';
import { issueStaffToken } from '../../src/core/staff/staff-tokens';
import { type SignedInStaff, signIn as signInOverHttp, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { backOfficePage, expectCount, expectText, saveScreenshot } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// Disabling and enabling staff from the Staff screen in Chromium, against a real node: an owner
// disables a manager after confirming (the manager's live session is refused from then on, even once
// enabled again), enables them again; an invitation disabled then enabled is `invited` again with
// its old link dead; the node's refusal to disable the only owner is shown, translated, and changes
// nothing; an owner who disables themselves (another owner remaining) is signed out.
describe('back-office staff disable and enable in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendorId: number;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  const invitee = 'pablo.rios@andino.test';

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendorId = (await node.addVendor('Café Andino')).vendorId;
    // Named people with fixed emails, so the screenshot reads the same on every run.
    const { staff } = await addOwner(node.engine, { vendorId, email: 'ana.torres@andino.test', name: 'Ana Torres', password: STAFF_PASSWORD });
    owner = { id: staff.id, email: staff.email, token: await signInOverHttp(node, staff.email) };
    manager = await acceptedInvitation('luis.mena@andino.test', 'Luis Mena');
    await invite(invitee, 'Pablo Ríos');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function invite(email: string, name: string): Promise<number> {
    const invited = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email, name, role: 'manager', store_id: null });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    return invited.body.id as number;
  }

  /** A manager invited by the owner who chose a password (the link taken from the node, not the mail), signed in. */
  async function acceptedInvitation(email: string, name: string): Promise<SignedInStaff> {
    const id = await invite(email, name);
    const { token } = await issueStaffToken(node.engine.db, node.engine, { id, vendor_id: vendorId }, 'invitation');
    return { id, email, token: (await acceptInvitation(node.engine, { token, password: STAFF_PASSWORD })).token };
  }

  /** A fresh browser signed in as `email`, on the Staff screen. */
  const staffScreen = (email: string) => backOfficePage(browser, node.url, email, 'staff', 'Staff');

  const rowOf = (page: Page, email: string, table = 'Staff'): Locator => page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: email });
  const statusOf = async (email: string) => (await staffCall(node, owner.token, 'GET', '/backoffice/staff')).body.items.find((s: { email: string }) => s.email === email).status as string;

  it('disables an active manager after confirming, which ends their session, and enables them again', async () => {
    const page = await staffScreen(owner.email);
    const row = rowOf(page, manager.email);
    await expectText(row, /Manager.*Active/s);
    // The status reads as a word, as the program's statuses do (not ACTIVE).
    expect(await row.getByText('Active', { exact: true }).innerText()).toBe('Active');
    expect((await staffCall(node, manager.token, 'GET', '/backoffice/me')).status).toBe(200);

    // Cancelling the confirmation changes nothing.
    await row.getByRole('button', { name: 'Disable' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, /Disable Luis Mena\?.*signed out at once/s);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expectCount(page.getByRole('dialog'), 0);
    await expectText(row, /Manager.*Active/s);
    expect(await statusOf(manager.email)).toBe('active');
    expect((await staffCall(node, manager.token, 'GET', '/backoffice/me')).status).toBe(200);

    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, disable' }).click();
    await expectText(page.getByRole('status'), 'Luis Mena is disabled: their sessions have ended.');
    await expectText(row, /Manager.*Disabled/s);
    await expectCount(row.getByRole('button', { name: 'Disable' }), 0);
    expect(await statusOf(manager.email)).toBe('disabled');
    const refused = await staffCall(node, manager.token, 'GET', '/backoffice/me');
    expect([refused.status, refused.body.code]).toEqual([401, 'session_ended']);
    const signInRefused = await staffCall(node, null, 'POST', '/backoffice/sign-in', { email: manager.email, password: STAFF_PASSWORD });
    expect([signInRefused.status, signInRefused.body.code]).toEqual([401, 'staff_disabled']);
    await saveScreenshot(page, 'backoffice-staff-disabled');

    // In Spanish, the row offers to enable.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(rowOf(page, manager.email, 'Personal'), /Gerente.*Desactivado.*Activar/s);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();

    await row.getByRole('button', { name: 'Enable' }).click();
    await expectText(page.getByRole('status'), 'Luis Mena is active again.');
    await expectText(row, /Manager.*Active/s);
    await expectCount(row.getByRole('button', { name: 'Enable' }), 0);
    expect(await statusOf(manager.email)).toBe('active');
    // The ended session stays ended; a new sign-in works.
    expect((await staffCall(node, manager.token, 'GET', '/backoffice/me')).body.code).toBe('session_ended');
    expect((await staffCall(node, await signInOverHttp(node, manager.email), 'GET', '/backoffice/me')).status).toBe(200);
    await page.context().close();
  });

  it('a screen whose session the node ended goes back to the sign-in form and says why', async () => {
    const ended = 'This session was ended (signed out everywhere, or the account was disabled). Please sign in again.';
    const endSession = async (page: Page) => {
      const token = await page.evaluate(() => sessionStorage.getItem('punchcard.admin.token'));
      expect((await staffCall(node, token, 'POST', '/backoffice/sign-out-everywhere')).status).toBe(200);
      owner.token = await signInOverHttp(node, owner.email);
    };
    // A call from the screen shown (a search).
    const page = await staffScreen(owner.email);
    await page.getByRole('tab', { name: 'Customers' }).click();
    await endSession(page);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await expectText(page.getByRole('alert'), ended);
    await expectCount(page.getByText(/Owner$/), 0);
    await page.context().close();

    // Going to another screen, which asks who is signed in.
    const other = await staffScreen(owner.email);
    await endSession(other);
    await other.getByRole('tab', { name: 'Program' }).click();
    await other.getByRole('button', { name: 'Sign in' }).waitFor();
    await expectText(other.getByRole('alert'), ended);
    await other.context().close();
  });

  it('disables a waiting invitation, whose link dies, and enabled again it is invited', async () => {
    const page = await staffScreen(owner.email);
    const row = rowOf(page, invitee);
    await expectText(row, /Pablo Ríos.*Invited.*Expires.*Resend invitation.*Disable/s);
    const id = (await staffCall(node, owner.token, 'GET', '/backoffice/staff')).body.items.find((s: { email: string }) => s.email === invitee).id as number;
    const { token: link } = await issueStaffToken(node.engine.db, node.engine, { id, vendor_id: vendorId }, 'invitation');

    await row.getByRole('button', { name: 'Disable' }).click();
    await expectText(page.getByRole('dialog'), /Disable Pablo Ríos\?.*invitation link stops working/s);
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, disable' }).click();
    await expectText(row, /Pablo Ríos.*Disabled/s);
    await expectCount(row.getByRole('button', { name: 'Resend invitation' }), 0);
    expect(await statusOf(invitee)).toBe('disabled');

    await row.getByRole('button', { name: 'Enable' }).click();
    await expectText(page.getByRole('status'), 'Pablo Ríos is invited again: resend the invitation so they can choose a password.');
    await expectText(row, /Pablo Ríos.*Invited.*Expired.*Resend invitation.*Disable/s);
    expect(await statusOf(invitee)).toBe('invited');
    const accept = await staffCall(node, null, 'POST', '/backoffice/invitations/accept', { token: link, password: 'a long new password' });
    expect([accept.status, accept.body.code]).toEqual([400, 'invalid_code']);
    await page.context().close();
  });

  it('shows the node’s refusal to disable the only owner, in Spanish, and changes nothing', async () => {
    const page = await staffScreen(owner.email);
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    const row = rowOf(page, owner.email, 'Personal');
    await expectText(row, /Propietario.*Activo/s);
    await row.getByRole('button', { name: 'Desactivar' }).click();
    // Their own account: the confirmation says they will be signed out.
    await expectText(page.getByRole('dialog'), /Desactivar .*\?.*Se cerrará su sesión/s);
    await page.getByRole('dialog').getByRole('button', { name: 'Sí, desactivar' }).click();
    await expectText(page.getByRole('alert'), 'Un programa conserva al menos un propietario activo: primero haga propietario a otra persona.');
    await expectText(row, /Propietario.*Activo.*Desactivar/s);
    // Switching back to English translates the refusal too.
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
    await expectText(page.getByRole('alert'), 'A program keeps at least one active owner: make someone else owner first.');
    expect(await statusOf(owner.email)).toBe('active');
    expect((await staffCall(node, owner.token, 'GET', '/backoffice/me')).status).toBe(200);
    await expectText(page.getByRole('banner'), /Sign out/);
    await page.context().close();
  });

  it('signs out an owner who disables themselves while another owner remains', async () => {
    const second = `owner.two.${process.pid}@staff.test`;
    await addOwner(node.engine, { vendorId, email: second, password: STAFF_PASSWORD });
    const page = await staffScreen(second);
    await rowOf(page, second).getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, disable' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await statusOf(second)).toBe('disabled');
    expect(await statusOf(owner.email)).toBe('active');
    await page.context().close();
  });
});
