import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { signUpAt } from '../support/customers';
import { expectCount, expectText, saveScreenshot, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { CARDS, paymentsApi } from '../support/payments';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Two short checks of the back office in Chromium against a real node: a customer's profile shows
// what of each balance expires when and their saved card masked; an owner edits an existing reward
// and tier in place from the Program screen, and a refused edit shows the node's message.
describe('back-office profile and program edits in Chromium', () => {
  let node: TestNode;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests() });
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });

  async function signedInPage(as: SignedInStaff = owner): Promise<Page> {
    const page = await browser.newPage({ viewport: VIEWPORT, reducedMotion: 'reduce' });
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin`);
    await page.getByRole('textbox', { name: 'Email' }).fill(as.email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    return page;
  }

  it('a customer’s profile shows the points that expire and when, and the saved card masked', async () => {
    expect((await staffCall(node, owner.token, 'PUT', '/backoffice/program/settings', { points_expiry_days: 30 })).status).toBe(200);
    const lia = await signUpAt(node, vendor.vendorId, { first_name: 'Lía', last_name: 'Mora' });
    await paymentsApi(() => node).addProfileOk(lia.key, CARDS.visa);
    const earned = await http(`${node.url}/order?api_key=${encodeURIComponent(vendor.apiKey)}`, { method: 'POST', body: { card_number: lia.email, receipt_number: 'p-1', subtotal: 12 } });
    expect(earned.body.points_earned).toBe(12);
    const expiry = new Date(node.clock.now() + 30 * 86_400_000).toLocaleDateString('en', { dateStyle: 'medium', timeZone: 'UTC' });
    const year = new Date(node.clock.now()).getUTCFullYear() + 3;

    const page = await signedInPage();
    await page.goto(`${node.url}/admin#/customers/${lia.userId}`);
    await expectText(page.getByRole('table', { name: 'Balances' }).getByRole('row', { name: 'Points' }), `Points1212 on ${expiry}`);
    await expectText(page.getByRole('table', { name: 'Saved cards (masked)' }), `Visa ending in 4242Expires 12/${year}Default`);
    expect(await page.locator('body').textContent()).not.toMatch(/4242 4242|Ana López/);
  });

  it('an owner edits a reward’s name, cost and status and a tier’s threshold in place; a taken threshold shows the node’s message', async () => {
    const p = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body;
    const points = p.currencies.find((c: { code: string | null }) => c.code === null).id;
    await staffCall(node, owner.token, 'POST', '/backoffice/program/rewards', { name: 'Muffin', cost: 80, currency: points });
    await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: 'Silver', threshold: 100 });
    await staffCall(node, owner.token, 'POST', '/backoffice/program/tiers', { name: 'Gold', threshold: 500 });

    const page = await signedInPage();
    await page.getByRole('tab', { name: 'Program' }).click();
    const rewards = page.getByRole('table', { name: 'Rewards' });
    await rewards.getByRole('row', { name: 'Muffin' }).waitFor();
    // Every table of the page says what its columns are.
    const headers = (table: string) => page.getByRole('table', { name: table }).getByRole('columnheader').allTextContents();
    expect(await headers('Earning rules')).toEqual(['Name', 'Points', 'Per amount spent', 'Status', 'Actions']);
    expect(await headers('Rewards')).toEqual(['Name', 'Cost (Points)', 'Status', 'Actions']);
    expect(await headers('Tiers')).toEqual(['Name', 'Threshold (Points)', 'Window (days)', 'Actions']);
    expect(await headers('Currencies')).toEqual(['Name', 'ISO code', 'Status', 'Actions']);
    await rewards.getByRole('row', { name: 'Muffin' }).getByRole('button', { name: 'Edit' }).click();
    const editing = rewards.getByRole('row', { name: 'Muffin' });
    await editing.getByRole('textbox', { name: 'Name' }).fill('Blueberry muffin');
    await editing.getByRole('textbox', { name: 'Cost (Points)' }).fill('60');
    await editing.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Paused' }).click();
    await editing.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Saved.');
    await expectText(rewards.getByRole('row', { name: 'Blueberry muffin' }), /Blueberry muffin\s*60\s*Paused/);

    const tiers = page.getByRole('table', { name: 'Tiers' });
    await tiers.getByRole('row', { name: 'Silver' }).getByRole('button', { name: 'Edit' }).click();
    await tiers.getByRole('row', { name: 'Silver' }).getByRole('textbox', { name: 'Threshold (Points)' }).fill('500');
    await tiers.getByRole('row', { name: 'Silver' }).getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('alert'), 'Another tier of the program already has that threshold.');
    await tiers.getByRole('row', { name: 'Silver' }).getByRole('textbox', { name: 'Threshold (Points)' }).fill('150');
    await tiers.getByRole('row', { name: 'Silver' }).getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Saved.');
    await expectText(tiers.getByRole('row', { name: 'Silver' }), /Silver\s*150/);
    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=2')).body.items;
    expect(audit.map((e: { action: string; before: { threshold?: number; cost?: number }; after: { threshold?: number; cost?: number } }) => [e.action, e.before.threshold ?? e.before.cost, e.after.threshold ?? e.after.cost])).toEqual([
      ['tier.update', 100, 150],
      ['reward.update', 80, 60],
    ]);

    // Saved at the foot of a long page (a short window), the message is where the eyes are.
    await page.setViewportSize({ width: 1280, height: 500 });
    const days = page.getByRole('textbox', { name: /Days until earned points expire/ });
    await days.fill('120');
    await days.locator('xpath=ancestor::*[contains(@class,"mantine-Group-root")][1]').getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Saved.');
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    const box = await page.getByRole('status').boundingBox();
    expect(box !== null && box.y >= 0 && box.y + box.height <= 500, JSON.stringify(box)).toBe(true);
  });

  it('pausing a currency asks first and says what it stops; the rules and rewards in it say they are not in force', async () => {
    // A program of its own: Points paused here must not touch the other tests' orders.
    const luna = await node.addVendor('Panadería Luna');
    const lunaOwner = await ownerOf(node, luna.vendorId);
    const p = (await staffCall(node, lunaOwner.token, 'GET', '/backoffice/program')).body;
    const pointsId = p.currencies.find((c: { code: string | null }) => c.code === null).id as string;
    expect((await staffCall(node, lunaOwner.token, 'POST', '/backoffice/program/rewards', { name: 'Croissant', cost: 10, currency: pointsId })).status).toBe(201);
    const marta = await signUpAt(node, luna.vendorId, { first_name: 'Marta', last_name: 'Sol' });
    const order = (receipt: string) => http(`${node.url}/order?api_key=${encodeURIComponent(luna.apiKey)}`, { method: 'POST', body: { card_number: marta.email, receipt_number: receipt, subtotal: 12 } });
    const pointsStatus = async () => (await staffCall(node, lunaOwner.token, 'GET', '/backoffice/program')).body.currencies.find((c: { id: string }) => c.id === pointsId).status as string;

    const page = await signedInPage(lunaOwner);
    await page.getByRole('tab', { name: 'Program' }).click();
    const currencies = page.getByRole('table', { name: 'Currencies' });
    const rule = page.getByRole('table', { name: 'Earning rules' }).getByRole('row', { name: '1 point per unit spent' });
    const reward = page.getByRole('table', { name: 'Rewards' }).getByRole('row', { name: 'Croissant' });
    await expectText(rule, /Active/);
    await expectCount(page.getByTestId('not-in-force'), 0);

    // Cancelled: nothing changes.
    await currencies.getByRole('row').filter({ hasText: /^Points/ }).getByRole('button', { name: 'Pause' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, /Pause Points\?.*Orders earn no Points.*Rewards priced in Points cannot be redeemed.*Promotion codes that give Points are refused.*keep their balances/s);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expectCount(page.getByRole('dialog'), 0);
    expect(await pointsStatus()).toBe('ACTIVE');

    // Confirmed: paused, and the rule and reward in Points say they are not in force.
    await currencies.getByRole('row').filter({ hasText: /^Points/ }).getByRole('button', { name: 'Pause' }).click();
    await saveScreenshot(page, 'backoffice-pause-currency');
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, pause' }).click();
    await expectText(page.getByRole('status'), 'Saved.');
    expect(await pointsStatus()).toBe('INACTIVE');
    // Statuses in words, never the node's ACTIVE/INACTIVE/ARCHIVED.
    await expectText(currencies.getByRole('row').filter({ hasText: /^Points/ }), /Points\s*—\s*Paused/);
    await expectText(rule, /Active\s*Not in force/);
    expect(await page.getByRole('tabpanel').textContent()).not.toMatch(/ACTIVE|INACTIVE|ARCHIVED/);
    await expectText(rule.getByTestId('not-in-force'), 'Not in force: Points is paused');
    await expectText(reward.getByTestId('not-in-force'), 'Not in force: Points is paused');
    await page.evaluate(() => window.scrollTo(0, 0));
    await saveScreenshot(page, 'backoffice-currency-paused');
    const paused = await order('luna-1');
    expect([paused.status, paused.body.points_earned]).toEqual([200, 0]);

    // The quick-pay currency's pause says what it stops (and is cancelled here).
    await currencies.getByRole('row').filter({ hasText: 'Quick Pay USD' }).getByRole('button', { name: 'Pause' }).click();
    await expectText(page.getByRole('dialog'), /Pause Quick Pay USD\?.*Quick pay in Quick Pay USD cannot be spent at the counter.*cannot reload it or claim eGifts/s);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expectCount(page.getByRole('dialog'), 0);

    // Activating again asks nothing; the notes go, and orders earn again.
    await currencies.getByRole('row').filter({ hasText: /^Points/ }).getByRole('button', { name: 'Activate' }).click();
    await expectCount(page.getByTestId('not-in-force'), 0);
    expect(await pointsStatus()).toBe('ACTIVE');
    const active = await order('luna-2');
    expect([active.status, active.body.points_earned]).toEqual([200, 12]);
  });
  it('an owner renames a currency in place; a name another currency has is the node’s refusal and keeps the row in edit mode', async () => {
    const page = await signedInPage();
    await page.getByRole('tab', { name: 'Program' }).click();
    const currencies = page.getByRole('table', { name: 'Currencies' });
    await currencies.getByRole('row', { name: 'Points' }).getByRole('button', { name: 'Rename' }).click();
    const editing = currencies.getByRole('row', { name: 'Points' });
    await editing.getByRole('textbox', { name: 'Name' }).fill('Quick Pay USD');
    await editing.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('alert'), 'A currency with that name already exists.');
    await editing.getByRole('textbox', { name: 'Name' }).fill('Stars');
    await editing.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Saved.');
    await expectText(currencies.getByRole('row', { name: 'Stars' }), /Stars\s*—\s*Active\s*Rename\s*Pause/);
    // Points earned, costs and thresholds are said in the currency by its new name.
    const headers = (table: string) => page.getByRole('table', { name: table }).getByRole('columnheader').allTextContents();
    await expect.poll(() => headers('Rewards')).toEqual(['Name', 'Cost (Stars)', 'Status', 'Actions']);
    expect(await headers('Earning rules')).toEqual(['Name', 'Stars', 'Per amount spent', 'Status', 'Actions']);
    expect(await headers('Tiers')).toEqual(['Name', 'Threshold (Stars)', 'Window (days)', 'Actions']);
    const p = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body;
    expect(p.currencies.map((c: { name: string }) => c.name).sort()).toEqual(['Quick Pay USD', 'Stars']);
    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=1')).body.items[0];
    expect(audit).toMatchObject({ action: 'currency.update', before: { name: 'Points' }, after: { name: 'Stars' } });
  });
  it('an owner renames an earning rule with its points (named by the renamed currency), so its name stays true; a name another rule has and no points are the node’s refusals', async () => {
    const p = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body;
    const stars = p.currencies.find((c: { code: string | null }) => c.code === null).id;
    const made = await staffCall(node, owner.token, 'POST', '/backoffice/program/earning-rules', { name: 'Birthday bonus', currency: stars, points: 5, per_amount: 100 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await staffCall(node, owner.token, 'PUT', `/backoffice/program/earning-rules/${made.body.id}`, { status: 'INACTIVE' });

    const page = await signedInPage();
    await page.getByRole('tab', { name: 'Program' }).click();
    const rules = page.getByRole('table', { name: 'Earning rules' });
    const row = rules.getByRole('row', { name: '1 point per unit spent' });
    await row.getByRole('button', { name: 'Rename' }).click();
    await row.getByRole('textbox', { name: 'Name' }).fill('Birthday bonus');
    await row.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('alert'), 'Another earning rule of the program already has that name');
    await row.getByRole('textbox', { name: 'Name' }).fill('2 points per unit spent');
    // The rule gives Stars now (the currency renamed above): the box and the node's refusal say so,
    // the refusal labelled by the field the node names (points), in either language.
    await row.getByRole('textbox', { name: 'Stars' }).fill('0');
    await row.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('alert'), 'Stars must be at least 1.');
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    // (The table's own name is in Spanish now: the row is found by the rule's.)
    await page.getByRole('row', { name: '1 point per unit spent' }).getByRole('button', { name: 'Guardar' }).click();
    await expectText(page.getByRole('alert'), '«Stars» debe ser al menos 1.');
    await page.getByRole('banner').getByText('EN', { exact: true }).click();
    await row.getByRole('textbox', { name: 'Stars' }).fill('2');
    await row.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Saved.');
    const renamed = rules.getByRole('row', { name: '2 points per unit spent' });
    await expectText(renamed, /2 points per unit spent.*Rename/s);
    await expectCount(renamed.getByRole('textbox', { name: 'Name' }), 0);
    const after = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body.earning_rules.find((r: { name: string }) => r.name === '2 points per unit spent');
    expect(after).toMatchObject({ points: 2, per_amount: 1 });
    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?limit=1')).body.items[0];
    expect(audit).toMatchObject({ action: 'earning_rule.update', before: { name: '1 point per unit spent', points: 1 }, after: { name: '2 points per unit spent', points: 2 } });
  });
});
