import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ManualClock } from '../support/clock';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { http } from '../support/test-node';
import { addStore, type CentralHandle } from '../sync/support/chain';
import { centralWithBackOffice } from '../support/e2e-central';

// A chain owner at central's back office, in Chromium (chain-operator report, twelfth round): the
// customer's ledger says at which store each order's points were earned and on which receipt (a
// void: the receipt it reverses), in English and Spanish; the chain page's sync exceptions name
// both customers they mention, each linked to their profile.
describe('where points were earned, and customers named in exceptions, in Chromium', () => {
  const clock = new ManualClock(Date.now());
  let central: CentralHandle;
  let app: FastifyInstance;
  let url: string;
  let owner: SignedInStaff;
  let browser: Browser;
  let uptown: { storeId: number; apiKey: string };

  const customer = async (email: string, firstName: string, lastName: string) => {
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    return Number((await registerInStore(central.engine, scope, { email, firstName, lastName })).session.user_id);
  };
  const order = async (apiKey: string, body: Record<string, unknown>, method = 'POST') => {
    const reply = await http(`${url}/order?api_key=${encodeURIComponent(apiKey)}`, { method, body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  };

  beforeAll(async () => {
    ({ central, app, url, owner } = await centralWithBackOffice(clock));
    uptown = await addStore(central, 'Uptown Kiosk');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await central?.close();
  });

  it('the ledger names each order’s store and receipt, and the receipt a void reverses', async () => {
    const userId = await customer('lena.ledger@example.com', 'Lena', 'Ledger');
    await order(central.vendor.apiKey, { card_number: 'lena.ledger@example.com', receipt_number: 'A-101', subtotal: 12 });
    clock.advance(60_000);
    await order(uptown.apiKey, { card_number: 'lena.ledger@example.com', receipt_number: 'UP-31', subtotal: 20 });
    clock.advance(60_000);
    await order(uptown.apiKey, { receipt_number: 'UP-31' }, 'DELETE');

    const page = await backOfficePage(browser, url, owner.email, `customers/${userId}`, 'Ledger');
    const rows = page.getByRole('table', { name: 'Ledger' }).locator('tbody tr');
    await expectText(page.getByRole('table', { name: 'Ledger' }).locator('thead'), /Store.*Receipt/s);
    await expectText(rows.nth(0), /Uptown Kiosk\s*Void of UP-31$/);
    await expectText(rows.nth(1), /Uptown Kiosk\s*UP-31$/);
    await expectText(rows.nth(2), /A\s*A-101$/);
    await page.close();

    // In Spanish too.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', locale: 'es-EC', reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('punchcard.language', 'es'));
    const spanish = await context.newPage();
    await spanish.goto(`${url}/admin#/customers/${userId}`);
    await spanish.locator('input[type="email"], input[type="text"]').first().fill(owner.email);
    await spanish.locator('input[type="password"]').fill('correct horse battery');
    await spanish.locator('button[type="submit"]').first().click();
    const ledger = spanish.getByRole('table', { name: 'Movimientos' });
    await expectText(ledger.locator('thead'), /Tienda.*Recibo/s);
    await expectText(ledger.locator('tbody tr').nth(0), /Uptown Kiosk\s*Anulación de UP-31$/);
    await context.close();
  });

  it('a sync exception names both customers it mentions, each linked to their profile', async () => {
    const target = await customer('tina.target@example.com', 'Tina', 'Target');
    const holder = await customer('hank.holder@example.com', 'Hank', 'Holder');
    await central.engine.db
      .insertInto('sync_exceptions')
      .values({
        vendor_id: central.vendor.vendorId,
        store_id: central.vendor.storeId,
        node_id: null,
        kind: 'email_conflict',
        subject: `user ${target}`,
        message: `email set at the store is held by customer ${holder}; customer ${target} keeps central's`,
        created_at: clock.now(),
        resolved_at: null,
      })
      .execute();
    const page = await backOfficePage(browser, url, owner.email, `stores/${central.vendor.storeId}`, 'Sync exceptions to resolve');
    const row = page.getByRole('table', { name: 'Sync exceptions to resolve' }).getByRole('row', { name: `user ${target}` });
    await expectText(row, /Tina Target: email set at the store is held by customer Hank Holder; customer Tina Target keeps central's/);
    expect(await row.getByRole('link', { name: 'Tina Target' }).count()).toBe(2);
    await row.getByRole('link', { name: 'Hank Holder' }).click();
    await expectText(page.getByRole('main'), /Hank Holder.*hank\.holder@example\.com/s);
    await page.close();
  });
});
