import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { launchChromium } from '../support/browser';
import { expectText, VIEWPORT } from '../support/e2e-browser';
import { type Customer, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The referral page (issue 17, item 4) in Chromium: a member's referral_url serves a sign-up page
// in English or Spanish; a friend who joins there is a customer of the program, and the member is
// credited the program's referral points, shown in their history.

describe('referral page in Chromium', () => {
  let node: TestNode;
  let v: VendorCredentials;
  let browser: Browser;
  let referrer: Customer;
  let referralUrl: string;

  beforeAll(async () => {
    node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
    v = await node.addVendor('Referral Roasters');
    expect((await http(`${node.url}/program/settings`, { method: 'PUT', token: v.accessToken, body: { referral_points: 25 } })).body.referral_points).toBe(25);
    referrer = await signUpAt(node, v.vendorId, { first_name: 'Rhea' });
    referralUrl = (await http(`${node.url}${withSessionKey('/user/profile', referrer.key)}`)).body.referral_url;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const history = async () => (await http(`${node.url}${withSessionKey('/user/transaction/list', referrer.key)}`)).body.data as any[];

  it('signs a friend up in English and credits the referrer by the program rule', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT, reducedMotion: 'reduce' });
    const reply = await page.goto(referralUrl);
    expect(reply!.status()).toBe(200);
    await expectText(page.getByRole('heading', { level: 1 }), 'Join Referral Roasters');
    await expectText(page.locator('main p').first(), 'Rhea invited you to Referral Roasters');
    await page.getByLabel('First name').fill('Noor');
    await page.getByLabel('Last name').fill('Haddad');
    await page.getByLabel('Email address').fill('noor.friend@example.com');
    await page.getByLabel('Password (8 characters or more)').fill('friendly password');
    await page.getByLabel('I accept the terms of the program').check();
    await page.getByRole('button', { name: 'Join' }).click();
    await expectText(page.getByTestId('joined'), 'Welcome, Noor!');
    const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: 'noor.friend@example.com', password: 'friendly password', vendor: v.vendorId } });
    expect(login.status).toBe(200);
    const [record] = await history();
    expect(record).toMatchObject({ object: 'referral', status: 'Complete' });
    expect(record.rewards).toEqual([expect.objectContaining({ kind: 'referral', amount: 25, currency: 'Points', name: 'Noor joined' })]);

    // The same email again: the page says why, in the form, and nobody is credited twice.
    await page.goto(referralUrl);
    await page.getByLabel('First name').fill('Noor');
    await page.getByLabel('Last name').fill('Again');
    await page.getByLabel('Email address').fill('noor.friend@example.com');
    await page.getByLabel('Password (8 characters or more)').fill('friendly password');
    await page.getByLabel('I accept the terms of the program').check();
    await page.getByRole('button', { name: 'Join' }).click();
    await expectText(page.getByRole('alert'), /already exists/);
    expect((await history()).filter((r) => r.object === 'referral')).toHaveLength(1);
    await page.close();
  });

  it('speaks Spanish, and says so when the link is not valid', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT, locale: 'es-ES', extraHTTPHeaders: { 'accept-language': 'es-ES,es;q=0.9' }, reducedMotion: 'reduce' });
    await page.goto(referralUrl);
    await expectText(page.getByRole('heading', { level: 1 }), 'Únase a Referral Roasters');
    await page.getByLabel('Nombre').fill('Lía');
    await page.getByLabel('Apellidos').fill('Soto');
    await page.getByLabel('Correo electrónico').fill('lia.friend@example.com');
    await page.getByLabel('Contraseña (8 caracteres o más)').fill('contraseña amiga');
    await page.getByLabel('Acepto las condiciones del programa').check();
    await page.getByRole('button', { name: 'Unirme' }).click();
    await expectText(page.getByTestId('joined'), '¡Hola, Lía!');
    expect((await history()).filter((r) => r.object === 'referral')).toHaveLength(2);
    // The language links keep the invitation: English, then back to Spanish, still the same form.
    await page.goto(referralUrl);
    await page.getByRole('link', { name: 'English' }).click();
    await expectText(page.getByRole('heading', { level: 1 }), 'Join Referral Roasters');
    await page.getByRole('link', { name: 'Español' }).click();
    await expectText(page.getByRole('heading', { level: 1 }), 'Únase a Referral Roasters');
    const missing = await page.goto(`${node.url}/join?code=nope&lang=es`);
    expect(missing!.status()).toBe(404);
    await expectText(page.getByRole('heading', { level: 1 }), 'Este enlace de invitación no es válido.');
    await page.close();
  });
});
