import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { expectText, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';

// The Program page is long: a form low on it (Currencies' Add) refused by the node showed its
// message in a banner at the page's top, under the fixed header once the page was scrolled, and
// Add looked like it did nothing. Each form's outcome now shows under that form, in view and
// uncovered, at a small screen (1024×768) scrolled to the foot of the page first.
describe('the Program page’s refusals show where the user acted', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let page: Page;
  const VIEW = { width: 1024, height: 768 };
  /** The AppShell header's height: it is fixed over the top of the page. */
  const HEADER = 60;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Refusals');
    owner = await ownerOf(node, vendor.vendorId);
    // Rows enough that the page scrolls a long way.
    const p = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body;
    const points = p.currencies.find((c: { code: string | null }) => c.code === null).id;
    for (let i = 1; i <= 6; i++) {
      expect((await staffCall(node, owner.token, 'POST', '/backoffice/program/rewards', { name: `Reward ${i}`, cost: 10 * i, currency: points })).status).toBe(201);
      expect((await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: `Tier ${i}`, threshold: 100 * i })).status).toBe(201);
    }
    browser = await launchChromium();
    page = await browser.newPage({ viewport: VIEW, reducedMotion: 'reduce' });
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin`);
    await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    await page.getByRole('tab', { name: 'Program' }).click();
    await page.getByRole('table', { name: 'Currencies' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  const section = (title: string): Locator => page.locator('.mantine-Paper-root').filter({ has: page.getByRole('heading', { name: title, exact: true }) });

  /** Scrolled to the foot of the page, as the exploratory run was when it pressed Add. */
  const scrollToFoot = () => page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));

  /** The page's refusal is inside the window below the header and nothing covers it; it is in `where` (the form's section). */
  async function expectShownIn(where: Locator, text: string | RegExp): Promise<void> {
    const alert = page.getByRole('alert');
    await expectText(alert, text);
    // Brought into view (smoothly or not): wait until it settles.
    await expect
      .poll(async () => {
        const box = await alert.boundingBox();
        return box !== null && box.y >= HEADER && box.y + box.height <= VIEW.height ? 'in view' : JSON.stringify({ box, scrollY: await page.evaluate(() => window.scrollY) });
      }, { timeout: UI_TIMEOUT })
      .toBe('in view');
    const uncovered = await alert.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 12));
      return hit !== null && el.contains(hit);
    });
    expect(uncovered, 'the refusal is not under the header').toBe(true);
    expect(await where.getByRole('alert').count(), 'the refusal is under the form that was submitted').toBe(1);
  }

  it('Currencies: an ISO code the node refuses ("XYZ") says so under the Add form', async () => {
    await scrollToFoot();
    const currencies = section('Currencies');
    await currencies.getByRole('textbox', { name: 'Name', exact: true }).fill('Test money');
    await currencies.getByRole('textbox', { name: 'ISO code (empty for points)' }).fill('XYZ');
    await currencies.getByRole('button', { name: 'Add' }).click();
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await expectShownIn(currencies, /\S/);
  });

  it('Earning rules, Rewards and Tiers: an Add the node refuses says so under its own form', async () => {
    await scrollToFoot();
    const rules = section('Earning rules');
    await rules.getByRole('textbox', { name: 'Name', exact: true }).last().fill('Nothing per unit');
    await rules.getByRole('button', { name: 'Add' }).click();
    await expectShownIn(rules, /\S/);

    await scrollToFoot();
    const rewards = section('Rewards');
    await rewards.getByRole('button', { name: 'Add' }).click();
    await expectShownIn(rewards, /\S/);

    await scrollToFoot();
    const tiers = section('Tiers');
    await tiers.getByRole('textbox', { name: 'Name', exact: true }).last().fill('Same as Tier 1');
    await tiers.getByRole('textbox', { name: 'Threshold (Points)' }).last().fill('100');
    await tiers.getByRole('button', { name: 'Add' }).click();
    await expectShownIn(tiers, 'Another tier of the program already has that threshold.');
  });

  it('a row saved near the top of the page, the page scrolled down meanwhile, answers in its own section too', async () => {
    const tiers = section('Tiers');
    await tiers.getByRole('row', { name: 'Tier 2' }).getByRole('button', { name: 'Edit' }).click();
    await tiers.getByRole('row', { name: 'Tier 2' }).getByRole('textbox', { name: 'Threshold (Points)' }).fill('300');
    await scrollToFoot();
    await tiers.getByRole('row', { name: 'Tier 2' }).getByRole('button', { name: 'Save' }).click();
    await expectShownIn(tiers, 'Another tier of the program already has that threshold.');
    await tiers.getByRole('row', { name: 'Tier 2' }).getByRole('button', { name: 'Cancel' }).click();
  });

  it('Points expiry: a refused save says so under its form; a taken one says Saved there', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    const expiry = section('Points expiry');
    await expiry.getByRole('textbox', { name: /Days until earned points expire/ }).fill('-5');
    await expiry.getByRole('button', { name: 'Save' }).click();
    await expectShownIn(expiry, /\S/);
    await expiry.getByRole('textbox', { name: /Days until earned points expire/ }).fill('90');
    await expiry.getByRole('button', { name: 'Save' }).click();
    await expectText(expiry.getByRole('status'), 'Saved.');
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});
