import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectText, openScreen } from '../support/e2e-browser';
import { type E2eStore, seedCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';

// The order a cashier is typing survives Esc and a page reload (left by the tenth round's rush hour:
// both dropped it, and the next form had a new receipt number). It comes back for the same customer's
// session with its receipt number, says so, can be started over, and is forgotten once placed.
describe('the order being typed, kept across Esc and a reload', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  const api = () => inStoreApi(() => store.node);
  const dialog = () => page.getByRole('dialog');
  const panel = () => page.getByTestId('customer-panel');
  const receiptShown = async () => (await dialog().getByTestId('order-receipt').innerText()).replace(/^Receipt /, '');
  const keptDrafts = () => page.evaluate(() => sessionStorage.getItem('punchcard.order-drafts'));

  beforeAll(async () => {
    store = await startE2eStore();
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('comes back after Esc and after a reload, with its receipt number, and is forgotten once the order is placed', async () => {
    const ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Draft', card: 'DRAFT0001' });
    await api().checkInOk(store.vendor.apiKey, ana.card);
    await expectText(panel().getByTestId('customer-name'), ana.name);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    expect(await dialog().getByTestId('order-draft-restored').count()).toBe(0);
    await dialog().getByTestId('order-subtotal').fill('12.50');
    await dialog().getByRole('button', { name: 'Add item' }).click();
    await dialog().getByRole('textbox', { name: 'Item 1' }).fill('Latte');
    const receipt = await receiptShown();

    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await panel().getByRole('button', { name: /^Place order/ }).click();
    await expectText(dialog().getByTestId('order-draft-restored'), 'The order typed before for this customer is back.');
    expect(await dialog().getByTestId('order-subtotal').inputValue()).toBe('12.50');
    expect(await dialog().getByRole('textbox', { name: 'Item 1' }).inputValue()).toBe('Latte');
    expect(await receiptShown()).toBe(receipt);

    await page.reload();
    await page.getByTestId('queue').getByRole('listitem', { name: ana.name }).getByRole('button').click();
    await expectText(panel().getByTestId('customer-name'), ana.name);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    await dialog().getByTestId('order-draft-restored').waitFor();
    expect(await dialog().getByTestId('order-subtotal').inputValue()).toBe('12.50');
    expect(await receiptShown()).toBe(receipt);

    await dialog().getByRole('textbox', { name: 'Price 1' }).fill('12.50');
    await page.keyboard.press('Control+Enter');
    await dialog().waitFor({ state: 'detached' });
    const order = await store.node.engine.db.selectFrom('orders').select(['receipt_number', 'subtotal']).where('user_id', '=', ana.userId).executeTakeFirstOrThrow();
    expect(order.receipt_number).toBe(receipt);
    expect(await keptDrafts()).toBeNull();
  });

  it('starts over on the cashier’s word, keeping the receipt number (nothing was placed under it)', async () => {
    const ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Draft', card: 'DRAFT0002' });
    await panel().getByRole('button', { name: 'Done' }).click();
    await api().checkInOk(store.vendor.apiKey, ben.card);
    await expectText(panel().getByTestId('customer-name'), ben.name);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    await dialog().getByTestId('order-subtotal').fill('9.00');
    const receipt = await receiptShown();
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await panel().getByRole('button', { name: /^Place order/ }).click();
    await dialog().getByRole('button', { name: 'Start over' }).click();
    await dialog().getByTestId('order-draft-restored').waitFor({ state: 'detached' });
    expect(await dialog().getByTestId('order-subtotal').inputValue()).toBe('');
    expect(await receiptShown()).toBe(receipt);
    // Nothing typed: nothing kept.
    expect(await keptDrafts()).toBeNull();
  });
});
