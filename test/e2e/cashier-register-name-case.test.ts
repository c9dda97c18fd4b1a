import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectFocusInDialog, expectText, openScreen } from '../support/e2e-browser';
import { type E2eStore, startE2eStore } from '../support/e2e-store';

// The cashier screen in Chromium against a real store node: a name typed in lower case in the
// register dialog was kept so ("mia"), while the kiosk capitalises each word. The dialog now types
// names as the kiosk does, and leaves the cashier's own capitals (and what follows them) alone.
describe('cashier screen: names typed in the register dialog start each word with a capital', () => {
  let store: E2eStore;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    store = await startE2eStore();
    browser = await launchChromium();
    ({ page } = await openScreen(browser, store.node.url, store.vendor.apiKey));
    await page.getByTestId('queue-empty').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  it('"mia" "de la cruz-ortiz" joins as Mia De La Cruz-Ortiz; "mcDonald jr" keeps what followed the capital typed', async () => {
    await page.getByRole('button', { name: /^Register customer/ }).click();
    const dialog = page.getByRole('dialog');
    // The focus trap's late focus would pull the focus out of a name box as it is typed into.
    await expectFocusInDialog(page);
    await dialog.getByText('By email', { exact: true }).click();
    await dialog.getByLabel('Email address').fill('mia@example.com');
    const first = dialog.getByLabel('First name (optional)');
    const last = dialog.getByLabel('Last name (optional)');
    await first.pressSequentially('mia');
    await last.pressSequentially('de la cruz-ortiz');
    expect([await first.inputValue(), await last.inputValue()]).toEqual(['Mia', 'De La Cruz-Ortiz']);
    // A letter typed in the middle of a word stays as typed (the caret stays where it was).
    await first.press('End');
    await first.press('ArrowLeft');
    await first.pressSequentially('r');
    expect(await first.inputValue()).toBe('Mira');
    await first.press('End');
    await first.press('Backspace');
    await first.press('Backspace');
    await first.pressSequentially('a');
    expect(await first.inputValue()).toBe('Mia');

    await dialog.getByRole('button', { name: 'Register and check in' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectText(page.getByTestId('customer-panel').getByTestId('customer-name'), 'Mia De La Cruz-Ortiz');
    const saved = await store.node.engine.db.selectFrom('users').select(['first_name', 'last_name']).where('email', '=', 'mia@example.com').executeTakeFirstOrThrow();
    expect(saved).toEqual({ first_name: 'Mia', last_name: 'De La Cruz-Ortiz' });

    await page.getByRole('button', { name: /^Register customer/ }).click();
    await dialog.waitFor();
    // The same: the trap's late focus would pull the focus out of the last name as it is typed into.
    await expectFocusInDialog(page);
    await dialog.getByText('By email', { exact: true }).click();
    await dialog.getByLabel('Last name (optional)').pressSequentially('mcDonald jr');
    expect(await dialog.getByLabel('Last name (optional)').inputValue()).toBe('McDonald jr');
  });
});
