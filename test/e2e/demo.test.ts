import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { expectCount, expectFocusInDialog, expectText, openScreen, saveScreenshot, typeAsScanner } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { killLeftovers, launch, type Running, stopWith, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// What a newcomer sees (issue 16): `punchcard demo` on a fresh data folder, the browser signed in
// with the cashier key the banner prints, every identification the banner lists checked in at the
// counter, an unlinked card registering a new customer, and the kiosk greeting a demo customer.
// The README's screenshots of the cashier (English and Spanish), Settings and the kiosk come from
// here (UPDATE_SCREENSHOTS=1), so they show what a newcomer sees.

describe('the demo in Chromium', () => {
  const dir = makeTempDir('punchcard-demo-e2e-');
  let demo: Running;
  let url: string;
  let cashierKey: string;
  let kioskKey: string;
  let tries: Array<{ kind: string; value: string; name: string | null }>;
  let browser: Browser;
  let page: Page;

  const panel = () => page.getByTestId('customer-panel');

  beforeAll(async () => {
    demo = launch(['demo', '--data', dir.path, '--port', '0', '--renderer', builtRendererForTests()]);
    const banner = await waitFor(
      'the demo banner',
      () => {
        const out = demo.stdout();
        const found = {
          url: /demo store node: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1],
          cashierKey: /cashier key\s+(pcak_\S+)/.exec(out)?.[1],
          kioskKey: /kiosk key\s+(pcak_\S+)/.exec(out)?.[1],
        };
        return found.url && found.cashierKey && found.kioskKey && /try: curl/.test(out) ? (found as Record<keyof typeof found, string>) : undefined;
      },
      demo,
      90_000,
    );
    ({ url, cashierKey, kioskKey } = banner);
    tries = [...demo.stdout().matchAll(/^ {4}(card|phone|email) (.+?) {2}\((.+?)(?::.*)?\)$/gm)].map((m) => ({
      kind: m[1]!,
      value: m[2]!,
      name: /^[A-Z][^ ]+ [A-Z]/.test(m[3]!) ? m[3]! : null,
    }));
    browser = await launchChromium();
    ({ page } = await openScreen(browser, url, cashierKey));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (demo) await stopWith(demo, 'SIGINT');
    await killLeftovers();
    dir.remove();
  });

  it('opens with customers already in the queue', async () => {
    await expectCount(page.getByTestId('queue-entry'), 3);
    await expectText(page.getByTestId('queue-count'), '3 waiting');
  });

  it('checks in each identification the banner lists, with balances and history', async () => {
    const customers = tries.filter((t) => t.name !== null);
    expect(customers.map((t) => t.kind).sort()).toEqual(['card', 'email', 'phone']);
    for (const { value, name } of customers) {
      await page.getByTestId('check-in-input').fill(value);
      await page.getByRole('button', { name: 'Check in', exact: true }).click();
      await expectText(panel().getByTestId('customer-name'), name!);
      await expectText(panel().getByTestId('loyalty-balance-Points'), /\d/);
      expect(Number(await panel().getByTestId('loyalty-balance-Points').getAttribute('data-amount')), value).toBeGreaterThan(0);
      await expect.poll(() => panel().getByTestId('history-row').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      await expectText(panel().getByTestId('last-visit'), /\w/);
    }
    // Ana, the first one listed, is the README's customer: the screenshot shows her.
    await page.getByTestId('check-in-input').fill(customers[0]!.value);
    await page.getByRole('button', { name: 'Check in', exact: true }).click();
    await expectText(panel().getByTestId('customer-name'), customers[0]!.name!);
    await expectText(panel().getByTestId('customer-tier'), 'Gold');
    // Her history loads after the panel: the picture waits for it (it showed a grey placeholder).
    await expect.poll(() => panel().getByTestId('history-row').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'cashier');
  });

  it("shows Ana's panel in Spanish, and Settings on the demo's store (the README's other screenshots)", async () => {
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await expectText(page.getByRole('region', { name: 'Cola' }), 'en espera');
    await expectText(panel().getByTestId('customer-name'), tries[0]!.name!);
    await expectText(panel(), 'Hacer pedido');
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'cashier-es');
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
    await expectText(page.getByRole('region', { name: 'Queue' }), 'waiting');

    await page.getByRole('banner').getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await settings.waitFor();
    await expectText(settings.getByTestId('settings-terminal'), 'Demo Coffee Downtown');
    await expectText(settings.getByTestId('settings-node'), /Checked at/);
    await expectCount(settings.getByTestId('settings-scanners').locator('.mantine-Loader-root'), 0);
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'settings');
    await page.getByRole('banner').getByRole('button', { name: 'Back' }).click();
    await page.getByTestId('check-in-input').waitFor();
  });

  it('an unlinked card registers a new customer and links the card', async () => {
    const card = tries.find((t) => t.name === null)!.value;
    await page.getByTestId('check-in-input').fill(card);
    await page.getByRole('button', { name: 'Check in', exact: true }).click();
    const offer = page.getByTestId('unlinked-card');
    await expectText(offer, `Card ${card} is not linked to a customer yet`);
    await offer.getByTestId('register-with-card').click();
    const dialog = page.getByRole('dialog', { name: `Register a customer with card ${card}` });
    await dialog.waitFor();
    // The focus trap's late focus would pull the focus out of a name box as it is filled.
    await expectFocusInDialog(page);
    await dialog.getByText('By email', { exact: true }).click();
    await dialog.getByLabel('Email address').fill('new.customer@example.com');
    await dialog.getByLabel('First name (optional)').fill('Noa');
    await dialog.getByLabel('Last name (optional)').fill('Berg');
    await dialog.getByRole('button', { name: 'Register and check in' }).click();
    await expectCount(dialog, 0);
    await expectText(panel().getByTestId('customer-name'), 'Noa Berg');
    // The card now checks Noa in, at the counter and over the interface.
    const checkIn = await http(`${url}/onscreen?api_key=${cashierKey}`, { method: 'POST', body: { card_number: card } });
    expect(checkIn.status).toBe(201);
    const customer = await http(`${url}/onscreen?api_key=${cashierKey}&pos_session_hash=${checkIn.body.pos_session.hash}`);
    expect(customer.body.user.first_name).toBe('Noa');
  });

  it('links another unlinked card to a demo customer found by phone', async () => {
    const phone = tries.find((t) => t.kind === 'phone')!;
    await page.getByTestId('check-in-input').fill('DEMO0902');
    await page.getByRole('button', { name: 'Check in', exact: true }).click();
    await page.getByTestId('unlinked-card').getByTestId('link-card').click();
    const dialog = page.getByRole('dialog', { name: 'Link card DEMO0902 to a customer' });
    await dialog.getByLabel('Mobile number').fill(phone.value);
    await dialog.getByRole('button', { name: 'Link card and check in' }).click();
    await expectCount(dialog, 0);
    await expectText(panel().getByTestId('customer-name'), phone.name!);
    const checkIn = await http(`${url}/onscreen?api_key=${cashierKey}`, { method: 'POST', body: { card_number: 'DEMO0902' } });
    const customer = await http(`${url}/onscreen?api_key=${cashierKey}&pos_session_hash=${checkIn.body.pos_session.hash}`);
    expect(`${customer.body.user.first_name} ${customer.body.user.last_name}`).toBe(phone.name);
  });

  it('a scanned unlinked card gets the same offer as a typed one, not a dead-end toast', async () => {
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: 'Queue' }).click();
    await typeAsScanner(page, 'DEMO0903');
    const offer = page.getByTestId('unlinked-card');
    await expectText(offer, 'Card DEMO0903 is not linked to a customer yet');
    await expectCount(page.getByText('Scan not accepted'), 0);
    await offer.getByTestId('register-with-card').click();
    await page.getByRole('dialog', { name: 'Register a customer with card DEMO0903' }).waitFor();
    await page.keyboard.press('Escape');
  });

  it('the kiosk greets a demo customer by name with their balance, and joins a newcomer with a new card', async () => {
    const { context, page: kiosk } = await openScreen(browser, url, kioskKey);
    await kiosk.getByTestId('kiosk-idle').waitFor();
    await kiosk.mouse.move(0, 0);
    await saveScreenshot(kiosk, 'kiosk-idle');
    const ana = tries[0]!;
    await kiosk.getByRole('button', { name: 'Type it instead' }).click();
    await kiosk.getByLabel('Card number, phone or email').fill(ana.value);
    await kiosk.getByRole('button', { name: 'Check in', exact: true }).click();
    await expectText(kiosk.getByTestId('kiosk-welcome-name'), `Welcome, ${ana.name!.split(' ')[0]}!`);
    await expectText(kiosk.getByTestId('kiosk-quick-pay'), /\$\d+\.\d\d/);
    await expectText(kiosk.getByTestId('kiosk-points'), /\d+\s*Points/);
    await saveScreenshot(kiosk, 'kiosk-welcome');
    await kiosk.getByRole('button', { name: 'Done' }).click();

    await kiosk.getByRole('button', { name: 'Type it instead' }).click();
    await kiosk.getByLabel('Card number, phone or email').fill('DEMO0903');
    await kiosk.getByRole('button', { name: 'Check in', exact: true }).click();
    await kiosk.getByTestId('kiosk-unlinked').getByRole('button', { name: 'New here? Join with this card' }).click();
    await expectText(kiosk.getByTestId('kiosk-joining-card'), 'DEMO0903');
    await kiosk.getByLabel('Mobile number').fill('4155550199');
    await kiosk.getByLabel('First name (optional)').fill('Lea');
    await kiosk.getByRole('button', { name: 'Join', exact: true }).click();
    await expectText(kiosk.getByTestId('kiosk-welcome-name'), 'Welcome, Lea!');
    await context.close();
  });
});
