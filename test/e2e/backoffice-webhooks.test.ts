import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import type { PollingWorker } from '../../src/core/workers/polling-worker';
import { startWebhookWorker } from '../../src/core/webhooks/worker';
import { invitedStaff, ownerOf, type SignedInStaff, STAFF_PASSWORD, staffCall } from '../support/backoffice';
import { launchChromium } from '../support/browser';
import { escapeRegExp, expectCount, expectText, saveScreenshot, UI_TIMEOUT, VIEWPORT } from '../support/e2e-browser';
import { builtRendererForTests } from '../support/e2e-renderer';
import { startTestNode, type TestNode } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// The back office's webhooks screen in Chromium against a real node that accepts loopback URLs
// (--webhooks-allow-private) and runs its delivery worker, sending to a real HTTP receiver on
// 127.0.0.1 that checks the signature with the secret the screen showed once.
describe('back-office webhooks in Chromium', () => {
  let node: TestNode;
  let worker: PollingWorker | null;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  let storeManager: SignedInStaff;

  beforeAll(async () => {
    node = await startTestNode({ rendererDir: builtRendererForTests(), webhooksAllowPrivate: true });
    worker = startWebhookWorker(node.engine, { allowPrivate: true, intervalMs: 100 });
    receiver = await startWebhookReceiver();
    vendor = await node.addVendor('Café Andino');
    owner = await ownerOf(node, vendor.vendorId);
    manager = await invitedStaff(node, owner, 'manager');
    storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await receiver?.close();
    await node?.close();
  });

  async function signedInPage(email: string): Promise<Page> {
    const page = await browser.newPage({ viewport: VIEWPORT, reducedMotion: 'reduce' });
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${node.url}/admin`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.locator('input[type="password"]').fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Figures' }).waitFor();
    return page;
  }

  it('a manager adds an endpoint (the secret shown once), sends a test and sees the delivery succeed', async () => {
    const page = await signedInPage(manager.email);
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    await page.getByRole('textbox', { name: 'Endpoint URL' }).fill(receiver.url);
    await page.getByRole('combobox', { name: 'Events' }).click();
    await page.getByRole('option', { name: 'order.placed' }).click();
    await page.getByRole('option', { name: 'customer.registered' }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('textbox', { name: 'Description (optional)' }).fill('CRM');
    await page.getByRole('textbox', { name: 'Alert email (optional)' }).fill('ops@andino.test');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expectText(page.getByRole('status'), /Endpoint added\..*shown only once/s);
    const secret = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets = [secret];

    const row = page.getByRole('table', { name: 'Webhook endpoints' }).getByRole('row', { name: receiver.url });
    await expectText(row, /CRM\s*Alerts to ops@andino\.test\s*order\.placed, customer\.registered\s*Enabled/);
    await saveScreenshot(page, 'backoffice-webhooks');
    await row.getByRole('button', { name: 'Send test' }).click();
    await expectText(page.getByRole('status'), 'Test event queued: see it in the deliveries.');
    // The secret is not shown again.
    await expect(page.getByTestId('webhook-secret').count()).resolves.toBe(0);

    await row.getByRole('link', { name: 'Deliveries' }).click();
    const deliveries = page.getByRole('table', { name: `Deliveries to ${receiver.url}` });
    // The worker sends it in the background; the list asks again while it is pending.
    await expectText(deliveries.getByRole('row').nth(1), /webhook\.test.*Succeeded\s*1\s*200\s*—/s);
    await receiver.waitForCount(1);
    expect(receiver.received.map((r) => [r.body.type, r.verified])).toEqual([['webhook.test', true]]);

    // Replayed: a second delivery of the same event, received again.
    await deliveries.getByRole('row').nth(1).getByRole('button', { name: 'Replay' }).click();
    await expectText(page.getByRole('status'), 'Sent again: a new delivery is queued.');
    await expect.poll(() => deliveries.getByRole('row').count(), { timeout: UI_TIMEOUT }).toBe(3);
    await expectText(deliveries.getByRole('row').nth(1), /webhook\.test.*Succeeded\s*1\s*200/s);
    await receiver.waitForCount(2);
    expect(receiver.received[1]!.body.id).toBe(receiver.received[0]!.body.id);

    // A new secret, shown once; the old one keeps signing alongside it for a day.
    await page.getByRole('link', { name: 'All endpoints' }).click();
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await expectText(page.getByRole('status'), /New secret made.*shown only once/s);
    const rotated = (await page.getByTestId('webhook-secret').textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    // Paused from the list.
    await row.getByRole('button', { name: 'Pause' }).click();
    await expectText(row, /Paused/);
    await row.getByRole('button', { name: 'Enable' }).waitFor();

    // In Spanish too.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await page.getByRole('tab', { name: 'Avisos (webhooks)' }).waitFor();
    await expectText(page.getByRole('table', { name: 'Destinos de webhooks' }).getByRole('row', { name: receiver.url }), /En pausa.*Activar.*Enviar prueba.*Cambiar el secreto.*Envíos.*Editar.*Eliminar/s);
  });

  it('a manager edits an endpoint’s URL, events and alert email (a refusal shows in the dialog), and deletes it after confirming: its waiting event is cancelled, never sent', async () => {
    const call = (method: string, path: string, body?: unknown) => staffCall(node, manager.token, method, path, body);
    const url = `${receiver.url}/orders`;
    const made = await call('POST', '/backoffice/webhooks', { url, events: ['order.placed'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.id as string;
    // Paused, its test event waits for it.
    await call('PUT', `/backoffice/webhooks/${id}`, { status: 'paused' });
    await call('POST', `/backoffice/webhooks/${id}/test`);

    const page = await signedInPage(manager.email);
    await page.getByRole('tab', { name: 'Webhooks' }).click();
    const table = page.getByRole('table', { name: 'Webhook endpoints' });
    await table.getByRole('row', { name: url }).getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, /Edit the endpoint/);
    // The node refuses an address it does not send to: said in the dialog, which keeps what was typed.
    await dialog.getByRole('textbox', { name: 'Endpoint URL' }).fill('ftp://example.com/hook');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const refusal = await call('PUT', `/backoffice/webhooks/${id}`, { url: 'ftp://example.com/hook' });
    expect(refusal.body.code).toBe('webhook_url_not_allowed');
    await expectText(dialog.getByRole('alert'), refusal.body.message as string);
    expect(await dialog.getByRole('textbox', { name: 'Endpoint URL' }).inputValue()).toBe('ftp://example.com/hook');

    // And an alert email it cannot send to.
    await dialog.getByRole('textbox', { name: 'Endpoint URL' }).fill(url);
    await dialog.getByRole('textbox', { name: 'Alert email (optional)' }).fill('ops@');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const badEmail = await call('PUT', `/backoffice/webhooks/${id}`, { alert_email: 'ops@' });
    expect([badEmail.body.code, badEmail.body.field]).toEqual(['invalid_email', 'alert_email']);
    await expectText(dialog.getByRole('alert'), badEmail.body.message as string);

    const moved = `${receiver.url}/v2/orders`;
    await dialog.getByRole('textbox', { name: 'Endpoint URL' }).fill(moved);
    await dialog.getByRole('textbox', { name: 'Alert email (optional)' }).fill('ops@andino.test');
    await dialog.getByRole('combobox', { name: 'Events' }).click();
    await page.getByRole('option', { name: 'tier.changed' }).click();
    await dialog.getByText('Edit the endpoint').click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expectText(page.getByRole('status'), 'Endpoint saved.');
    await expectCount(page.getByRole('dialog'), 0);
    const row = table.getByRole('row', { name: moved });
    await expectText(row, /Alerts to ops@andino\.test\s*order\.placed, tier\.changed\s*Paused/);
    const listed = (await call('GET', '/backoffice/webhooks')).body.items.find((e: { id: string }) => e.id === id);
    expect(listed).toMatchObject({ url: moved, events: ['order.placed', 'tier.changed'], status: 'paused', alert_email: 'ops@andino.test', description: null });

    // Deleting asks first and says what it does; cancelled, nothing changes.
    await row.getByRole('button', { name: 'Delete' }).click();
    await expectText(page.getByRole('dialog'), new RegExp(`Delete the endpoint ${escapeRegExp(moved)}\\?.*not received yet are cancelled.*pause it instead`, 's'));
    // It opens on Cancel: an Enter pressed at once closes it and deletes nothing.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Enter');
    await expectCount(page.getByRole('dialog'), 0);
    await expectText(row, /Paused/);
    // In Spanish, the confirmation says the same.
    await page.getByRole('banner').getByText('ES', { exact: true }).click();
    await page.getByRole('table', { name: 'Destinos de webhooks' }).getByRole('row', { name: moved }).getByRole('button', { name: 'Eliminar' }).click();
    await expectText(page.getByRole('dialog'), /¿Eliminar el destino .*\?.*aún no ha recibido se cancelan.*páuselo/s);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar' }).click();
    await expectCount(page.getByRole('dialog'), 0);
    await page.getByRole('banner').getByText('EN', { exact: true }).click();

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, delete' }).click();
    await expectText(page.getByRole('status'), 'Endpoint deleted: the events it had not received are cancelled.');
    await expectCount(row, 0);
    expect((await call('GET', '/backoffice/webhooks')).body.items.map((e: { id: string }) => e.id)).not.toContain(id);
    const waiting = await node.engine.db.selectFrom('webhook_deliveries').select('status').where('endpoint_id', '=', id).execute();
    expect(waiting.map((d) => d.status)).toEqual(['cancelled']);
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=webhook&limit=1');
    expect(audit.body.items[0]).toMatchObject({ action: 'webhook.delete', object_id: id, before: { url: moved }, after: null });
    // The worker (every 100 ms) sends nothing to it.
    const received = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(received);
    await page.close();
  });

  it('a store manager has no webhooks tab; its address says whom to ask, and the node refuses the screen’s calls', async () => {
    const page = await signedInPage(storeManager.email);
    await expect(page.getByRole('tab', { name: 'Webhooks' }).count()).resolves.toBe(0);
    await page.goto(`${node.url}/admin#/webhooks`);
    await expectText(page.getByRole('alert'), 'Webhooks are set up by owners and managers of the program: they carry every store’s events. Ask one of them.');
    await expect(page.getByRole('table', { name: 'Webhook endpoints' }).count()).resolves.toBe(0);
    // The screen is not what keeps them out: the node refuses its calls.
    const refused = await staffCall(node, storeManager.token, 'GET', '/backoffice/webhooks');
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
  });
});
