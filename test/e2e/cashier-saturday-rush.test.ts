import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, queueNames, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';
import { relayTo } from '../support/tcp-relay';
import { http } from '../support/test-node';

// A Saturday rush played at the keyboard (twelfth round): what a cashier typing fast met in the order
// form and the register dialog, and what a newcomer tapping their name met at the kiosk.
describe('a Saturday rush at the counter and the kiosk', () => {
  let store: E2eStore;
  let browser: Browser;
  let relay: Awaited<ReturnType<typeof relayTo>>;
  let page: Page;
  let kiosk: Page;
  let ana: SeededCustomer;
  const api = () => inStoreApi(() => store.node);
  const dialog = () => page.getByRole('dialog');
  const panel = () => page.getByTestId('customer-panel');
  /** Keys as a cashier presses them: single-key shortcuts wait 50 ms for the next key. */
  const press = async (key: string) => {
    await page.keyboard.press(key);
    await page.waitForTimeout(80);
  };

  beforeAll(async () => {
    store = await startE2eStore();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Rush', card: 'RUSH0001', points: 60, quickPayCents: 1_800 });
    // The cashier screen reaches the node through a relay the test can take down.
    relay = await relayTo(new URL(store.node.url));
    browser = await launchChromium();
    ({ page } = await openScreen(browser, `http://127.0.0.1:${relay.port}/`, store.vendor.apiKey));
    ({ page: kiosk } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey));
  }, 60_000);

  afterEach(async () => {
    if ((await dialog().count()) > 0) await page.keyboard.press('Escape');
    await closeAllSessions(store);
  });

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
    await store?.close();
  });

  async function openOrderFor(customer: SeededCustomer): Promise<void> {
    await api().checkInOk(store.vendor.apiKey, customer.card);
    await expectText(panel().getByTestId('customer-name'), customer.name);
    await press('o');
    await dialog().getByTestId('order-subtotal').waitFor();
    // The form takes the focus a moment after it shows (Mantine's focus trap, on a timer): keys typed before are lost.
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
  }

  it('"Use the most" after too much quick pay was typed takes the subtotal, not the whole balance', async () => {
    await openOrderFor(ana);
    await page.keyboard.type('12.50', { delay: 60 });
    await dialog().getByTestId('order-quick-pay').focus();
    await page.keyboard.type('15', { delay: 60 });
    await page.keyboard.press('Control+Enter');
    await expectText(dialog(), /More than the subtotal\./);
    // It filled in the $18.00 balance: still more than the $12.50 sale.
    await dialog().getByRole('button', { name: 'Use the most' }).click();
    expect(await dialog().getByTestId('order-quick-pay').inputValue()).toBe('12.5');
    await expectCount(dialog().getByText('More than the subtotal.'), 0);
  });

  it('a quantity reached by Tab is replaced by what is typed: 2 lattes, not 12', async () => {
    await openOrderFor(ana);
    await press('Tab'); // Add item
    await page.keyboard.press('Enter');
    await page.keyboard.type('Latte', { delay: 60 });
    await page.keyboard.press('Tab');
    await page.keyboard.type('2', { delay: 60 });
    await page.keyboard.press('Tab');
    await page.keyboard.type('4.50', { delay: 60 });
    expect(await dialog().getByRole('textbox', { name: 'Qty 1' }).inputValue()).toBe('2');
    await expectText(dialog(), /Items total: \$9\.00/);
  });

  it('the subtotal of an order brought back is replaced, not appended to, by what is typed', async () => {
    await openOrderFor(ana);
    await page.keyboard.type('7.25', { delay: 60 });
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await press('o');
    await dialog().getByTestId('order-draft-restored').waitFor();
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
    await page.keyboard.type('8.10', { delay: 60 });
    expect(await dialog().getByTestId('order-subtotal').inputValue()).toBe('8.10');
  });

  it('a reload mid-order brings the highlight back to the customer being served, so Enter and O bring the order back', async () => {
    const ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Rush', card: 'RUSH0002' });
    const cy = await seedCustomer(store, { firstName: 'Cy', lastName: 'Rush', card: 'RUSH0003' });
    await api().checkInOk(store.vendor.apiKey, ben.card);
    await expectText(panel().getByTestId('customer-name'), ben.name);
    await api().checkInOk(store.vendor.apiKey, cy.card); // waits behind Ben; the cashier serves Cy first
    await page.getByTestId('queue').getByRole('listitem', { name: cy.name }).getByRole('button').click();
    await expectText(panel().getByTestId('customer-name'), cy.name);
    await press('o');
    await expect.poll(() => dialog().getByTestId('order-subtotal').evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('5.40', { delay: 60 });

    await page.reload();
    await expectCount(page.getByTestId('queue').getByRole('listitem'), 2);
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('li')?.textContent ?? ''), { timeout: 10_000 }).toContain(cy.name);
    await press('Enter');
    await expectText(panel().getByTestId('customer-name'), cy.name);
    await press('o');
    await dialog().getByTestId('order-draft-restored').waitFor();
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
    expect(await dialog().getByTestId('order-subtotal').inputValue()).toBe('5.40');
  });

  it('a new card registered with the email of a member already waiting says whose it now is, and the queue does not call them new', async () => {
    const eli = await seedCustomer(store, { firstName: 'Eli', lastName: 'Rush', card: 'RUSH0004' });
    const dee = await seedCustomer(store, { firstName: 'Dee', lastName: 'Rush', card: 'RUSH0005' });
    const issued = await http(`${store.node.url}/cards`, { method: 'POST', token: store.vendor.accessToken, body: { number: 'RUSH0900' } });
    expect(issued.status).toBe(201);
    await api().checkInOk(store.vendor.apiKey, eli.card);
    await expectText(panel().getByTestId('customer-name'), eli.name);
    await api().checkInOk(store.vendor.apiKey, dee.card); // waits in the queue

    await page.getByTestId('check-in-input').fill('RUSH0900');
    await page.keyboard.press('Enter');
    await page.getByTestId('unlinked-card').getByTestId('register-with-card').click();
    await dialog().getByText('By email', { exact: true }).click();
    await dialog().getByLabel('Email address').fill(dee.email);
    await page.keyboard.press('Enter');
    await dialog().waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('customer-name'), dee.name);
    // Dee waited already: her session's own event re-read the panel as it opened, and the toast was lost.
    await expectText(page.getByText(`${dee.name} is already a customer`), `${dee.name} is already a customer`);
    await expectText(page.getByTestId('queue').getByRole('listitem', { name: dee.name }), /Email/);
    await expectCount(page.getByTestId('queue').getByRole('listitem', { name: dee.name }).getByText('Registered here'), 0);
  });

  it('the register dialog says why it cannot register while the node is away, and keeps what was typed', async () => {
    await expectCount(page.getByTestId('offline-actions'), 0);
    await relay.down();
    try {
      await expectCount(page.getByTestId('offline-actions'), 1);
      await press('n');
      await dialog().getByLabel('Mobile number').fill('4155550177');
      const submit = dialog().getByRole('button', { name: 'Register and check in' });
      expect(await submit.isDisabled()).toBe(true);
      await expectText(dialog().getByTestId('register-offline'), /connection to the store node is lost/);
      expect(await submit.getAttribute('aria-describedby')).toBe(await dialog().getByTestId('register-offline').getAttribute('id'));
    } finally {
      await relay.up();
    }
    await expectCount(dialog().getByTestId('register-offline'), 0, 20_000);
    expect(await dialog().getByLabel('Mobile number').inputValue()).toBe('4155550177');
  });

  it('a newcomer at the kiosk sees the calling code assumed, and joins with the name tapped capitalised', async () => {
    await kiosk.getByRole('button', { name: 'New here? Join with your phone' }).click();
    const form = kiosk.getByTestId('kiosk-register');
    // The calling code it assumes is said, not only "This store's country".
    await expect.poll(() => form.getByLabel('Country code').inputValue(), { timeout: 10_000 }).toBe("This store's country (+1)");
    for (const digit of '4155550199') await form.getByRole('button', { name: digit, exact: true }).click();
    await form.getByLabel('First name (optional)').click();
    for (const key of ['M', 'i', 'a']) await form.getByRole('button', { name: key, exact: true }).click();
    expect(await form.getByLabel('First name (optional)').inputValue()).toBe('Mia');
    await form.getByRole('button', { name: 'Join', exact: true }).click();
    await expectText(kiosk.getByTestId('kiosk-welcome-name'), 'Welcome, Mia!');
    expect((await queueNames(store))[0]).toMatch(/^Mia\b/);
  });
});
