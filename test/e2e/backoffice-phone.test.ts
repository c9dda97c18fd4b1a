import type { FastifyInstance } from 'fastify';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { ManualClock } from '../support/clock';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { expectText, saveScreenshot, UI_TIMEOUT } from '../support/e2e-browser';
import { centralWithBackOffice } from '../support/e2e-central';
import { builtRendererForTests } from '../support/e2e-renderer';
import { paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';
import type { CentralHandle } from '../sync/support/chain';

// Seventeenth round: the owner of a café chain on their phone (390 × 844, touch, Chromium's mobile
// emulation) in the back office, built and tested at desktop widths. On every tab, in English and
// Spanish: the page never scrolls sideways, the sections are one tap away (a button of 44 px in the
// header opens them; the nine tabs had wrapped into four rows, and with the header half the first
// screen went before any figure), the screen's own content starts in the top quarter, and the main
// buttons are 44 px high. By touch: a customer found and opened, their balance adjusted, the
// statement's month changed. Screenshots to $PHONE_SHOTS when set (a folder), to look at.

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
/** A touch target a thumb hits: Apple's 44 pt, Android's 48 dp. */
const THUMB = 44;

const WORDS = {
  en: {
    menu: 'Sections and sign-out',
    nav: 'Back office sections',
    sections: ['Dashboard', 'Program', 'Stores & keys', 'Customers', 'Import members', 'Payment exceptions', 'Webhooks', 'Staff', 'Audit log'],
    signOut: 'Sign out',
  },
  es: {
    menu: 'Secciones y cierre de sesión',
    nav: 'Secciones de la administración',
    sections: ['Panel', 'Programa', 'Tiendas y claves', 'Clientes', 'Importar socios', 'Excepciones de pago', 'Avisos (webhooks)', 'Personal', 'Registro de cambios'],
    signOut: 'Cerrar sesión',
  },
} as const;

async function phonePage(browser: Browser, url: string, email: string, language: 'en' | 'es', route: string): Promise<Page> {
  const context = await browser.newContext({ ...PHONE, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT);
  await page.addInitScript((l) => localStorage.setItem('punchcard.language', l), language);
  await page.goto(`${url}/admin#/${route}`);
  await page.locator('input[type="email"], input[type="text"]').first().fill(email);
  await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
  await page.locator('button[type="submit"]').tap();
  await page.getByRole('tabpanel').waitFor();
  return page;
}

/** Waits until the screen has shown its content (not "Loading…"), then a moment for late parts. */
async function settled(page: Page): Promise<void> {
  const panel = page.getByRole('tabpanel');
  await expect.poll(async () => ((await panel.count()) === 1 ? ((await panel.innerText()).trim().length > 0 && !/Loading|Cargando/.test(await panel.innerText())) : false), { timeout: UI_TIMEOUT }).toBe(true);
  await page.waitForLoadState('networkidle');
}

async function shot(page: Page, name: string): Promise<void> {
  if (process.env.PHONE_SHOTS) await page.screenshot({ path: `${process.env.PHONE_SHOTS}/${name}.png`, fullPage: true });
}

function sideways(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}

/** The element's box: wholly inside the window sideways, and how big. */
async function box(target: Locator): Promise<{ inside: boolean; width: number; height: number; top: number }> {
  return target.evaluate((el) => {
    const b = el.getBoundingClientRect();
    return { inside: b.width > 0 && b.left >= -1 && b.right <= window.innerWidth + 1, width: b.width, height: b.height, top: b.top + window.scrollY };
  });
}

/** The sections' button in the header: on screen, thumb-sized; it opens every section, each on screen and thumb-high. */
async function sectionsReachable(page: Page, language: 'en' | 'es', sections: readonly string[]): Promise<Locator> {
  const w = WORDS[language];
  const menu = page.getByRole('button', { name: w.menu });
  const b = await box(menu);
  expect(b.inside, 'the sections button is on screen').toBe(true);
  expect(Math.min(b.width, b.height), 'the sections button fits a thumb').toBeGreaterThanOrEqual(THUMB);
  await menu.tap();
  const nav = page.getByRole('navigation', { name: w.nav });
  await nav.waitFor();
  for (const name of sections) {
    const link = nav.getByRole('link', { name, exact: false }).first();
    // The drawer slides in: its links are on screen once it has.
    await expect.poll(async () => (await box(link)).inside, { message: name }).toBe(true);
    expect((await box(link)).height, name).toBeGreaterThanOrEqual(THUMB);
  }
  expect(await box(page.getByRole('dialog').getByRole('button', { name: w.signOut, exact: true }))).toMatchObject({ inside: true });
  return nav;
}

describe('the back office on a phone (390 × 844, touch)', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let anaId = 0;
  const pay = paymentsApi(() => node);

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests(), rateLimits: ROOMY_RATE_LIMITS });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    const ana = await signUpAt(node, vendor.vendorId, { first_name: 'Ana', last_name: 'Phone' });
    anaId = ana.userId;
    const card = await pay.addProfileOk(ana.key);
    await pay.reloadOk(ana.key, { user_billingprofile: card.id, amount: 40 });
    const hook = await staffCall(node, owner.token, 'POST', '/backoffice/webhooks', { url: 'https://hooks.example.com/a/long/path/for/the/punchcard/events', events: ['order.placed'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  for (const language of ['en', 'es'] as const) {
    it(`every tab in ${language === 'en' ? 'English' : 'Spanish'}: no sideways scroll, the sections one tap away, the content in the first screen, thumb-high buttons`, async () => {
      const page = await phonePage(browser, node.url, owner.email, language, 'dashboard');
      expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches), 'Chromium emulates a touch screen').toBe(true);
      const routes = ['dashboard', 'program', 'stores', `stores/${vendor.storeId}`, 'customers', `customers/${anaId}`, 'import', 'payment-exceptions', 'webhooks', 'staff', 'audit'];
      for (const route of routes) {
        await page.goto(`${node.url}/admin#/${route}`);
        await settled(page);
        await shot(page, `${language}-${route.replace('/', '-')}`);
        const size = await sideways(page);
        expect(size.scrollWidth, `${route}: the page scrolls sideways`).toBeLessThanOrEqual(size.innerWidth);
        // The screen's own content starts in the first quarter of the screen, under a short header.
        expect((await box(page.getByRole('tabpanel'))).top, `${route}: where the content starts`).toBeLessThanOrEqual(844 / 4);
        // Every button of the screen on show is thumb-high (a table's row buttons too).
        const small = await page.getByRole('tabpanel').evaluate((panel) =>
          [...panel.querySelectorAll<HTMLElement>('button')]
            .filter((b) => b.getBoundingClientRect().height > 0 && b.getBoundingClientRect().height < 44 && !b.closest('.mantine-Input-section, .mantine-NumberInput-controls, .mantine-Pagination-root'))
            .map((b) => `${b.innerText.trim() || b.getAttribute('aria-label')} ${Math.round(b.getBoundingClientRect().height)}px`),
        );
        expect(small, `${route}: buttons under ${THUMB} px`).toEqual([]);
        const nav = await sectionsReachable(page, language, WORDS[language].sections);
        if (route === 'dashboard') await shot(page, `${language}-sections`);
        // The section on show is the current one; tapping it closes the sections.
        const here = nav.locator('[aria-current="page"]');
        await here.tap();
        await nav.waitFor({ state: 'hidden' });
      }
      // A section is a tap away: the staff list from the audit log.
      await page.getByRole('button', { name: WORDS[language].menu }).tap();
      await page.getByRole('navigation', { name: WORDS[language].nav }).getByRole('link', { name: WORDS[language].sections[7] }).tap();
      await expect.poll(() => new URL(page.url()).hash).toBe('#/staff');
      await page.getByRole('table').first().waitFor();
      await page.context().close();
    });
  }

  it('by touch: a customer found and opened, their balance adjusted', async () => {
    const page = await phonePage(browser, node.url, owner.email, 'en', 'dashboard');
    await page.getByRole('button', { name: WORDS.en.menu }).tap();
    const nav = page.getByRole('navigation', { name: WORDS.en.nav });
    await nav.getByRole('link', { name: 'Customers' }).waitFor();
    await saveScreenshot(page, 'backoffice-phone-menu');
    await nav.getByRole('link', { name: 'Customers' }).tap();
    const search = page.getByRole('textbox', { name: 'Email, phone, card or name' });
    await search.tap();
    await search.fill('Ana');
    const find = page.getByRole('button', { name: 'Search' });
    expect((await box(find)).height).toBeGreaterThanOrEqual(THUMB);
    await find.tap();
    await page.getByRole('link', { name: /Ana Phone/ }).tap();
    const balances = page.getByRole('table', { name: 'Balances' });
    await expectText(balances.getByRole('row', { name: /Quick Pay/ }), '$40.00');

    const currency = page.getByRole('combobox', { name: 'Currency' });
    await currency.tap();
    await page.getByRole('option', { name: /Quick Pay/ }).tap();
    const amount = page.getByRole('textbox', { name: 'Amount (negative to debit)' });
    await amount.tap();
    await amount.fill('2.50');
    await page.getByRole('textbox', { name: 'Reason for the adjustment (required)' }).fill('Coffee spilt, at the customer’s request');
    const adjust = page.getByRole('button', { name: 'Adjust balance' });
    const a = await box(adjust);
    expect(a.inside).toBe(true);
    expect(a.height).toBeGreaterThanOrEqual(THUMB);
    await adjust.tap();
    const confirm = page.getByRole('dialog');
    if (await confirm.count()) {
      const d = await box(confirm.first());
      expect(d.inside, 'the dialog fits the screen').toBe(true);
    }
    await expectText(balances.getByRole('row', { name: /Quick Pay/ }), '$42.50');
    await saveScreenshot(page, 'backoffice-phone-customer');
    const size = await sideways(page);
    expect(size.scrollWidth).toBeLessThanOrEqual(size.innerWidth);
    await page.context().close();
  });

  it('the phone turned sideways with the menu open: the menu closes, the page scrolls, the tabs work', async () => {
    const page = await phonePage(browser, node.url, owner.email, 'en', 'dashboard');
    await page.getByRole('button', { name: WORDS.en.menu }).tap();
    await page.getByRole('navigation', { name: WORDS.en.nav }).waitFor();
    await page.setViewportSize({ width: 844, height: 390 });
    // Wider than 576 px the drawer is hidden: left open, its scroll lock held the page still.
    await page.getByRole('navigation', { name: WORDS.en.nav }).waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.body).overflow)).not.toBe('hidden');
    await page.mouse.move(400, 300);
    await page.mouse.wheel(0, 400);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await page.getByRole('tab', { name: 'Customers' }).tap();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/customers');
    await page.context().close();
  });

  it('a table wider than the phone shades the edge it goes on beyond, and the other once scrolled', async () => {
    const page = await phonePage(browser, node.url, owner.email, 'en', `customers/${anaId}`);
    await settled(page);
    // The customer's ledger is wider than 390 px: shaded on the right only.
    const cut = page.locator('[data-table-scroll][data-more-right]');
    await expect.poll(() => cut.count()).toBeGreaterThan(0);
    // The same element throughout (the locator above stops matching once it is scrolled).
    const frame = (await cut.first().elementHandle())!;
    expect(await frame.getAttribute('data-more-left')).toBeNull();
    const shade = (side: '::before' | '::after') => frame.evaluate((el, s) => getComputedStyle(el, s).opacity, side);
    await expect.poll(() => shade('::after')).toBe('1');
    expect(await shade('::before')).toBe('0');
    // Scrolled to its end: the shade moves to the left.
    await frame.evaluate((el) => el.firstElementChild!.scrollTo({ left: el.firstElementChild!.scrollWidth }));
    await expect.poll(() => frame.getAttribute('data-more-left')).toBe('true');
    expect(await frame.getAttribute('data-more-right')).toBeNull();
    await expect.poll(() => shade('::before')).toBe('1');
    // As wide as a laptop's window, the same tables fit: no shade.
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect.poll(() => page.locator('[data-table-scroll][data-more-right], [data-table-scroll][data-more-left]').count()).toBe(0);
    await page.context().close();
  });

  it('by touch: the statement’s month changed', async () => {
    const page = await phonePage(browser, node.url, owner.email, 'en', 'dashboard');
    const section = page.getByRole('region', { name: 'Statement of a period' });
    const now = new Date();
    const twoBack = new Date(Date.UTC(now.getFullYear(), now.getMonth() - 2, 1));
    const label = new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(twoBack);
    const month = section.getByRole('combobox', { name: 'Month' });
    await month.scrollIntoViewIfNeeded();
    expect((await box(month)).height).toBeGreaterThanOrEqual(THUMB);
    await month.tap();
    await page.getByRole('option', { name: label }).tap();
    const first = `${twoBack.getUTCFullYear()}-${String(twoBack.getUTCMonth() + 1).padStart(2, '0')}-01`;
    await expect.poll(() => section.getByLabel('From').inputValue()).toBe(first);
    const show = section.getByRole('button', { name: 'Show' });
    expect((await box(show)).height).toBeGreaterThanOrEqual(THUMB);
    await show.tap();
    await section.getByRole('table', { name: 'Statement', exact: true }).waitFor();
    const size = await sideways(page);
    expect(size.scrollWidth).toBeLessThanOrEqual(size.innerWidth);
    await page.context().close();
  });
});

describe('the chain page at central on a phone', () => {
  const clock = new ManualClock(Date.now());
  let central: CentralHandle;
  let app: FastifyInstance;
  let url: string;
  let owner: SignedInStaff;
  let browser: Browser;

  beforeAll(async () => {
    ({ central, app, url, owner } = await centralWithBackOffice(clock));
    const code = await http(`${url}/sync/pairing-codes`, { method: 'POST', token: central.vendor.accessToken, body: { store: central.vendor.storeId } });
    const credential = (await http(`${url}/sync/pair`, { method: 'POST', body: { code: code.body.code, label: 'Counter PC at the back of the Norte store' } })).body.credential as string;
    clock.advance(120_000);
    const pushed = await http(`${url}/sync/push`, {
      method: 'POST',
      token: credential,
      body: { events: [{ node_seq: 1, event_id: 'evt-1', type: 'local.write', offline: true, created_at: clock.now(), changes: [{ tbl: 'vendors', op: 'upsert', data: { id: 1 } }] }] },
    });
    expect(pushed.body.results[0].verdict).toBe('rejected');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await central?.close();
  });

  for (const language of ['en', 'es'] as const) {
    it(`a store's nodes and exceptions in ${language === 'en' ? 'English' : 'Spanish'}: no sideways scroll, the exception's button on screen and thumb-high`, async () => {
      const page = await phonePage(browser, url, owner.email, language, `stores/${central.vendor.storeId}`);
      const exceptions = page.getByRole('table', { name: language === 'en' ? 'Sync exceptions to resolve' : /excepciones/i });
      await exceptions.waitFor();
      await settled(page);
      await shot(page, `${language}-chain`);
      const size = await sideways(page);
      expect(size.scrollWidth).toBeLessThanOrEqual(size.innerWidth);
      expect((await box(page.getByRole('tabpanel'))).top).toBeLessThanOrEqual(844 / 4);
      await sectionsReachable(page, language, WORDS[language].sections);
      await page.context().close();
    });
  }
});
