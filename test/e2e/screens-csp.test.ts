import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, STAFF_PASSWORD } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { signUpAt, withSessionKey } from '../support/customers';
import { expectText, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { closeAllSessions, type E2eStore, seedCustomer, type SeededCustomer, startE2eStore } from '../support/e2e-store';
import { http } from '../support/test-node';

// Every page a store node serves, in Chromium under the node's CSP (security-headers.ts): the
// cashier, the kiosk, the back office, the join page and the API docs load and take a basic
// interaction with no CSP violation, no console error and no page error; a page of ours framed by
// another origin is refused.
describe('screens under the CSP in Chromium', () => {
  let store: E2eStore;
  let browser: Browser;
  let ana: SeededCustomer;
  let ownerEmail: string;
  let referralUrl: string;
  const contexts: BrowserContext[] = [];

  /** What went wrong on a page: CSP violations (from the documents' own events), console errors, uncaught errors. */
  interface Problems {
    violations: string[];
    consoleErrors: string[];
    pageErrors: string[];
  }

  /** A fresh page that reports every `securitypolicyviolation` of its documents, console error and page error. */
  async function watchedPage(): Promise<{ page: Page; problems: Problems }> {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US', reducedMotion: 'reduce' });
    contexts.push(context);
    context.setDefaultTimeout(UI_TIMEOUT);
    const problems: Problems = { violations: [], consoleErrors: [], pageErrors: [] };
    await context.exposeBinding('reportCspViolation', (_source, text: string) => void problems.violations.push(text));
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        (window as unknown as { reportCspViolation(text: string): void }).reportCspViolation(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`);
      });
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      // The join page names no icon, so Chromium asks for /favicon.ico (404): not a CSP matter.
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) problems.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => problems.pageErrors.push(error.message));
    return { page, problems };
  }

  /** The page really ran under the CSP: the node sent it with the page's document. */
  async function expectUnderCsp(page: Page, path: string): Promise<void> {
    const response = await page.goto(`${store.node.url}${path}`);
    expect(response, path).not.toBeNull();
    expect(await response!.headerValue('content-security-policy'), path).toContain("script-src 'self'");
  }

  function expectNoProblems(problems: Problems): void {
    expect(problems).toEqual({ violations: [], consoleErrors: [], pageErrors: [] });
  }

  beforeAll(async () => {
    store = await startE2eStore();
    ana = await seedCustomer(store, { firstName: 'Ana', lastName: 'López', card: 'CAFE0001', points: 120, quickPayCents: 2_500 });
    ownerEmail = (await ownerOf(store.node, store.vendor.vendorId)).email;
    const referrer = await signUpAt(store.node, store.vendor.vendorId, { first_name: 'Rhea' });
    referralUrl = (await http(`${store.node.url}${withSessionKey('/user/profile', referrer.key)}`)).body.referral_url;
    expect(referralUrl).toMatch(/\/join\?/);
    browser = await launchChromium();
  }, 120_000);

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    await closeAllSessions(store);
  });

  afterAll(async () => {
    await browser?.close();
    await store?.close();
  });

  /** Signs a screen in with a store key at the login form, once its event stream is answered. */
  async function signInScreen(page: Page, apiKey: string): Promise<void> {
    await expectUnderCsp(page, '/');
    // The stream opens once signed in: waited for from here, so a failed load above leaves no waiter behind.
    const stream = page.waitForResponse((response) => new URL(response.url()).pathname === '/app/events' && response.status() === 200, { timeout: UI_TIMEOUT * 2 });
    await page.getByLabel('Store key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('login').waitFor({ state: 'detached' });
    await stream;
  }

  it('the cashier screen: a scan on the node brings the customer up', async () => {
    const { page, problems } = await watchedPage();
    await signInScreen(page, store.vendor.apiKey);
    expect(await store.scan(ana.card)).toMatchObject({ ok: true });
    const panel = page.getByTestId('customer-panel');
    await expectText(panel.getByTestId('customer-name'), ana.name);
    await expectText(panel.getByTestId('quick-pay-balance'), '$25.00');
    // A dialog (Mantine's portal and transitions) opens and closes.
    await panel.getByRole('button', { name: /^Place order/ }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expectNoProblems(problems);
  });

  it('the kiosk: a customer types their card and is welcomed', async () => {
    const { page, problems } = await watchedPage();
    await signInScreen(page, store.vendor.kioskApiKey);
    const kiosk = page.getByTestId('kiosk');
    await kiosk.getByTestId('kiosk-idle').getByRole('button', { name: 'Type it instead' }).click();
    const form = kiosk.getByTestId('kiosk-type');
    await form.getByLabel('Card number, phone or email').fill(ana.card);
    await form.getByRole('button', { name: 'Check in', exact: true }).click();
    await expectText(kiosk.getByTestId('kiosk-welcome').getByTestId('kiosk-welcome-name'), 'Welcome, Ana!');
    expectNoProblems(problems);
  });

  it('the back office at /admin: the owner signs in, sees the dashboard and searches customers', async () => {
    const { page, problems } = await watchedPage();
    await expectUnderCsp(page, '/admin');
    await page.getByRole('textbox', { name: 'Email' }).fill(ownerEmail);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    await page.getByRole('tab', { name: 'Customers' }).click();
    await page.getByRole('textbox', { name: 'Email, phone, card or name' }).fill(ana.email);
    await page.getByRole('button', { name: 'Search' }).click();
    await expectText(page.getByRole('table', { name: 'Customers found' }).getByRole('row').filter({ hasText: ana.name }), new RegExp(ana.name));
    expectNoProblems(problems);
  });

  it('the join page: a friend signs up through its form', async () => {
    const { page, problems } = await watchedPage();
    await expectUnderCsp(page, new URL(referralUrl).pathname + new URL(referralUrl).search);
    await page.getByLabel('First name').fill('Noor');
    await page.getByLabel('Last name').fill('Haddad');
    await page.getByLabel('Email address').fill('noor.csp@example.com');
    await page.getByLabel('Password (8 characters or more)').fill('friendly password');
    await page.getByLabel('I accept the terms of the program').check();
    await page.getByRole('button', { name: 'Join' }).click();
    await expectText(page.getByTestId('joined'), 'Welcome, Noor!');
    expectNoProblems(problems);
  });

  it('the API docs at /docs render the operations', async () => {
    const { page, problems } = await watchedPage();
    await expectUnderCsp(page, '/docs');
    await page.locator('.opblock').first().waitFor();
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    expectNoProblems(problems);
  });

  describe('framed by another origin', () => {
    let other: Server;
    let otherUrl: string;
    beforeAll(async () => {
      // Another origin (another port) whose page frames the node's screens.
      other = createServer((request, response) => {
        const path = new URL(request.url ?? '/', 'http://x').searchParams.get('path') ?? '/';
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(`<!doctype html><title>elsewhere</title><iframe id="framed" src="${store.node.url}${path}" width="800" height="600"></iframe>`);
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));

    it('refuses to show the cashier, the back office and the join page in a frame', async () => {
      for (const path of ['/', '/admin', new URL(referralUrl).pathname + new URL(referralUrl).search]) {
        const { page, problems } = await watchedPage();
        const framed = page.waitForResponse((response) => response.url().startsWith(store.node.url) && response.request().frame() !== page.mainFrame());
        await page.goto(`${otherUrl}/?path=${encodeURIComponent(path)}`);
        await framed;
        // Chromium swaps a refused frame's document for its error page: the node's page never runs there.
        await expect.poll(() => page.frames().find((f) => f !== page.mainFrame())?.url(), { timeout: UI_TIMEOUT }).toMatch(/^chrome-error:/);
        const frame = page.frames().find((f) => f !== page.mainFrame())!;
        expect(await frame.locator('#root, form').count(), path).toBe(0);
        expect(problems.consoleErrors.join('\n'), path).toMatch(/frame-ancestors 'none'/);
      }
    });
  });
});
