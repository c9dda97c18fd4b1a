import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen } from '../support/e2e-browser';
import { balancesOf, type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';

// The rush hour's quick pay spent under the cashier's order dialog: while the customer waits at this
// counter, the same balance was spent at another store of the chain (no event reaches this one).
// The node refuses the order; the panel and the dialog then show the balance the node holds (they
// kept the old one, so the form went on offering what was gone), the focus is on the quick-pay
// amount to fix, and a balance spent to nothing still lets the cashier take the amount out (the
// field was greyed with the amount in it: the order could not be placed at all).
describe('quick pay spent elsewhere while the order dialog is open', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  const api = () => inStoreApi(() => store.node);
  const dialog = () => page.getByRole('dialog');
  const panel = () => page.getByTestId('customer-panel');

  beforeAll(async () => {
    store = await startE2eStore();
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  /** The customer checked in here, shown, and the order dialog opened with a subtotal and quick pay typed. */
  async function orderWithQuickPay(customer: SeededCustomer, subtotal: string, quickPay: string): Promise<void> {
    await api().checkInOk(store.vendor.apiKey, customer.card);
    await expectText(panel().getByTestId('customer-name'), customer.name);
    await expectAttribute(panel().getByTestId('quick-pay-balance'), 'data-amount', String(customer.quickPayCents / 100));
    await panel().getByRole('button', { name: /^Place order/ }).click();
    // The focus trap's late focus on the subtotal would take the quick pay as it is filled.
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
    await dialog().getByTestId('order-subtotal').fill(subtotal);
    await dialog().getByTestId('order-quick-pay').fill(quickPay);
  }

  /**
   * `dollars` of the customer's quick pay spent meanwhile where no event reaches this store: a sale
   * at another store of the chain that sync brings in (a ledger entry; a check-in at another store of
   * this node would close the session here instead).
   */
  async function spendElsewhere(customer: SeededCustomer, dollars: number): Promise<void> {
    await api().credit(store.vendor, store.vendor.quickPayCurrencyId, customer.userId, -dollars * 100);
  }

  it('the refusal brings the balance the node holds, at the field, with the focus there; the amount fixed, the order goes', async () => {
    const ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Spent', card: 'SPENT0001', quickPayCents: 2_000 });
    await orderWithQuickPay(ana, '20.00', '15.00');
    await spendElsewhere(ana, 12);

    await page.keyboard.press('Control+Enter');
    await expectText(dialog().getByTestId('order-error'), 'The quick-pay balance is too low for this payment.');
    const quickPay = dialog().getByTestId('order-quick-pay');
    await expectText(dialog().getByText(/^Balance: /), 'Balance: $8.00');
    await expectText(dialog().getByText('More than the quick-pay balance.'), 'More than the quick-pay balance.');
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-quick-pay');
    await expectAttribute(panel().getByTestId('quick-pay-balance'), 'data-amount', '8');

    await quickPay.fill('8.00');
    await page.keyboard.press('Control+Enter');
    await dialog().waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('order-result'), 'Paid $8.00 with quick pay');
    expect((await balancesOf(store, ana)).quickPayCents).toBe(0);
  });

  it('a balance spent to nothing leaves the amount typed editable, so the order goes without quick pay', async () => {
    const ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Spent', card: 'SPENT0002', quickPayCents: 1_000 });
    await panel().getByRole('button', { name: 'Done' }).click();
    await orderWithQuickPay(ben, '6.00', '6.00');
    await spendElsewhere(ben, 10);

    await page.keyboard.press('Control+Enter');
    await expectText(dialog().getByTestId('order-error'), 'too low');
    await expectText(dialog().getByText(/^Balance: /), 'Balance: $0.00');
    const quickPay = dialog().getByTestId('order-quick-pay');
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-quick-pay');
    expect(await quickPay.isEnabled()).toBe(true);
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    // Emptied, the field keeps the focus (greyed, it dropped it, and Ctrl+Enter went nowhere).
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-quick-pay');
    await page.keyboard.press('Control+Enter');
    await dialog().waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('order-result'), /Order .* complete/);
    await expectCount(panel().getByText(/with quick pay/), 0);
  });
});
