import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { type SignedInStaff, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ManualClock } from '../support/clock';
import { backOfficePage, expectText, UI_TIMEOUT } from '../support/e2e-browser';
import { acceptPushedEvents } from '../../src/core/sync/central/apply-push';
import { readPendingEvents } from '../../src/core/sync/outbox/pending-events';
import { addStore, type CentralHandle, pairFirstStore, pairStoreBehindSwitch, type StoreHandle, type Switch } from '../sync/support/chain';
import { centralWithBackOffice } from '../support/e2e-central';

// Fourteenth round: the chain page quoted central's English sentence under Spanish headings and
// advice. Two tills of one store sold offline (the same receipt number, the same customer's points
// spent twice, one customer registered at both); in Spanish the page now writes each exception's
// message in Spanish, customers named and linked. An exception recorded before central kept what
// its message says shows its stored English text.
// Fifteenth round: a refused event's reason (a till's sale written for another store) and the
// subjects ("order 12", "card 99") stayed English there; they read in Spanish now.
describe('sync exceptions on a Spanish chain page', () => {
  const clock = new ManualClock(Date.now());
  let central: CentralHandle;
  let app: FastifyInstance;
  let url: string;
  let owner: SignedInStaff;
  let browser: Browser;
  const tills: Array<StoreHandle & { link: Switch }> = [];

  beforeAll(async () => {
    ({ central, app, url, owner } = await centralWithBackOffice(clock));
    const store = { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey };
    for (let i = 0; i < 2; i += 1) tills.push(await pairStoreBehindSwitch(central, clock, store));
    const [a, b] = tills as [StoreHandle & { link: Switch }, StoreHandle & { link: Switch }];
    const currency = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', central.vendor.loyaltyCurrencyId).executeTakeFirstOrThrow();
    const tea = await createSpendingRule(central.engine, { vendorId: central.vendor.vendorId }, { name: 'Tea', cost: 8, currency: currency.public_id });
    await registerInStore(a.engine, await a.scope(), { email: 'cy@example.com', firstName: 'Cy', lastName: 'Spender' });
    await placeOrder(a.engine, await a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-1', subtotal: 10 });
    await registerInStore(a.engine, await a.scope(), { email: 'bo@example.com', firstName: 'Bo' });
    for (const till of [a, b, a, b]) await till.client.syncOnce();

    for (const till of tills) {
      till.link.down = true;
      await till.client.syncOnce().catch(() => undefined);
    }
    await placeOrder(a.engine, await a.scope(), { identification: 'bo@example.com', receiptNumber: 'R-9', subtotal: 5 });
    await placeOrder(b.engine, await b.scope(), { identification: 'bo@example.com', receiptNumber: 'R-9', subtotal: 6 });
    await placeOrder(a.engine, await a.scope(), { identification: 'cy@example.com', receiptNumber: 'A-2', subtotal: 0, redemptions: [tea.publicId] });
    await placeOrder(b.engine, await b.scope(), { identification: 'cy@example.com', receiptNumber: 'B-2', subtotal: 0, redemptions: [tea.publicId] });
    await registerInStore(a.engine, await a.scope(), { email: 'ana@example.com', firstName: 'Ana', lastName: 'Pérez' });
    await registerInStore(b.engine, await b.scope(), { email: 'ana@example.com', firstName: 'Anita', lastName: 'Pérez' });
    for (const till of tills) till.link.down = false;
    for (const till of [a, b, a, b]) await till.client.syncOnce();

    // A third till whose check-in and sale name another store: central refuses them.
    const forger = await pairFirstStore(central, clock);
    tills.push(forger.store as StoreHandle & { link: Switch });
    const other = await addStore(central, 'Otra tienda');
    await placeOrder(forger.store.engine, await forger.store.scope(), { identification: 'bo@example.com', receiptNumber: 'F-1', subtotal: 3 });
    const forged = await readPendingEvents(forger.store.engine, 100);
    for (const event of forged) for (const change of event.changes) if ('store_id' in change.data) change.data['store_id'] = other.storeId;
    await acceptPushedEvents(central.engine, forger.node, forged);

    // An exception recorded before central kept what its message says: its English text only.
    await central.engine.db
      .insertInto('sync_exceptions')
      .values({ vendor_id: central.vendor.vendorId, store_id: central.vendor.storeId, node_id: b.engine.nodeId, kind: 'card_conflict', subject: 'card 99', message: 'card number created at two stores; card 42 stands', created_at: clock.now(), resolved_at: null })
      .execute();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    for (const till of tills.reverse()) await till.close();
    await central?.close();
  });

  async function spanishChainPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', locale: 'es-EC', reducedMotion: 'reduce' });
    await context.addInitScript(() => localStorage.setItem('punchcard.language', 'es'));
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${url}/admin#/stores/${central.vendor.storeId}`);
    await page.locator('input[type="email"], input[autocomplete="username"], input:not([type])').first().fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.locator('button[type="submit"]').first().click();
    await page.getByRole('table', { name: 'Excepciones de sincronización por resolver' }).waitFor();
    return page;
  }

  it('writes each message in Spanish, customers named and linked, and an old one in its stored English', async () => {
    const ana = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'ana@example.com').executeTakeFirstOrThrow();
    const bo = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'bo@example.com').executeTakeFirstOrThrow();
    const page = await spanishChainPage();
    try {
      const rows = page.getByRole('table', { name: 'Excepciones de sincronización por resolver' }).getByRole('row');
      const merged = rows.filter({ hasText: 'Clientes fusionados' });
      await expectText(merged, /Anita Pérez: registrado sin conexión con el correo del cliente Ana Pérez; fusionado con él \(ahora es un solo cliente, con los puntos y las visitas de ambos\)/);
      expect(await merged.getByRole('link', { name: 'Ana Pérez' }).getAttribute('href')).toBe(`#/customers/${ana.id}`);
      const overdraft = rows.filter({ hasText: 'Sobregiro sin conexión' });
      await expectText(overdraft, /Cy Spender: lo gastado en Points antes de que los nodos se enteraran el uno del otro dejó un saldo de −6 Points \(la tienda creía que había 10 Points disponible\); se salda con los próximos abonos/);
      const reused = rows.filter({ hasText: 'Número de recibo repetido' });
      // Sixteenth round: the sale by its receipt (central renamed the reused one), linked to its customer's page.
      // Seventeenth round: the earlier sale by its customer (central's message names its id), linked too.
      await expectText(reused, /recibo R-9~\d+: el recibo R-9 ya lo había usado la venta a Bo; se guardó como R-9~\d+/);
      expect(await reused.getByRole('link', { name: /^recibo R-9~\d+$/ }).getAttribute('href')).toBe(`#/customers/${bo.id}`);
      expect(await reused.getByRole('link', { name: 'Bo', exact: true }).getAttribute('href')).toBe(`#/customers/${bo.id}`);
      const refused = rows.filter({ hasText: 'Cambio rechazado' });
      await expectText(refused, /evento \d+ \(local\.write\): foreign_store: (el registro|el pedido) \d+ indica otra tienda/);
      const old = rows.filter({ hasText: 'Tarjeta vinculada dos veces' });
      // Its subject in Spanish words; its message as stored.
      await expectText(old, /tarjeta 99: card number created at two stores; card 42 stands/);
      // No English sentence of central's is left on the new ones, nor an English subject.
      for (const row of [merged, overdraft, reused, refused]) expect(await row.textContent()).not.toMatch(/registered offline|spent before|was already used|names another store|\b(order|event) \d/);
    } finally {
      await page.context().close();
    }
  });

  // Sixteenth round: in English too, a sale's exception names its receipt, not central's order id,
  // and links to the page that shows the sale (its customer's ledger, by receipt).
  it('names a sale by its receipt in English, linked to its customer', async () => {
    const bo = await central.engine.db.selectFrom('users').select('id').where('email_key', '=', 'bo@example.com').executeTakeFirstOrThrow();
    // Seventeenth round: a repeat's void names the sale and the till that voided it by id; the page
    // says whose sale and which till (its label). Recorded as central records one (repeated-sale.ts).
    const [standing, repeat] = await central.engine.db.selectFrom('orders').select(['id', 'receipt_number']).where('receipt_number', 'like', 'R-9%').orderBy('id').execute();
    await central.engine.db
      .insertInto('sync_exceptions')
      .values({
        vendor_id: central.vendor.vendorId,
        store_id: central.vendor.storeId,
        node_id: tills[0]!.engine.nodeId,
        kind: 'sale_repeated',
        subject: `order ${standing!.id}`,
        message: `voided because its repeat, order ${repeat!.id} (${repeat!.receipt_number}), was voided at node ${tills[0]!.engine.nodeId}: the cashier voided the sale`,
        message_data: JSON.stringify({ key: 'repeat_voided', params: { order: Number(repeat!.id), receipt: repeat!.receipt_number, node: tills[0]!.engine.nodeId } }),
        created_at: clock.now(),
        resolved_at: null,
      })
      .execute();
    const page = await backOfficePage(browser, url, owner.email, `stores/${central.vendor.storeId}`, 'Sync exceptions to resolve');
    try {
      const voided = page.getByRole('table', { name: 'Sync exceptions to resolve' }).getByRole('row').filter({ hasText: 'Sale sent twice' });
      await expectText(voided, new RegExp(`receipt R-9: voided because its repeat, the sale to Bo \\(R-9~\\d+\\), was voided at store ${central.vendor.storeId}: the cashier voided the sale`));
      const reused = page.getByRole('table', { name: 'Sync exceptions to resolve' }).getByRole('row').filter({ hasText: 'Receipt number reused' });
      await expectText(reused, /receipt R-9~\d+: receipt R-9 was already used by the sale to Bo; kept as R-9~\d+/);
      expect(await reused.textContent()).not.toMatch(/order \d+/);
      await reused.getByRole('link', { name: /^receipt R-9~\d+$/ }).click();
      await page.waitForURL(new RegExp(`#/customers/${bo.id}$`));
      // The customer's ledger shows the sale by the same receipt.
      await expectText(page.getByRole('table', { name: 'Ledger' }), /R-9~\d+/);
    } finally {
      await page.context().close();
    }
  });
});
