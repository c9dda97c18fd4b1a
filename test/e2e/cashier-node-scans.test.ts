import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectCount, expectText, openScreen, typeAsScanner } from '../support/e2e-browser';
import { type E2eStore, queueNames, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';

// Two counters of one store in Chromium, each with its own cashier screen (its own browser), on a
// real headless store node whose scripted scanner sits at the first counter. The second counter
// turns off "Scans at the node’s scanners open the customer here" in its Settings: a scan at the
// node opens the customer on the first screen only, both queues list them, and the second counter's
// own keyboard-wedge scan still opens its panel.

describe('two cashier screens of one store, the node’s scans left to one of them', () => {
  let store: E2eStore;
  let browser: Browser;
  let first: Page;
  let second: Page;
  let ana: SeededCustomer;
  let ben: SeededCustomer;

  const panel = (page: Page) => page.getByTestId('customer-panel');
  const queueEntry = (page: Page, name: string) => page.getByTestId('queue').getByRole('listitem', { name, exact: true });
  const nodeScansSwitch = (page: Page) => page.getByRole('region', { name: 'Settings' }).getByTestId('node-scans').getByRole('switch');

  async function openSettings(page: Page): Promise<void> {
    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('region', { name: 'Settings' }).waitFor();
  }

  async function backToQueue(page: Page): Promise<void> {
    await page.getByRole('banner').getByRole('button', { name: 'Back' }).click();
    await page.getByTestId('queue').waitFor();
  }

  beforeAll(async () => {
    store = await startE2eStore();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'CAFE0001', points: 120 });
    ben = await seedCustomer(store, { firstName: 'Ben', lastName: 'Okafor', card: 'CAFE0002', points: 45 });
    browser = await launchChromium();
    ({ page: first } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    ({ page: second } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    await first.getByTestId('queue-empty').waitFor();
    await second.getByTestId('queue-empty').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('the second counter turns the setting off in its Settings, and its browser keeps it', async () => {
    await openSettings(second);
    expect(await nodeScansSwitch(second).isChecked()).toBe(true);
    await nodeScansSwitch(second).click({ force: true });
    expect(await nodeScansSwitch(second).isChecked()).toBe(false);
    await second.reload();
    await openSettings(second);
    expect(await nodeScansSwitch(second).isChecked()).toBe(false);
    await backToQueue(second);
    // The first counter's browser is not touched: on, as every screen starts.
    await openSettings(first);
    expect(await nodeScansSwitch(first).isChecked()).toBe(true);
    await backToQueue(first);
  });

  it('a scan at the node opens the customer on the first screen only; both queues list them', async () => {
    expect(await store.scan(ana.card)).toMatchObject({ ok: true });
    await expectText(panel(first).getByTestId('customer-name'), ana.name);
    await queueEntry(second, ana.name).waitFor();
    await queueEntry(first, ana.name).waitFor();
    // The second screen heard the same event: give it time to (wrongly) open the panel.
    await second.waitForTimeout(1_500);
    await panel(second).getByTestId('customer-none').waitFor();
    await expectCount(panel(second).getByTestId('customer-name'), 0);
    expect(await queueNames(store)).toEqual([ana.name]);
  });

  it('a keyboard-wedge scan at the second counter still opens its own panel', async () => {
    await second.getByRole('heading', { name: 'Queue' }).click();
    await typeAsScanner(second, ben.card);
    await expectText(panel(second).getByTestId('customer-name'), ben.name);
    await queueEntry(first, ben.name).waitFor();
    // The first counter is busy with Ana: Ben waits in its queue.
    await expectText(panel(first).getByTestId('customer-name'), ana.name);
  });
});
