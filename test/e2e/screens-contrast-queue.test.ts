import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectAttribute, expectText, openScreen } from '../support/e2e-browser';
import { type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { inStoreApi } from '../support/in-store';
import { borderContrast, textContrasts } from './screens-contrast';

// The cashier queue's colours as Chromium paints them, in every state a row can be in: the teal
// border of the highlighted row (3:1, WCAG 1.4.11) against its own background and the list's, and
// every text in the queue — names, "Checked in at", the count and method badges — at 4.5:1 (1.4.3).
describe('cashier queue: highlight border and dimmed text at WCAG AA in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;
  let maria: SeededCustomer;
  let ana: SeededCustomer;

  const queue = () => page.getByTestId('queue');
  const rowOf = (customer: SeededCustomer) => queue().getByRole('listitem', { name: customer.name }).getByRole('button');

  beforeAll(async () => {
    store = await startE2eStore();
    maria = await seedCustomer(store, { firstName: 'Maria', lastName: 'Queue', card: 'QCON0001', points: 10 });
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'Queue', card: 'QCON0002', points: 10 });
    const api = inStoreApi(() => store.node);
    await api.checkInOk(store.vendor.apiKey, maria.card);
    await api.checkInOk(store.vendor.apiKey, ana.card);
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    await page.getByTestId('queue-count').getByText('2 waiting').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('the highlighted row’s border is 3:1 on a closed row and on the open one, and every queue text 4.5:1', async () => {
    // Open Ana: her row is open (teal) and highlighted.
    await rowOf(ana).click();
    await expectText(page.getByTestId('customer-panel').getByTestId('customer-name'), ana.name);
    await expectAttribute(rowOf(ana), 'aria-current', 'true');
    const open = await borderContrast(rowOf(ana));
    expect(open.width).toBe('2px');
    expect(open.ratio, `open row ${JSON.stringify(open)}`).toBeGreaterThanOrEqual(3);

    // Move the highlight to Maria's row (closed, grey) without opening it.
    await rowOf(ana).focus();
    await page.keyboard.press(await rowOf(maria).evaluate((el) => (el.closest('li')?.previousElementSibling ? 'ArrowDown' : 'ArrowUp')));
    await expect.poll(() => rowOf(maria).evaluate((el) => getComputedStyle(el).borderTopColor !== 'rgba(0, 0, 0, 0)' && getComputedStyle(el).borderTopColor !== 'transparent')).toBe(true);
    const closed = await borderContrast(rowOf(maria));
    expect(closed.ratio, `closed row ${JSON.stringify(closed)}`).toBeGreaterThanOrEqual(3);
    // Hovered, it keeps it.
    await rowOf(maria).hover();
    expect((await borderContrast(rowOf(maria))).ratio).toBeGreaterThanOrEqual(3);

    // Every text in the queue, the open row's and the others'.
    const texts = await textContrasts(queue(), 'p, h2, [class*="Badge-label"], span');
    expect(texts.map((t) => t.name)).toEqual(expect.arrayContaining([ana.name, maria.name, '2 WAITING']));
    expect(texts.filter((t) => t.ratio < 4.5)).toEqual([]);
  });
});
