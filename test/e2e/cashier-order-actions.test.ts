import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectCount, expectText, openScreen } from '../support/e2e-browser';
import { type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';

// The order dialog on a small touch screen (1024×768) with five rewards offered: its fields scroll,
// and Place order stays at the dialog's foot, in sight, never below the fold (it was: a touch
// cashier had to scroll the dialog to reach it). The keyboard still places the order, and the
// large-amount question shows by the button.
describe('the order dialog’s actions at 1024×768', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  let ana: SeededCustomer;
  const VIEW = { width: 1024, height: 768 };
  const panel = () => page.getByTestId('customer-panel');

  beforeAll(async () => {
    store = await startE2eStore();
    const api = inStoreApi(() => store.node);
    for (const [name, cost] of [
      ['Free coffee', 100],
      ['Breakfast for two with fresh orange juice', 400],
      ['Slice of cake of the day', 150],
      ['Tote bag', 900],
      ['Bag of house-roasted beans (250 g)', 600],
    ] as const)
      await api.addReward(store.vendor, { name, cost });
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Touch', card: 'TOUCH0001', points: 120, quickPayCents: 5_000 });
    // 120 points: the dearer rewards say why they cannot be ticked, as a counter's often do (taller rows).
    await api.checkInOk(store.vendor.apiKey, ana.card);
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    await page.setViewportSize(VIEW);
  });

  // A test that failed with the dialog open leaves the next one a clean screen.
  afterEach(async () => {
    if ((await page.getByRole('dialog').count()) === 0) return;
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  /** The element is inside the window, inside the dialog's visible part, and nothing covers it. */
  async function expectInSight(locator: Locator, what: string): Promise<void> {
    const seen = await locator.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const content = el.closest('.mantine-Modal-content')!.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return {
        inWindow: r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth,
        inDialog: r.top >= content.top && r.bottom <= content.bottom,
        uncovered: hit !== null && el.contains(hit),
        box: [r.top, r.bottom, content.top, content.bottom, window.innerHeight],
      };
    });
    expect(seen, what).toMatchObject({ inWindow: true, inDialog: true, uncovered: true });
  }

  async function openOrder(): Promise<Locator> {
    await page.getByTestId('queue').getByRole('listitem', { name: ana.name }).getByRole('button').click();
    await expectText(panel().getByTestId('customer-name'), ana.name);
    await panel().getByRole('button', { name: /^Place order/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('checkbox', { name: /^Bag of house-roasted beans/ }).waitFor();
    return dialog;
  }

  it('Place order is in sight as the dialog opens and while its fields scroll; the last reward scrolls clear of it', async () => {
    const dialog = await openOrder();
    const content = dialog.locator('xpath=ancestor-or-self::*[contains(@class,"mantine-Modal-content")][1]');
    // Five rewards make the dialog taller than the screen: its fields scroll.
    const sizes = await content.evaluate((c) => ({ scroll: c.scrollHeight, client: c.clientHeight }));
    expect(sizes.scroll > sizes.client + 20, JSON.stringify(sizes)).toBe(true);
    const place = dialog.getByRole('button', { name: /^Place order/ });
    await expectInSight(place, 'Place order, dialog just opened');
    const box = await place.boundingBox();
    expect(box !== null && box.y >= 0 && box.y + box.height <= VIEW.height, JSON.stringify(box)).toBe(true);

    // Scrolled to the middle and to the end: still in sight; the last reward is not under it.
    await content.evaluate((c) => c.scrollTo(0, c.scrollHeight / 2));
    await expectInSight(place, 'Place order, scrolled halfway');
    await content.evaluate((c) => c.scrollTo(0, c.scrollHeight));
    await expectInSight(place, 'Place order, scrolled to the end');
    await expectInSight(dialog.getByRole('checkbox', { name: /^Bag of house-roasted beans/ }), 'the last reward, scrolled to the end');

    // Touch: a reward ticked at the foot and Place order tapped, no scrolling between.
    await content.evaluate((c) => c.scrollTo(0, 0));
    await dialog.getByTestId('order-subtotal').fill('3.20');
    await dialog.getByRole('checkbox', { name: /^Free coffee/ }).check();
    await expectInSight(place, 'Place order, a reward ticked');
    await place.click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('order-result'), /Points redeemed: 100 \(Free coffee\)/);
  });

  it('the keyboard still places the order (Ctrl+Enter), and the large-amount question shows by the button', async () => {
    await inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, ana.card);
    const dialog = await openOrder();
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
    await page.keyboard.type('1000000', { delay: 60 });
    await page.keyboard.press('Control+Enter');
    const ask = dialog.getByTestId('order-large-amount');
    await expectText(ask, 'Is this amount right?');
    await expectInSight(ask.getByRole('button', { name: /^Yes, place the order/ }), 'the question’s confirm button');
    await page.keyboard.press('Escape');
    await expectCount(ask, 0);
    await expectAttribute(page.locator(':focus'), 'data-testid', 'order-subtotal');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('4.00', { delay: 60 });
    await page.keyboard.press('Control+Enter');
    await dialog.waitFor({ state: 'detached' });
    await expectText(panel().getByTestId('order-result'), /Order complete|Points earned/);
  });

  it('at the tests’ usual 1280×800 the dialog still fits its width and shows Place order', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await inStoreApi(() => store.node).checkInOk(store.vendor.apiKey, ana.card);
    const dialog = await openOrder();
    expect(await dialog.evaluate((d) => d.scrollWidth <= d.clientWidth + 1)).toBe(true);
    await expectInSight(dialog.getByRole('button', { name: /^Place order/ }), 'Place order at 1280×800');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.setViewportSize(VIEW);
  });
});
