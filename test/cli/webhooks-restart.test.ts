import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { jsonLines, killLeftovers, launch, type Running, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// `punchcard store --webhooks-allow-private` as a real process, killed (SIGKILL) while a delivery
// is in flight: after a restart on the same data folder the event still arrives, signed with the
// secret the first process sealed. The claim's lease (the 10 s timeout + 5 s) makes the wait.

const dir = makeTempDir('punchcard-webhooks-');
let receiver: WebhookReceiver | undefined;

afterEach(killLeftovers);
afterAll(async () => {
  await killLeftovers();
  await receiver?.close();
  dir.remove();
});

async function startStore(): Promise<{ running: Running; url: string }> {
  const running = launch(['store', '--data', dir.path, '--port', '0', '--webhooks-allow-private']);
  const url = await waitFor('the listening line', () => jsonLines(running.stdout()).find((l) => /listening on/.test(String(l.msg)))?.url as string | undefined, running, 30_000);
  return { running, url };
}

describe('a store node killed mid-delivery', () => {
  it('delivers the event after it restarts: no event lost', { timeout: 120_000 }, async () => {
    receiver = await startWebhookReceiver();
    const first = await startStore();
    // A program in the node's database (written from here, like `punchcard init` would).
    const engine = await startEngine({ database: openSqlite(join(dir.path, 'punchcard.db')), nodeKey: randomBytes(32), role: 'store' });
    const vendor = await setUpVendor(engine, { name: 'Café Luna', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. 1', city: 'Quito' } });
    await engine.close();

    const created = await http(`${first.url}/webhooks`, { method: 'POST', token: vendor.accessToken, body: { url: receiver.url, events: ['customer.registered'] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    receiver.secrets = [created.body.secret];
    receiver.answers = ['hang'];
    const registered = await http(`${first.url}/user/register`, { method: 'POST', body: { vendor: vendor.vendorId, email_address: 'ana@example.com', password: 'correct horse 1', first_name: 'Ana', last_name: 'Ruiz', terms: true } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);

    await receiver.waitForCount(1, 20_000);
    first.running.child.kill('SIGKILL');
    await first.running.exited;

    const second = await startStore();
    await receiver.waitForCount(2, 40_000);
    const [lost, again] = receiver.received;
    expect(again!.body.id).toBe(lost!.body.id);
    expect(again!.body).toMatchObject({ type: 'customer.registered', data: { user: { email_address: 'ana@example.com' } } });
    expect(again!.verified).toBe(true);

    // The node records the 200 just after the receiver has answered it.
    const deadline = Date.now() + 10_000;
    let items: any[] = [];
    while (Date.now() < deadline) {
      items = (await http(`${second.url}/webhooks/${created.body.id}/deliveries`, { token: vendor.accessToken })).body.items;
      if (items[0]?.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ event_type: 'customer.registered', status: 'succeeded', attempts: 2, last_status_code: 200 });
  });
});
