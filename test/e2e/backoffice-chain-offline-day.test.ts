import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { type SignedInStaff } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ManualClock } from '../support/clock';
import { backOfficePage, expectText } from '../support/e2e-browser';
import { addStore, type CentralHandle, pairStoreBehindSwitch, type StoreHandle, type Switch } from '../sync/support/chain';
import { centralWithBackOffice } from '../support/e2e-central';

// Thirteenth round, a store's day offline played, in Chromium: store A sold offline while B sold on.
// A registered Carlos Ruiz with the phone B had just given Carla Ruiz, and spent a customer's points
// B spent too. Central's chain page listed "user 4294967317: registered offline with the email or
// phone of customer Carla Ruiz; merged into them" — who was registered, and what staff should do
// about either exception, were not said. Now the merged copy is named as the counter registered it,
// the contact that met is said, and each exception says what to do (beside it, the Resolve button
// was squeezed to "Reso"); the flagged customer's page said "Flagged" and no more.
describe('a store’s day offline, at central’s chain page', () => {
  const clock = new ManualClock(Date.now());
  let central: CentralHandle;
  let app: FastifyInstance;
  let url: string;
  let owner: SignedInStaff;
  let browser: Browser;
  const stores: Array<StoreHandle & { link: Switch }> = [];

  beforeAll(async () => {
    ({ central, app, url, owner } = await centralWithBackOffice(clock));
    const pair = async (store: { storeId: number; apiKey: string }) => {
      const handle = await pairStoreBehindSwitch(central, clock, store);
      stores.push(handle);
      return handle;
    };
    const a = await pair({ storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
    const b = await pair(await addStore(central, 'Harbour'));
    const currency = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', central.vendor.loyaltyCurrencyId).executeTakeFirstOrThrow();
    const tea = await createSpendingRule(central.engine, { vendorId: central.vendor.vendorId }, { name: 'Tea', cost: 8, currency: currency.public_id });
    await registerInStore(a.engine, await a.scope(), { email: 'cy@example.com', firstName: 'Cy', lastName: 'Spender' });
    await placeOrder(a.engine, await a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-1', subtotal: 10 });
    for (const store of [a, b, a, b]) await store.client.syncOnce();

    a.link.down = true;
    await a.client.syncOnce().catch(() => undefined);
    const phone = { number: '4155550199', code: '1' };
    await registerInStore(b.engine, await b.scope(), { phone, firstName: 'Carla', lastName: 'Ruiz' });
    await placeOrder(b.engine, await b.scope(), { identification: 'cy@example.com', receiptNumber: 'B-1', subtotal: 0, redemptions: [tea.publicId] });
    await b.client.syncOnce();
    await registerInStore(a.engine, await a.scope(), { phone, firstName: 'Carlos', lastName: 'Ruiz' });
    await placeOrder(a.engine, await a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-2', subtotal: 0, redemptions: [tea.publicId] });
    a.link.down = false;
    await a.client.syncOnce();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    for (const store of stores.reverse()) await store.close();
    await central?.close();
  });

  it('names who was merged, says which contact met, and says what to do about each exception', async () => {
    const page = await backOfficePage(browser, url, owner.email, `stores/${central.vendor.storeId}`, 'Sync exceptions to resolve');
    const rows = page.getByRole('table', { name: 'Sync exceptions to resolve' }).getByRole('row');
    const merged = rows.filter({ hasText: 'Customers merged' });
    await expectText(merged, /Carlos Ruiz: registered offline with the phone number of customer Carla Ruiz; merged into them/);
    await expectText(merged, /Nothing to do if it is one person.*If two people share that email or phone, register the second/s);
    const overdraft = rows.filter({ hasText: 'Offline overdraft' });
    // Written from what central recorded (fourteenth round): the balance with the back office's minus sign.
    await expectText(overdraft, /Cy Spender: Points spent before the nodes heard of each other left a balance of −6 Points \(the store believed 10 Points was available\)/);
    await expectText(overdraft, /the next credits in this currency \(points earned, reloads\) pay the debt back and close this by themselves, and the flag lifts once no balance of theirs is below zero/);
    // Fifteenth round: what resolving it by hand does.
    await expectText(overdraft, /Resolved here while still below zero, it stays closed unless the balance falls further or goes below zero again after being settled/);
    // The Resolve button beside the longer text keeps its whole label (a squeezed one read "Reso").
    for (const row of [merged, overdraft]) {
      const label = row.getByRole('button', { name: 'Resolve' }).locator('.mantine-Button-label');
      expect(await label.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    }
    await page.close();
  });

  it('the flagged customer’s page says why they are flagged and what to do', async () => {
    const cy = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'cy@example.com').executeTakeFirstOrThrow();
    const page = await backOfficePage(browser, url, owner.email, `customers/${cy.id}`, 'Ledger');
    await expectText(page.getByRole('main'), /Flagged: sales at stores that could not reach each other spent more than this customer had.*adjust the balance up to zero below/s);
    await page.close();
  });
});
