import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { registerOkAt, ROOMY_RATE_LIMITS } from '../support/customers';
import { expectAttribute, expectCount, expectText, saveScreenshot, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// The back office for keyboard and screen-reader users and at 200%/400% zoom, in Chromium: no page
// scrolls sideways at 320 CSS px, every row's controls say which row, refusals are tied to their
// field, results are read out, blocking asks first, and the screens' headings and charts make sense.
describe('back office accessibility in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let customerId: number;
  let customerEmail: string;

  beforeAll(async () => {
    // Every test signs in afresh (the reduced-motion one twice): past the staff sign-in limit, the last one's page stayed on the sign-in form.
    node = await startTestNode({ rendererDir: builtRendererForTests(), rateLimits: ROOMY_RATE_LIMITS });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    const program = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body;
    const points = program.currencies.find((c: { code: string | null }) => c.code === null).id;
    const add = async (kind: string, body: object) => expect((await staffCall(node, owner.token, 'POST', `/backoffice/program/${kind}`, body)).status).toBe(201);
    await add('earning-rules', { name: 'Birthday bonus', currency: points, points: 5, per_amount: 1 });
    await add('rewards', { name: 'Muffin', cost: 80, currency: points });
    await add('rewards', { name: 'Latte', cost: 120, currency: points });
    await add('tiers', { name: 'Silver', threshold: 100 });
    await add('tiers', { name: 'Gold', threshold: 500 });
    for (const label of ['Front till', 'Back till']) {
      expect((await staffCall(node, owner.token, 'POST', `/backoffice/stores/${vendor.storeId}/keys`, { role: 'cashier', label })).status).toBe(201);
    }
    const registered = await registerOkAt(node, vendor.vendorId, { first_name: 'Bruno', last_name: 'Paz' });
    customerEmail = registered.email;
    customerId = registered.user.id;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  /** Signed in at `#/<route>` in a window `width` CSS px wide (320: 1280 px at 400% zoom), once `ready` shows. */
  async function openAt(route: string, width: number, ready: (page: Page) => Locator): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 700 }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin#/${route}`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await ready(page).first().waitFor();
    return page;
  }

  /** How far the page scrolls sideways, and what sticks out past the window (outside any box of its own that scrolls or clips). */
  const sideways = (page: Page) =>
    page.evaluate(() => {
      const inScrollBox = (el: Element) => {
        for (let up = el.parentElement; up; up = up.parentElement) if (getComputedStyle(up).overflowX !== 'visible') return true;
        return false;
      };
      const out = [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > innerWidth + 1 && !inScrollBox(el))
        .map((el) => `${el.tagName.toLowerCase()} ${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}`);
      return { overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth, out: out.slice(0, 8) };
    });

  /** The names of a table's row buttons and fields (aria-label, else the text), in order. */
  const rowControlNames = (table: Locator) =>
    table.evaluate((el) => [...el.querySelectorAll('tbody button, tbody input:not([type=hidden]), tbody a')].filter((c) => c.getAttribute('tabindex') !== '-1').map((c) => c.getAttribute('aria-label') ?? c.textContent?.trim() ?? ''));

  const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? (document.activeElement as HTMLElement | null)?.innerText.trim() ?? null);

  it('the Program page at 320 px: no sideways scrolling, every row button on screen, names that say which row', async () => {
    const page = await openAt('program', 320, (p) => p.getByRole('table', { name: 'Rewards' }));
    expect(await sideways(page)).toEqual({ overflow: 0, out: [] });
    const save = page.getByRole('button', { name: 'Save Birthday bonus', exact: true });
    await save.scrollIntoViewIfNeeded();
    const box = await save.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(320);
    await saveScreenshot(page, 'backoffice-program-320px');
    for (const table of ['Earning rules', 'Rewards', 'Tiers', 'Currencies']) {
      const names = await rowControlNames(page.getByRole('table', { name: table }));
      expect(names.length).toBeGreaterThan(2);
      expect(new Set(names).size, `${table}: ${names.join(' | ')}`).toBe(names.length);
    }
    for (const name of ['Rename Birthday bonus', 'Pause Birthday bonus', 'Edit Muffin', 'Pause Latte', 'Edit Gold', 'Rename Points']) {
      await expectCount(page.getByRole('button', { name, exact: true }), 1);
    }
    await expectCount(page.getByRole('spinbutton', { name: 'Per amount spent (Birthday bonus)', exact: true }).or(page.getByRole('textbox', { name: 'Per amount spent (Birthday bonus)', exact: true })), 1);
    // Each add form is a group named for what it adds; its fields keep their short labels.
    for (const group of ['New earning rule', 'New reward', 'New tier', 'New currency']) {
      await expectCount(page.getByRole('group', { name: group }).getByRole('textbox', { name: 'Name', exact: true }), 1);
    }
    // One h1 names the screen; no column header is empty.
    await expectText(page.getByRole('heading', { level: 1 }), 'Program');
    expect(await page.locator('th').evaluateAll((ths) => ths.filter((th) => th.textContent?.trim() === '').length)).toBe(0);
    await page.context().close();
  });

  it("an earning rule's refused Save marks the field it is about and points to the message", async () => {
    const page = await openAt('program', 1280, (p) => p.getByRole('table', { name: 'Earning rules' }));
    const row = page.getByRole('row', { name: 'Birthday bonus' });
    const points = row.getByRole('textbox', { name: 'Points (Birthday bonus)', exact: true });
    await points.fill('0');
    await row.getByRole('button', { name: 'Save Birthday bonus', exact: true }).click();
    await expectText(page.getByRole('alert'), 'must be at least 1');
    await expectAttribute(points, 'aria-invalid', 'true');
    const describedBy = (await points.getAttribute('aria-describedby')) ?? '';
    expect(describedBy).not.toBe('');
    await expectText(page.locator(`[id="${describedBy}"]`), 'must be at least 1');
    // The other rules' fields are not marked.
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(1);
    await page.context().close();
  });

  it('the header at 200% (640 px) shows Sign out and Sign out everywhere whole', async () => {
    const page = await openAt('dashboard', 640, (p) => p.getByRole('table', { name: 'Figures' }));
    for (const name of ['Sign out', 'Sign out everywhere']) {
      const cut = await page.getByRole('button', { name, exact: true }).evaluate((b) => {
        const label = b.querySelector('.mantine-Button-label') ?? b;
        return label.scrollWidth > label.clientWidth + 1 || b.getBoundingClientRect().right > innerWidth;
      });
      expect(cut, name).toBe(false);
    }
    expect(await sideways(page)).toEqual({ overflow: 0, out: [] });
    await page.context().close();
  });

  it('the dashboard: headings in order, figures headed, charts named and out of the tab order', async () => {
    const page = await openAt('dashboard', 320, (p) => p.getByRole('table', { name: 'Figures' }));
    expect(await sideways(page)).toEqual({ overflow: 0, out: [] });
    const levels = await page.locator('h1, h2, h3, h4, h5, h6').evaluateAll((hs) => hs.map((h) => Number(h.tagName[1])));
    expect(levels[0]).toBe(1);
    levels.forEach((level, i) => i > 0 && expect(level - levels[i - 1]!, `levels ${levels.join(',')}`).toBeLessThanOrEqual(1));
    expect(await page.getByRole('table', { name: 'Figures' }).getByRole('columnheader').allTextContents()).toEqual(['Figure', 'Today', 'Last 30 days']);
    const charts = page.getByRole('img', { name: /^Chart: / });
    await expectCount(charts, 2);
    expect(await charts.first().getAttribute('aria-label')).toMatch(/^Chart: Check-ins and orders per day, \d\d\d\d-\d\d-\d\d to \d\d\d\d-\d\d-\d\d\. The totals are in the table “Figures”\.$/);
    const tabStops = await page.locator('[role="img"] [tabindex]:not([tabindex="-1"]), [role="img"] a, [role="img"] button').count();
    expect(tabStops).toBe(0);
    await expectCount(page.getByRole('application'), 0);
    await page.context().close();
  });

  it('the stores: each Keys link and Revoke says which; the dialog opens on Cancel; an empty label is marked', async () => {
    const page = await openAt('stores', 320, (p) => p.getByRole('table', { name: 'Stores' }));
    expect(await sideways(page)).toEqual({ overflow: 0, out: [] });
    const links = await rowControlNames(page.getByRole('table', { name: 'Stores' }));
    expect(new Set(links).size).toBe(links.length);
    await page.getByRole('link', { name: /^Keys of / }).first().click();
    const keys = page.getByRole('table', { name: /^API keys of / });
    await keys.waitFor();
    expect(await sideways(page)).toEqual({ overflow: 0, out: [] });
    const names = await rowControlNames(keys);
    expect(names).toEqual(expect.arrayContaining(['Revoke Front till', 'Revoke Back till']));
    expect(new Set(names).size).toBe(names.length);

    await page.getByRole('button', { name: 'Revoke Front till', exact: true }).click();
    await page.getByRole('dialog').waitFor();
    await expect.poll(() => focusedName(page)).toBe('Cancel');
    await page.keyboard.press('Enter');
    await expectCount(page.getByRole('dialog'), 0);
    expect(await keys.getByRole('row', { name: 'Front till' }).textContent()).not.toContain('Revoked');

    const label = page.getByRole('textbox', { name: 'Label' });
    await label.fill('');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    await expectText(page.getByRole('alert'), 'Label must not be empty.');
    await expectAttribute(label, 'aria-invalid', 'true');
    await expectText(page.locator(`[id="${await label.getAttribute('aria-describedby')}"]`), 'Label must not be empty.');
    await page.context().close();
  });

  it('a dialog opens without its fade where the system asks to reduce motion, and with it elsewhere', async () => {
    // The longest transition any element was given while the dialog opened (Mantine sets it inline).
    const longestTransition = async (motion: 'reduce' | 'no-preference') => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 700 }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: motion });
      const page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT);
      await page.addInitScript(() => {
        (window as unknown as { longest: number }).longest = 0;
        new MutationObserver((changes) => {
          for (const change of changes) {
            const ms = parseFloat((change.target as HTMLElement).style?.transitionDuration ?? '') || 0;
            const w = window as unknown as { longest: number };
            w.longest = Math.max(w.longest, ms);
          }
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['style'] });
      });
      await page.goto(`${node.url}/admin#/stores`);
      await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
      await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: /^Keys of / }).first().click();
      await page.getByRole('table', { name: /^API keys of / }).waitFor();
      await page.evaluate(() => ((window as unknown as { longest: number }).longest = 0));
      await page.getByRole('button', { name: 'Revoke Front till', exact: true }).click();
      await page.getByRole('dialog').waitFor();
      await expect.poll(() => focusedName(page)).toBe('Cancel');
      const longest = await page.evaluate(() => (window as unknown as { longest: number }).longest);
      await context.close();
      return longest;
    };
    expect(await longestTransition('no-preference')).toBeGreaterThan(0);
    expect(await longestTransition('reduce')).toBe(0);
  });

  it('customers at 320 px: the search says what it found; a balance refusal marks its field', async () => {
    const page = await openAt('customers', 320, (p) => p.getByRole('button', { name: 'Search' }));
    expect(await sideways(page)).toEqual({ overflow: 0, out: [] });
    const search = async (text: string) => {
      await page.getByRole('textbox', { name: 'Email, phone, card or name' }).fill(text);
      await page.getByRole('button', { name: 'Search' }).click();
    };
    // The region is on the page before any search, so what it then says is read out. An owner's
    // page has a second, below: the members download's (seventeenth round).
    await expectCount(page.getByRole('status'), 2);
    const found = page.getByRole('status').first();
    await search('nobody-at-all@nowhere.test');
    await expectText(found, 'No customer matches.');
    await search(customerEmail);
    await expectText(found, '1 customer found.');
    expect(await sideways(page)).toEqual({ overflow: 0, out: [] });

    await page.getByRole('link', { name: 'Bruno Paz' }).click();
    await page.getByRole('table', { name: 'Balances' }).waitFor();
    expect(await sideways(page)).toEqual({ overflow: 0, out: [] });
    // Two reasons, two names: the adjustment's and the block's.
    await expectCount(page.getByRole('textbox', { name: 'Reason for the adjustment (required)', exact: true }), 1);
    await expectCount(page.getByRole('textbox', { name: 'Reason to block (required)', exact: true }), 1);
    await expectCount(page.getByRole('group', { name: 'Adjust a balance' }), 1);

    await page.getByRole('button', { name: 'Adjust balance' }).click();
    const currency = page.getByRole('combobox', { name: 'Currency' });
    await expectAttribute(currency, 'aria-invalid', 'true');
    await expectText(page.locator(`[id="${await currency.getAttribute('aria-describedby')}"]`), 'Choose the currency to adjust.');
    await currency.click();
    await page.getByRole('option', { name: 'Points' }).click();
    await page.getByRole('textbox', { name: /Amount/ }).fill('5');
    await page.getByRole('button', { name: 'Adjust balance' }).click();
    const reason = page.getByRole('textbox', { name: 'Reason for the adjustment (required)' });
    await expectAttribute(reason, 'aria-invalid', 'true');
    expect(await currency.getAttribute('aria-invalid')).toBeNull();
    await page.context().close();
  });

  it("staff rows: each button says whose; Esc cancels a Rename", async () => {
    await invitedStaff(node, owner, 'manager');
    const page = await openAt('staff', 1280, (p) => p.getByRole('table', { name: 'Staff' }));
    const table = page.getByRole('table', { name: 'Staff' });
    await expectCount(table.getByRole('button', { name: /^Rename / }), 2);
    const names = await rowControlNames(table);
    expect(new Set(names).size, names.join(' | ')).toBe(names.length);
    await table.getByRole('button', { name: 'Rename The manager', exact: true }).click();
    const field = table.getByRole('textbox', { name: 'Name (The manager)', exact: true });
    await field.fill('Someone else');
    await field.press('Escape');
    await expectCount(field, 0);
    expect((await staffCall(node, owner.token, 'GET', '/backoffice/staff')).body.items.map((m: { name: string }) => m.name)).toContain('The manager');
    await page.context().close();
  });

  it('Block asks first, with the focus on Cancel; the result is read out and the focus goes to what replaced the button', async () => {
    const page = await openAt(`customers/${customerId}`, 1280, (p) => p.getByRole('table', { name: 'Balances' }));
    const blocked = async () => (await staffCall(node, owner.token, 'GET', `/backoffice/customers/${customerId}`)).body.blocked;
    await page.getByRole('textbox', { name: 'Reason to block (required)' }).fill('Repeated chargebacks');
    await page.getByRole('button', { name: 'Block', exact: true }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Block Bruno Paz?' });
    await dialog.waitFor();
    await expect.poll(() => focusedName(page)).toBe('Cancel');
    // A second Enter (the one that used to block at once) cancels.
    await page.keyboard.press('Enter');
    await expectCount(dialog, 0);
    expect(await blocked()).toBe(false);

    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await dialog.getByRole('button', { name: 'Yes, block' }).click();
    await expectText(page.getByRole('status'), 'Blocked: check-ins and orders are refused.');
    expect(await blocked()).toBe(true);
    await expect.poll(() => focusedName(page)).toBe('Unblock');
    await page.keyboard.press('Enter');
    await expectText(page.getByRole('status'), 'Unblocked: the customer can check in and order again.');
    expect(await blocked()).toBe(false);
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent ?? null)).toMatch(/^Reason to block/);
    await page.context().close();
  });
});
