import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen, typeAsScanner } from '../support/e2e-browser';
import { balancesOf, closeAllSessions, type E2eStore, queueNames, SCANNER_ID, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';
import { loginOkAt } from '../support/customers';
import { paymentsApi } from '../support/payments';
import { drainAutoReloads } from '../../src/core/payments/auto-reload/auto-reloads';
import { http } from '../support/test-node';

// The cashier screen in Chromium, served by a real headless store node at `/` and signed in with the
// store's cashier key: a scan on the node's scanner brings the customer up, an order placed on the
// screen moves the balances, a session closed on the screen leaves the queue, the node's own error
// messages, keyboard-wedge scans, settings, and the offline banner when the node goes away.
describe('cashier screen in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  let ana: SeededCustomer;
  let ben: SeededCustomer;
  let chloe: SeededCustomer;
  let dev: SeededCustomer;
  /** Every request the page made, in order. */
  const requests: Request[] = [];

  const queue = () => page.getByTestId('queue');
  const queueEntry = (name: string) => queue().getByRole('listitem', { name, exact: true });
  const panel = () => page.getByTestId('customer-panel');
  const points = () => panel().getByTestId('loyalty-balance-Points');
  const quickPay = () => panel().getByTestId('quick-pay-balance');
  const checkInOverHttp = (identification: string) => inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, identification);

  beforeAll(async () => {
    store = await startE2eStore();
    // Customers who joined three days ago; Ana came in then (checked in, 8 points earned), so her
    // panel has a last visit and some history.
    const today = store.node.clock.now();
    store.node.clock.set(today - 3 * 86_400_000 - 2 * 3_600_000);
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'CAFE0001', points: 120, quickPayCents: 2_500 });
    ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Okafor', card: 'CAFE0002', points: 45, quickPayCents: 1_000 });
    chloe = await seedCustomer(store, { firstName: 'Chloé', lastName: 'Martin', card: 'CAFE0003', points: 310, quickPayCents: 550 });
    dev = await seedCustomer(store, { firstName: 'Dev', lastName: 'Patel', card: 'CAFE0004', points: 5 });
    const api = inStoreApi(() => store.node);
    await api.checkInOk(store.vendor.apiKey, ana.card);
    await api.orderOk(store.vendor.apiKey, { card_number: ana.card, receipt_number: 'R-0990', subtotal: 8.4, items: [{ name: 'Flat white', quantity: 2, price: 4.2 }] });
    await closeAllSessions(store);
    store.node.clock.set(today);
    // Rewards the counter offers: one Ana can afford, one she cannot.
    await api.addReward(store.vendor, { name: 'Free coffee', cost: 100 });
    await api.addReward(store.vendor, { name: 'Tote bag', cost: 500 });
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    page.on('request', (request) => requests.push(request));
    await page.getByTestId('queue-empty').waitFor();
  });

  // The tests follow on from each other; one that failed half-way leaves the next a clean counter
  // (no dialog, nobody checked in) so that only what depends on it fails after it.
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail') return;
    if ((await page.getByRole('dialog').count()) > 0) await page.keyboard.press('Escape');
    await closeAllSessions(store);
    await page.getByTestId('queue-empty').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('a scan on the node brings the customer up with points and quick pay; the queue follows the event stream', async () => {
    await expectText(page.getByTestId('queue-count'), '0 waiting');
    expect(await store.scan(ana.card)).toMatchObject({ ok: true, source: SCANNER_ID });

    await queueEntry(ana.name).waitFor();
    await expectText(page.getByTestId('queue-count'), '1 waiting');
    // Nothing was open: the new session comes up by itself.
    await expectText(panel().getByTestId('customer-name'), ana.name);
    await expectAttribute(points(), 'data-amount', '128');
    await expectText(points(), /^128$/);
    await expectCount(panel().getByTestId('history-row'), 1);
    // The row says what it was, where, and what moved, signed.
    const row = panel().getByTestId('history-row');
    await expectText(row.getByTestId('history-what'), 'Order R-0990');
    await expectText(row.getByTestId('history-context'), 'Market Street · 2 × Flat white · Sale $8.40');
    await expectText(row.getByTestId('history-points'), '+8 Points');
    await expectText(panel().getByTestId('last-visit'), 'Market Street');
    const rewards = panel().getByRole('list', { name: 'Rewards' });
    await expectText(rewards.getByRole('listitem', { name: 'Free coffee' }), /100 Points/);
    await expectText(rewards.getByRole('listitem', { name: 'Tote bag' }), /500 Points.*Not enough/i);
    await expectCount(rewards.getByRole('listitem', { name: 'Free coffee' }).getByText(/not enough/i), 0);
    await expectAttribute(quickPay(), 'data-amount', '25');
    await expectText(quickPay(), '$25.00');
    expect(await queueEntry(ana.name).getAttribute('aria-current')).toBe('true');

    // Two more customers check in elsewhere (another register, the kiosk): the queue grows from the
    // events alone, and the panel stays on the customer the cashier is serving.
    await checkInOverHttp(ben.email);
    await checkInOverHttp(chloe.card);
    await expectCount(queue().getByTestId('queue-entry'), 3);
    expect(await queue().getByTestId('queue-entry').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label')))).toEqual([ana.name, ben.name, chloe.name]);
    await expectCount(panel().getByTestId('customer-flagged'), 0);
    await expectText(page.getByTestId('queue-count'), '3 waiting');
    await expectText(panel().getByTestId('customer-name'), ana.name);

    // No polling: a quiet second and a half asks the node nothing.
    const before = requests.length;
    await page.waitForTimeout(1_500);
    expect(requests.slice(before).map((r) => r.url())).toEqual([]);
  });

  it('an order placed on the screen earns points, redeems a reward and spends quick pay, on screen and in the node', async () => {
    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByTestId('order-subtotal').fill('12.50');
    await dialog.getByTestId('order-quick-pay').fill('5.25');
    // Tote bag costs more than Ana has: offered, not selectable.
    expect(await dialog.getByRole('checkbox', { name: /^Tote bag/ }).isDisabled()).toBe(true);
    await dialog.getByRole('checkbox', { name: /^Free coffee/ }).check();
    await dialog.getByRole('button', { name: /^Place order/ }).click();
    await dialog.waitFor({ state: 'detached' });

    // 1 point per whole unit of subtotal: 128 + 12 − 100 (Free coffee); quick pay 25.00 − 5.25.
    const result = panel().getByTestId('order-result');
    await expectText(result, /Points earned: 12/);
    await expectText(result, /Points redeemed: 100 \(Free coffee\)/);
    await expectText(result, '$5.25');
    await expectAttribute(points(), 'data-amount', '40');
    await expectText(points(), /^40$/);
    await expectAttribute(quickPay(), 'data-amount', '19.75');
    await expectText(quickPay(), '$19.75');
    expect(await balancesOf(store, ana)).toEqual({ points: 40, quickPayCents: 1_975 });
    // The order completed Ana's visit: she leaves the queue, and the order is in her history.
    await expectCount(queueEntry(ana.name), 0);
    expect(await queueNames(store)).toEqual([ben.name, chloe.name]);
    await expectCount(panel().getByTestId('history-row'), 2);

    // The POS voids her earlier sale: the history says so, with the points it took back.
    await inStoreApi(() => store.node).voidOk(store.vendor.apiKey, 'R-0990');
    await expectCount(panel().getByTestId('history-row'), 3);
    const voided = panel().getByTestId('history-row').first();
    await expectText(voided.getByTestId('history-what'), 'Void of R-0990');
    await expectText(voided.getByTestId('history-context'), 'Market Street · 2 × Flat white · Sale $8.40');
    await expectText(voided.getByTestId('history-points'), '−8 Points');
    // Her balance shown follows it (her visit has ended, so the panel cannot read her again).
    await expectAttribute(points(), 'data-amount', '32');
  });

  it('a session closed on the screen leaves the queue, on screen and in the node', async () => {
    await queueEntry(ben.name).click();
    await expectText(panel().getByTestId('customer-name'), ben.name);
    await expectAttribute(points(), 'data-amount', '45');
    await panel().getByRole('button', { name: /^Close session/ }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, `${ben.name} leaves the queue`);
    await dialog.getByRole('button', { name: /^Close session/ }).click();

    await expectCount(queueEntry(ben.name), 0);
    await expectText(page.getByTestId('queue-count'), '1 waiting');
    expect(await queueNames(store)).toEqual([chloe.name]);
  });

  it("shows the node's own message when a typed identification finds nobody", async () => {
    const unknown = 'nobody.here@example.com';
    const reply = await http(`${store.node.url}/onscreen?api_key=${store.vendor.apiKey}`, { method: 'POST', body: { card_number: unknown } });
    expect(reply.status).toBe(404);
    const message: string = reply.body.error.errors[0].message;
    expect(message.length).toBeGreaterThan(5);

    await page.getByTestId('check-in-input').fill(unknown);
    await page.getByRole('form', { name: 'Check in' }).getByRole('button', { name: 'Check in', exact: true }).click();
    const error = page.getByTestId('check-in-error');
    await expectText(error, message);
    expect(await error.getAttribute('role')).toBe('alert');
    expect(await queueNames(store)).toEqual([chloe.name]);
  });

  it('a keyboard-wedge scan (a fast burst ending in Enter) checks the customer in; slow typing does not', async () => {
    // Typed by hand into the check-in box: stays in the box, nothing is posted.
    const box = page.getByTestId('check-in-input');
    await box.fill('');
    await box.click();
    await page.keyboard.type(dev.card, { delay: 250 });
    expect(await box.inputValue()).toBe(dev.card);
    await box.fill('');

    // A scanner's burst outside any field.
    await page.getByRole('heading', { name: 'Queue' }).click();
    const posted = page.waitForRequest((r) => r.url().includes('/app/scans') && r.method() === 'POST');
    await typeAsScanner(page, dev.card);
    expect(JSON.parse((await posted).postData() ?? '{}')).toEqual({ line: dev.card });

    await queueEntry(dev.name).waitFor();
    expect(await queueNames(store)).toEqual([chloe.name, dev.name]);

    // A burst into the focused check-in box: sent as a scan (not submitted as typed text), and the
    // scanned text taken out of the box again.
    await closeSessionOf(dev);
    await expectCount(queueEntry(dev.name), 0);
    await box.click();
    const before = requests.length;
    const scanned = page.waitForRequest((r) => r.url().includes('/app/scans') && r.method() === 'POST');
    await typeAsScanner(page, dev.card);
    expect(JSON.parse((await scanned).postData() ?? '{}')).toEqual({ line: dev.card });
    await queueEntry(dev.name).waitFor();
    expect(await box.inputValue()).toBe('');
    expect(requests.slice(before).filter((r) => r.method() === 'POST').map((r) => new URL(r.url()).pathname)).toEqual(['/app/scans']);
    await expectCount(page.getByTestId('check-in-error'), 0);
    // As after a typed check-in, the keys are the panel's again: the box lets go of the focus, and O
    // opens the order instead of typing "o" in the box.
    await expectText(panel().getByTestId('customer-name'), dev.name);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)).not.toBe('check-in-input');
    await page.keyboard.press('o');
    await page.getByRole('dialog').waitFor();
    expect(await box.inputValue()).toBe('');
    await page.keyboard.press('Escape');
    await expectCount(page.getByRole('dialog'), 0);
  });

  it('works by keyboard alone: move in the queue, open, order with Ctrl+Enter, close with X', async () => {
    // Leave any field; the queue holds Chloé then Dev.
    await page.getByRole('heading', { name: 'Queue' }).click();
    expect(await queueNames(store)).toEqual([chloe.name, dev.name]);
    await page.keyboard.press('F2');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('check-in-input');
    await page.keyboard.press('Escape');

    // Highlight Chloé (J/K, arrows), open her with Enter.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await page.waitForTimeout(100);
    await page.keyboard.press('Enter');
    await expectText(panel().getByTestId('customer-name'), chloe.name);
    await expectAttribute(points(), 'data-amount', '310');

    // O opens the order form (its subtotal has the focus); Ctrl+Enter places the order.
    await page.keyboard.press('o');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
    await page.keyboard.type('7.80', { delay: 120 });
    await page.keyboard.press('Control+Enter');
    await dialog.waitFor({ state: 'detached' });
    await expectAttribute(points(), 'data-amount', '317');
    expect((await balancesOf(store, chloe)).points).toBe(317);
    await expectCount(queueEntry(chloe.name), 0);

    // Dev is next: open him, X asks, Enter confirms the close.
    await queueEntry(dev.name).click();
    await expectText(panel().getByTestId('customer-name'), dev.name);
    await page.getByRole('heading', { name: 'Queue' }).click();
    await page.keyboard.press('x');
    await expectText(page.getByRole('dialog'), `${dev.name} leaves the queue`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Close session');
    await page.keyboard.press('Enter');
    await expectCount(queueEntry(dev.name), 0);
    await page.getByTestId('queue-empty').waitFor();
    expect(await queueNames(store)).toEqual([]);

    // F2, a card typed and Enter: the customer comes up and O opens the order, not an "o" in the box.
    await page.keyboard.press('F2');
    await page.keyboard.type(ben.card, { delay: 150 }); // a person's pace: not a scanner's burst
    await page.keyboard.press('Enter');
    await expectText(panel().getByTestId('customer-name'), ben.name);
    await page.keyboard.press('o');
    await page.getByRole('dialog').waitFor();
    expect(await page.getByTestId('check-in-input').inputValue()).toBe('');
    await page.keyboard.press('Escape');
    await closeSessionOf(ben);
    await page.getByTestId('queue-empty').waitFor();
  });

  it('asks before placing an unusually large amount: Esc goes back to the form, Enter confirms', async () => {
    expect(await store.scan(chloe.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), chloe.name);
    const pointsBefore = (await balancesOf(store, chloe)).points;
    await page.getByRole('heading', { name: 'Queue' }).click();
    await page.keyboard.press('o');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // The form takes the focus a moment after it shows (Mantine's focus trap, on a timer): keys typed before are lost.
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
    const orders = () => requests.filter((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/order').length;
    const ordersBefore = orders();

    // 1000000 typed for 10.00, and Enter in the box: the form asks instead of placing it.
    await page.keyboard.type('1000000', { delay: 120 });
    await page.keyboard.press('Enter');
    const ask = dialog.getByTestId('order-large-amount');
    await expectText(ask, 'Is this amount right?');
    await expectText(ask, 'Subtotal: $1,000,000.00');
    await expectAttribute(page.locator(':focus'), 'aria-keyshortcuts', 'Enter');
    expect(await page.locator(':focus').innerText()).toMatch(/^Yes, place the order/);
    // Ctrl+Enter while it asks places nothing either.
    await page.keyboard.press('Control+Enter');
    await page.waitForTimeout(200);
    expect(orders()).toBe(ordersBefore);

    // Esc goes back to the form (still open), to the amount to fix.
    await page.keyboard.press('Escape');
    await expectCount(ask, 0);
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
    expect(await dialog.isVisible()).toBe(true);
    expect(orders()).toBe(ordersBefore);

    // A large amount meant: Enter on the question places it. A second earning rule gives points too:
    // the result names each rule with its part of the total.
    const bonusRule = await inStoreApi(() => store.node).addRule(store.vendor, { name: 'Big spender bonus', points: 1, per_amount: 200, rounding: 'floor' });
    await page.keyboard.press('Control+a');
    await page.keyboard.type('12000', { delay: 120 });
    await page.keyboard.press('Control+Enter');
    await expectText(ask, 'Subtotal: $12,000.00');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect(orders()).toBe(ordersBefore + 1);
    await expectText(panel().getByTestId('order-result'), 'Points earned: 18,000 (1 point per unit spent: 12,000, Big spender bonus: 6,000)');
    expect((await balancesOf(store, chloe)).points).toBe(pointsBefore + 18_000);
    await store.node.engine.db.updateTable('earning_rules').set({ status: 'INACTIVE' }).where('id', '=', bonusRule).execute();
    await closeAllSessions(store);
    await page.getByTestId('queue-empty').waitFor();
  });

  it('"Add item" hands the focus to the new line\'s name box; a large items total is asked about as the items total', async () => {
    expect(await store.scan(ben.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), ben.name);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Add item' }).click();
    await expectAttribute(page.locator(':focus'), 'aria-label', 'Item 1');
    await page.keyboard.type('Latte', { delay: 120 });
    await page.keyboard.press('Tab');
    await expectAttribute(page.locator(':focus'), 'aria-label', 'Qty 1');
    // A second line: its own name box, the first keeps what was typed.
    await dialog.getByRole('button', { name: 'Add item' }).click();
    await expectAttribute(page.locator(':focus'), 'aria-label', 'Item 2');
    expect(await dialog.getByLabel('Item 1', { exact: true }).inputValue()).toBe('Latte');

    // Items alone, the subtotal box empty: a large total is asked about as what it is, the items' total.
    await dialog.getByRole('button', { name: 'Remove item 2' }).click();
    await dialog.getByLabel('Qty 1', { exact: true }).fill('2');
    await dialog.getByLabel('Price 1', { exact: true }).fill('6000');
    await page.keyboard.press('Control+Enter');
    const ask = dialog.getByTestId('order-large-amount');
    await expectText(ask, 'Items total: $12,000.00');
    await expectCount(ask.getByText(/Subtotal/), 0);
    // Esc goes back to where that amount is typed: the item's price.
    await page.keyboard.press('Escape');
    await expectCount(ask, 0);
    await expectAttribute(page.locator(':focus'), 'aria-label', 'Price 1');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await closeAllSessions(store);
    await page.getByTestId('queue-empty').waitFor();
  });

  it("an auto reload the order queued shows on the panel when it arrives: the quick-pay balance follows, 'on its way' goes", async () => {
    const eva = await seedCustomer(store, { firstName: 'Eva', lastName: 'Ruiz', card: 'CAFE0005', quickPayCents: 1_000 });
    const session = await loginOkAt(store.node, eva.email, 'e2e password 1', store.vendor.vendorId);
    const payments = paymentsApi(() => store.node);
    const profile = await payments.addProfileOk(session.session_identifier);
    await payments.putSettingsOk(session.session_identifier, { amount: 25, threshold: 5, user_billingprofile: profile.id });
    expect(await store.scan(eva.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), eva.name);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('order-subtotal').fill('9');
    await dialog.getByTestId('order-quick-pay').fill('9');
    await dialog.getByRole('button', { name: /^Place order/ }).click();
    await dialog.waitFor({ state: 'detached' });
    const result = panel().getByTestId('order-result');
    await expectText(result, 'a reload is on its way');
    await expectAttribute(quickPay(), 'data-amount', '1');

    // The node charges her card (its worker; no event tells the screen): the panel finds it in her history.
    await drainAutoReloads(store.node.engine);
    await expectText(panel().getByTestId('history-row').first().getByTestId('history-what'), 'Auto reload');
    await expectText(result, 'Auto reload of $25.00 arrived: quick pay is now $26.00.');
    await expectCount(result.getByText(/on its way/), 0);
    await expectAttribute(quickPay(), 'data-amount', '26');
    await expectText(quickPay(), '$26.00');
    await closeAllSessions(store);
    await page.getByTestId('queue-empty').waitFor();
  });

  it('registers a new customer by email at the counter: checked in and shown at once', async () => {
    await page.getByRole('button', { name: /^Register customer/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('By email', { exact: true }).click();
    await dialog.getByLabel('Email address').fill('eva.novak@example.com');
    await dialog.getByLabel('First name (optional)').fill('Eva');
    await dialog.getByLabel('Last name (optional)').fill('Novak');
    await dialog.getByRole('button', { name: 'Register and check in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('customer-name'), 'Eva Novak');
    await expectAttribute(points(), 'data-amount', '0');
    await expectCount(page.getByText(/is already a customer/), 0);
    await queueEntry('Eva Novak').waitFor();
    expect(await queueNames(store)).toEqual(['Eva Novak']);
    await closeAllSessions(store);
    await page.getByTestId('queue-empty').waitFor();
  });

  it('says so when the contact registered belongs to a customer already (checked in as they are)', async () => {
    await page.getByRole('button', { name: /^Register customer/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('By email', { exact: true }).click();
    await dialog.getByLabel('Email address').fill(chloe.email);
    await dialog.getByLabel('First name (optional)').fill('Someone Else');
    await dialog.getByRole('button', { name: 'Register and check in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('customer-name'), chloe.name);
    await expectText(page.getByText(`${chloe.name} is already a customer`), `${chloe.name} is already a customer`);
    await closeAllSessions(store);
    await page.getByTestId('queue-empty').waitFor();
  });

  it('adds the email the counter gives to a guest it registered by phone, so they can claim the app', async () => {
    const contactsOf = (phone: string) => store.node.engine.db.selectFrom('users').select(['first_name', 'email', 'phone']).where('phone', '=', phone).execute();
    // A guest registered by phone alone, earlier.
    await page.getByRole('button', { name: /^Register customer/ }).click();
    let dialog = page.getByRole('dialog');
    await dialog.getByLabel('Mobile number', { exact: true }).fill('(415) 555-0142');
    await dialog.getByRole('button', { name: 'Register and check in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('customer-name'), 'Guest');
    expect(await contactsOf('+14155550142')).toEqual([{ first_name: 'Guest', email: null, phone: '+14155550142' }]);
    // Back at the counter: found by that phone, with an email given too.
    await page.getByRole('button', { name: /^Register customer/ }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('Mobile number', { exact: true }).fill('4155550142');
    await dialog.getByLabel('Email address (optional)').fill('gia.rossi@example.com');
    await dialog.getByRole('button', { name: 'Register and check in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('customer-name'), 'Guest');
    expect(await contactsOf('+14155550142')).toEqual([{ first_name: 'Guest', email: 'gia.rossi@example.com', phone: '+14155550142' }]);
    expect((await queueNames(store)).map((name) => name.trim())).toEqual(['Guest']);
    await closeAllSessions(store);
    await page.getByTestId('queue-empty').waitFor();
  });

  it('marks a flagged account on the panel (an offline overdraft central flagged)', async () => {
    await store.node.engine.db.updateTable('user_vendors').set({ flagged: 1, flagged_reason: 'offline_overdraft' }).where('user_id', '=', dev.userId).execute();
    // Offline sales spent more points than he had: the balance is below zero.
    const { points: before } = await balancesOf(store, dev);
    await inStoreApi(() => store.node).credit(store.vendor, store.vendor.loyaltyCurrencyId, dev.userId, -(before + 6));
    expect(await store.scan(dev.card)).toMatchObject({ ok: true });
    await expectText(panel().getByTestId('customer-name'), dev.name);
    await expectText(panel().getByTestId('customer-flagged'), 'Flagged');
    // Shown with the minus sign the history uses (−), not Intl's hyphen.
    await expectAttribute(points(), 'data-amount', '-6');
    await expectText(points(), /^−6$/);
    await closeAllSessions(store);
    await page.getByTestId('queue-empty').waitFor();
  });

  it("settings list the node's scanner", async () => {
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await settings.waitFor();
    await expectText(settings.getByTestId('scanner-row'), SCANNER_ID);
    await expectText(settings.getByTestId('settings-terminal'), 'Market Street');
    await page.getByRole('banner').getByRole('button', { name: 'Back' }).click();
    await queue().waitFor();
  });

  it('says so when the node goes away', async () => {
    await store.node.app.close();
    const banner = page.getByTestId('offline-banner');
    await expectText(banner, 'Lost the connection to the store node', 15_000);
    expect(await banner.getAttribute('role')).toBe('alert');
    expect(await page.getByRole('form', { name: 'Check in' }).getByRole('button', { name: 'Check in', exact: true }).isDisabled()).toBe(true);
  });

  async function closeSessionOf(customer: SeededCustomer): Promise<void> {
    const api = inStoreApi(() => store.node);
    const entry = (await api.queueOk(store.vendor.apiKey)).find((e: any) => e.pos_session.user.first_name === customer.firstName);
    await api.closeOk(store.vendor.apiKey, entry.pos_session.hash);
  }
});
