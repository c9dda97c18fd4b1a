import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen, saveScreenshot } from '../support/e2e-browser';
import { type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';

// The cashier screen in Chromium with a busy counter: twenty-odd customers waiting (the queue
// scrolls inside itself and the customer panel stays in view), a small 1024×768 screen (reward
// badges and a long unbroken name wrap inside their boxes), and rewards that cost more together than
// the customer's points (the order form lets tick only what the points left cover, and says why).
describe('cashier screen layout and rewards in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  const waiting: SeededCustomer[] = [];

  const queue = () => page.getByTestId('queue');
  const panel = () => page.getByTestId('customer-panel');
  const box = async (locator: Locator) => {
    const b = await locator.boundingBox();
    expect(b, 'the element is on the page').not.toBeNull();
    return b!;
  };

  beforeAll(async () => {
    store = await startE2eStore();
    const api = inStoreApi(() => store.node);
    const firstNames = 'Abel Berta Carlos Diana Elena Fabio Gloria Hugo Inés Jorge Karina Luis Marta Nicolás Olga Pablo Quique Rosa Sergio Teresa Úrsula Víctor'.split(' ');
    for (const [i, firstName] of firstNames.entries()) {
      waiting.push(await seedCustomer(store, { firstName, lastName: 'Quiroz', card: `LINE${String(i).padStart(4, '0')}`, points: 450, quickPayCents: 1_000 }));
    }
    for (const customer of waiting) await api.checkInOk(store.vendor.apiKey, customer.card);
    // Rewards with long names and costs: their badges must show whole at 1024 px.
    await api.addReward(store.vendor, { name: 'Free coffee', cost: 100 });
    await api.addReward(store.vendor, { name: 'Breakfast for two with fresh orange juice', cost: 400 });
    await api.addReward(store.vendor, { name: 'Tote bag', cost: 5_000 });
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    await page.getByTestId('queue-count').getByText(`${waiting.length} waiting`).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('a long queue scrolls inside itself: the last customer opens by keyboard and the panel stays in view', async () => {
    const viewport = page.viewportSize()!;
    // The queue fits the window; its list scrolls.
    const queueBox = await box(queue());
    expect(queueBox.y + queueBox.height, JSON.stringify(queueBox)).toBeLessThanOrEqual(viewport.height);
    const list = queue().getByRole('list');
    expect(await list.evaluate((ul) => ul.scrollHeight > ul.clientHeight)).toBe(true);

    // Down the whole queue with the keyboard, then open the last one.
    await queue().getByTestId('queue-entry').first().getByRole('button').focus();
    for (let i = 1; i < waiting.length; i++) {
      await page.keyboard.press('ArrowDown');
    }
    const last = waiting[waiting.length - 1]!;
    await expectAttribute(page.locator(':focus'), 'data-queue-row', await queue().getByRole('listitem', { name: last.name }).getAttribute('data-hash') ?? '');
    await page.keyboard.press('Enter');
    await expectText(panel().getByTestId('customer-name'), last.name);
    await saveScreenshot(page, 'cashier-long-queue');

    // The last row is shown inside the list, and the panel's name is on screen: the page did not scroll it away.
    const row = await box(queue().getByRole('listitem', { name: last.name }));
    const listBox = await box(list);
    expect(row.y + row.height, JSON.stringify({ row, listBox })).toBeLessThanOrEqual(listBox.y + listBox.height + 1);
    const name = await box(panel().getByTestId('customer-name'));
    expect(name.y, JSON.stringify(name)).toBeGreaterThanOrEqual(0);
    expect(name.y + name.height).toBeLessThanOrEqual(viewport.height);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);

    // A narrow screen stacks the queue above the panel: the queue takes under half the window, so the panel shows below it.
    await page.setViewportSize({ width: 800, height: 1000 });
    await expect.poll(async () => (await box(queue())).height).toBeLessThanOrEqual(450);
    const stackedName = await box(panel().getByTestId('customer-name'));
    expect(stackedName.y + stackedName.height, JSON.stringify(stackedName)).toBeLessThanOrEqual(1000);
    await page.setViewportSize(viewport);
  });

  it('J/K pressed while the focus is elsewhere (the language switch) bring the highlighted row into view with the focus, so Enter opens the row the cashier sees', async () => {
    const list = queue().getByRole('list');
    const first = waiting[0]!;
    await queue().getByRole('listitem', { name: first.name }).getByRole('button').click();
    await expectText(panel().getByTestId('customer-name'), first.name);
    // The cashier switches the screen to Spanish: the focus stays on the switch.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    expect(await page.evaluate(() => document.activeElement?.closest('[data-queue-row]') === null)).toBe(true);

    // J twenty-one times, as a person types (single letters wait for a quiet moment), one K back.
    // Each key once the last one has moved the focus: a letter acts on a 50 ms timer that the next key
    // cancels, so a fixed pause between keys lost a J on a loaded machine.
    const rowHash = async (customer: SeededCustomer) => (await queue().getByRole('listitem', { name: customer.name }).getAttribute('data-hash')) ?? '';
    for (let i = 1; i <= 21; i++) {
      await page.keyboard.press('j');
      await expectAttribute(page.locator(':focus'), 'data-queue-row', await rowHash(waiting[i]!));
    }
    await page.keyboard.press('k');
    const target = waiting[20]!;
    await expectAttribute(page.locator(':focus'), 'data-queue-row', await rowHash(target));
    // The highlighted row is in the list's visible part.
    const row = await box(queue().getByRole('listitem', { name: target.name }));
    const listBox = await box(list);
    expect(row.y, JSON.stringify({ row, listBox })).toBeGreaterThanOrEqual(listBox.y - 1);
    expect(row.y + row.height, JSON.stringify({ row, listBox })).toBeLessThanOrEqual(listBox.y + listBox.height + 1);
    await page.keyboard.press('Enter');
    await expectText(panel().getByTestId('customer-name'), target.name);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
  });

  it('at 1024×768 the reward badges and a long unbroken name wrap inside their boxes', async () => {
    const long = await seedCustomer(store, { firstName: 'Maximiliana', lastName: 'Wolfeschlegelsteinhausenbergerdorffvoralternwaren', card: 'LONG0001', points: 450 });
    await inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, long.card);
    await page.setViewportSize({ width: 1024, height: 768 });
    await queue().getByRole('listitem', { name: long.name }).getByRole('button').click();
    await expectText(panel().getByTestId('customer-name'), long.name);
    const rewards = panel().getByRole('list', { name: 'Rewards' });
    await expectText(rewards.getByRole('listitem', { name: 'Breakfast for two with fresh orange juice' }), /400 Points/);
    await saveScreenshot(page, 'cashier-1024');

    /** Elements whose content is wider than they are (cut, or spilling out). */
    const overflowing = (selector: string) =>
      panel()
        .locator(selector)
        .evaluateAll((elements) => elements.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => `${e.textContent} (${e.scrollWidth} > ${e.clientWidth})`));
    expect(await overflowing('[data-testid="reward"] .mantine-Badge-label')).toEqual([]);
    expect(await overflowing('[data-testid="customer-name"]')).toEqual([]);
    const panelBox = await box(panel());
    const nameBox = await box(panel().getByTestId('customer-name'));
    expect(nameBox.x + nameBox.width, JSON.stringify({ nameBox, panelBox })).toBeLessThanOrEqual(panelBox.x + panelBox.width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);

    // The order dialog names the customer inside its box too.
    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await saveScreenshot(page, 'cashier-1024-order');
    expect(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth + 1)).toBe(true);
    const title = await box(dialog.locator('.mantine-Modal-title'));
    const dialogBox = await box(dialog);
    expect(title.x + title.width, JSON.stringify({ title, dialogBox })).toBeLessThanOrEqual(dialogBox.x + dialogBox.width);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('the order form lets tick only the rewards the points left after the ticked ones cover, and says why', async () => {
    // Rosa has 450 points: Free coffee (100), Breakfast (400) and Tote bag (5,000) are offered.
    const rosa = waiting.find((c) => c.firstName === 'Rosa')!;
    await queue().getByRole('listitem', { name: rosa.name }).getByRole('button').click();
    await expectText(panel().getByTestId('customer-name'), rosa.name);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    const coffee = dialog.getByRole('checkbox', { name: /^Free coffee/ });
    const breakfast = dialog.getByRole('checkbox', { name: /^Breakfast for two/ });
    const bag = dialog.getByRole('checkbox', { name: /^Tote bag/ });
    await coffee.waitFor();
    const why = (checkbox: Locator) => checkbox.locator('xpath=ancestor::*[contains(@class,"mantine-Checkbox-root")][1]').locator('.mantine-Checkbox-description');
    expect([await coffee.isDisabled(), await breakfast.isDisabled(), await bag.isDisabled()]).toEqual([false, false, true]);
    await expectText(why(bag), 'The customer has 450 Points: not enough for this reward.');

    // Breakfast ticked leaves 50 points: the coffee cannot join it, and says so.
    await breakfast.check();
    await expect.poll(() => coffee.isDisabled()).toBe(true);
    await expectText(why(coffee), 'Only 50 Points left after the rewards ticked: untick one to choose this.');
    expect(await breakfast.isDisabled()).toBe(false);
    await saveScreenshot(page, 'cashier-rewards-left');

    // Unticked, the coffee is free again; the coffee ticked leaves 350, short of the breakfast.
    await breakfast.uncheck();
    await expect.poll(() => coffee.isDisabled()).toBe(false);
    await expectCount(why(coffee), 0);
    await coffee.check();
    await expect.poll(() => breakfast.isDisabled()).toBe(true);
    await expectText(why(breakfast), 'Only 350 Points left after the rewards ticked');

    // The coffee alone is what the node takes.
    await dialog.getByTestId('order-subtotal').fill('4.50');
    await dialog.getByRole('button', { name: /^Place order/ }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('order-result'), /Points redeemed: 100 \(Free coffee\)/);
  });
});
