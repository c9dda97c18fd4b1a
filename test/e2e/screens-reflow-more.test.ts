import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { openScreen, saveScreenshot, UI_TIMEOUT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { type E2eStore, startE2eStore } from '../support/e2e-store';
import { startTestNode, type TestNode } from '../support/test-node';
import { cutText, insideSideways, sidewaysOverflow } from './screens-reflow';

// Reflow at 320 CSS px (a 1280 px screen at 400% zoom) for the screens the accessibility round did
// not check: the back office's Webhooks (the list, the add form, a delivery log) and Audit, and the
// kiosk's typing and joining screens. Nothing may need scrolling sideways and no text or control may
// run past the window's edges; a data table may scroll inside its own box.

describe('reflow at 320 px: webhooks, audit, the kiosk’s typing and joining', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  describe('back office', () => {
    let node: TestNode;
    let vendor: VendorCredentials;
    let owner: SignedInStaff;
    let endpointId: string;
    // A long address with no place to break: the list must wrap it or keep it in its table's box.
    const url = 'https://hooks.example.com/punchcard/a-rather-long-path-for-an-integration/orders';

    beforeAll(async () => {
      node = await startTestNode({ rendererDir: builtRendererForTests() });
      vendor = await node.addVendor('Café Andino');
      owner = await ownerOf(node, vendor.vendorId);
      const made = await staffCall(node, owner.token, 'POST', '/backoffice/webhooks', { url, events: ['order.placed'], description: 'Orders to the accounting system', alert_email: 'integrations-team@example.com' });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      endpointId = made.body.id as string;
      // Paused: its test event waits in the log (nothing listens at that address).
      expect((await staffCall(node, owner.token, 'PUT', `/backoffice/webhooks/${endpointId}`, { status: 'paused' })).status).toBe(200);
      expect((await staffCall(node, owner.token, 'POST', `/backoffice/webhooks/${endpointId}/test`)).status).toBeLessThan(300);
    });

    afterAll(async () => {
      await node?.close();
    });

    async function openAt(route: string, ready: (page: Page) => Locator): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 320, height: 700 }, timezoneId: 'UTC', locale: 'en-US', reducedMotion: 'reduce' });
      const page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT);
      await page.goto(`${node.url}/admin#/${route}`);
      await page.getByRole('textbox', { name: 'Email' }).fill(owner.email);
      await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await ready(page).first().waitFor();
      return page;
    }

    it('Webhooks: the list, its add form and an endpoint’s deliveries', async () => {
      const page = await openAt('webhooks', (p) => p.getByRole('table', { name: 'Webhook endpoints' }));
      expect(await sidewaysOverflow(page)).toEqual([]);
      expect(await cutText(page)).toEqual([]);
      for (const name of ['Endpoint URL', 'Events', 'Description (optional)']) expect(await insideSideways(page.getByLabel(name, { exact: true }).first()), name).toBe(true);
      expect(await insideSideways(page.getByRole('button', { name: 'Add endpoint' }).last())).toBe(true);
      await saveScreenshot(page, 'backoffice-webhooks-320px');

      await page.goto(`${node.url}/admin#/webhooks/${endpointId}`);
      await page.getByRole('table', { name: /Deliveries/ }).waitFor();
      expect(await sidewaysOverflow(page)).toEqual([]);
      expect(await cutText(page)).toEqual([]);
      expect(await insideSideways(page.getByRole('button', { name: 'Next' }))).toBe(true);
      await saveScreenshot(page, 'backoffice-webhook-deliveries-320px');
      await page.context().close();
    });

    it('Audit: its filters and entries', async () => {
      const page = await openAt('audit', (p) => p.getByRole('table', { name: 'Audit log' }));
      expect(await sidewaysOverflow(page)).toEqual([]);
      expect(await cutText(page)).toEqual([]);
      // A change is read in lines of words, not squeezed into a column a few letters wide.
      const change = page.getByRole('table', { name: 'Audit log' }).locator('tbody tr').first().locator('td').last();
      expect((await change.boundingBox())!.width).toBeGreaterThanOrEqual(200);
      await saveScreenshot(page, 'backoffice-audit-320px');
      await page.context().close();
    });
  });

  describe('kiosk', () => {
    let store: E2eStore;
    let page: Page;

    beforeAll(async () => {
      store = await startE2eStore();
      ({ page } = await openScreen(browser, store.node.url, store.vendor.kioskApiKey));
      await page.setViewportSize({ width: 320, height: 568 });
      await page.getByTestId('kiosk-idle').waitFor();
    });

    afterAll(async () => {
      await store?.close();
    });

    it('typing an identification: the field, its keyboard and buttons inside the window', async () => {
      await page.getByRole('button', { name: 'Type it instead' }).click();
      const form = page.getByTestId('kiosk-type');
      await form.waitFor();
      try {
        expect(await sidewaysOverflow(page)).toEqual([]);
        expect(await cutText(page)).toEqual([]);
        expect(await insideSideways(form.getByLabel('Card number, phone or email'))).toBe(true);
        expect(await insideSideways(form.getByRole('button', { name: 'Check in', exact: true }))).toBe(true);
        await saveScreenshot(page, 'kiosk-type-320px');
      } finally {
        await form.getByRole('button', { name: 'Cancel' }).click();
        await page.getByTestId('kiosk-idle').waitFor();
      }
    });

    it('joining: the mobile number, its country, the name and Join inside the window', async () => {
      await page.getByRole('button', { name: 'New here? Join with your phone' }).click();
      const form = page.getByTestId('kiosk-register');
      await form.waitFor();
      expect(await sidewaysOverflow(page)).toEqual([]);
      expect(await cutText(page)).toEqual([]);
      // One field a line: each as wide as the form, not a third of it.
      const width = async (label: string) => (await form.getByLabel(label, { exact: true }).boundingBox())!.width;
      expect(await width('Mobile number')).toBeGreaterThan(200);
      expect(await width('First name (optional)')).toBeGreaterThan(200);
      expect(await insideSideways(form.getByLabel('Mobile number'))).toBe(true);
      expect(await insideSideways(form.getByLabel('First name (optional)'))).toBe(true);
      expect(await insideSideways(form.getByRole('button', { name: 'Join', exact: true }))).toBe(true);
      await saveScreenshot(page, 'kiosk-join-320px');
      await form.getByRole('button', { name: 'Cancel' }).click();
      await page.getByTestId('kiosk-idle').waitFor();
    });
  });
});
