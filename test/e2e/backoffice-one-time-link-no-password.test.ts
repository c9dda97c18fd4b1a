import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import { ownerOf, signIn } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectCount, expectText, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// An owner `punchcard init --owner` made without a password signs in once by its link: the first
// back-office page says they have no password (the link works once) and sets one in place; an owner
// with a password sees no such notice.
describe('an owner signed in by the one-time link', () => {
  let node: TestNode;
  let browser: Browser;
  let vendorId: number;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendorId = (await node.addVendor('Link Café')).vendorId;
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function openLink(token: string, language: 'en' | 'es' = 'en') {
    const context = await browser.newContext({ viewport: VIEWPORT, timezoneId: 'UTC', locale: language === 'es' ? 'es-ES' : 'en-US', reducedMotion: 'reduce' });
    await context.addInitScript((l) => localStorage.setItem('punchcard.language', l), language);
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/sign-in-link?token=${token}`);
    return page;
  }

  it('is told they have no password on the dashboard, and sets one there', async () => {
    const { signInToken } = await addOwner(node.engine, { vendorId, email: 'first.owner@example.com' });
    const page = await openLink(signInToken!);
    const notice = page.getByTestId('no-password-notice');
    await expectText(notice, /You have no password yet.*one-time link, which works only once/s);
    await page.getByRole('tab', { name: 'Dashboard', selected: true }).waitFor();

    await notice.getByLabel('New password (8 characters or more)').fill('short');
    await notice.getByRole('button', { name: 'Set password' }).click();
    await expectText(notice, 'The password must be 8 to 128 characters long.');

    await notice.getByLabel('New password (8 characters or more)').fill('a long enough secret');
    await notice.getByRole('button', { name: 'Set password' }).click();
    await expectText(page.getByRole('status'), 'Your password is set. Next time, sign in with your email and this password.');
    await expectCount(page.getByTestId('no-password-notice'), 0);
    // Still signed in, and the password signs in from now on.
    await page.getByRole('tab', { name: 'Program' }).click();
    await page.getByRole('table', { name: 'Tiers' }).waitFor();
    expect(await signIn(node, 'first.owner@example.com', 'a long enough secret')).toMatch(/\S/);
    await page.context().close();
  });

  it('is told in Spanish too', async () => {
    const { signInToken } = await addOwner(node.engine, { vendorId, email: 'segunda.duena@example.com' });
    const page = await openLink(signInToken!, 'es');
    await expectText(page.getByTestId('no-password-notice'), /Aún no tiene contraseña.*enlace de un solo uso/s);
    await page.context().close();
  });

  it('says nothing to an owner who has a password', async () => {
    const owner = await ownerOf(node, vendorId);
    const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.goto(`${node.url}/admin`);
    await page.evaluate((token) => sessionStorage.setItem('punchcard.admin.token', token), owner.token);
    await page.reload();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    await page.getByRole('tab', { name: 'Program' }).click();
    await page.getByRole('table', { name: 'Tiers' }).waitFor();
    await expectCount(page.getByTestId('no-password-notice'), 0);
    await context.close();
  });
});
