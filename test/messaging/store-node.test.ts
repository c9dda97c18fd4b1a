import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { nodeKeyInUse, openDataDir } from '../../src/server/node/data-dir';
import { startStoreNode } from '../../src/server/node/store-node';
import { extractCode, type Mailbox, startMailbox } from '../support/mailbox';
import { jsonLines, killLeftovers, launch, run, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { startTestNode } from '../support/test-node';
import { outboxRow, queue, resetMessage } from './support';

// Messaging wired into real nodes: the store node started in-process, the test node, and the
// `punchcard store` command as a real process with --smtp and PUNCHCARD_SMTP_URL.

let mailbox: Mailbox;
const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-node-msg-');
  dirs.push(dir);
  return dir.path;
}

beforeAll(async () => {
  mailbox = await startMailbox();
});

afterEach(killLeftovers);

afterAll(async () => {
  await killLeftovers();
  await mailbox?.close();
  for (const dir of dirs) dir.remove();
});

describe('startStoreNode', () => {
  it('delivers through the SMTP server it is given, from the configured sender', async () => {
    const node = await startStoreNode({ dataDir: tempDir(), port: 0, smtpUrl: mailbox.url, mailFrom: 'Café Luna <hola@cafeluna.ec>', rendererDir: tempDir() });
    try {
      expect(node.messaging.mailTarget).toBe(mailbox.url);
      const { vendorId } = await setUpVendor(node.engine, { name: 'Café Luna', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. 1', city: 'Quito' } });
      const id = await queue(node.engine, resetMessage({ vendorId, to: 'node@example.com', token: 'STORE-NODE-1' }));
      node.messaging.wake();
      const mail = await mailbox.waitFor((m) => m.to.includes('node@example.com'));
      expect(mail.envelope.from).toBe('hola@cafeluna.ec');
      expect(extractCode(mail.text)).toBe('STORE-NODE-1');
      await waitForStatus(node.engine, id, 'sent');
    } finally {
      await node.close();
    }
    expect(existsSync(join(node.messaging.outboxDir))).toBe(false);
  });

  it('stops messaging when it closes', async () => {
    const node = await startStoreNode({ dataDir: tempDir(), port: 0, rendererDir: tempDir() });
    await node.close();
    // The worker is stopped: waking it does nothing, and draining returns at once.
    node.messaging.wake();
    await node.messaging.drain();
  });

  it('refuses an SMTP URL it cannot use before listening', async () => {
    await expect(startStoreNode({ dataDir: tempDir(), port: 0, smtpUrl: 'http://mail.example.com', rendererDir: tempDir() })).rejects.toThrow(/smtp:\/\//);
  });
});

describe('startTestNode', () => {
  it('can deliver to a real SMTP server', async () => {
    const node = await startTestNode({ messaging: { smtpUrl: mailbox.url } });
    try {
      const { vendorId } = await node.addVendor('Panadería Sol');
      await queue(node.engine, { vendorId, channel: 'email', to: 'test-node@example.com', template: 'email_verification', locale: 'es', params: { first_name: 'Sol', token: 'TN-42', vendor_name: 'Panadería Sol' } });
      await node.messaging.drain();
      const mail = await mailbox.waitFor((m) => m.to.includes('test-node@example.com'));
      expect(mail.subject).toBe('Confirme su correo electrónico en Panadería Sol');
      expect(extractCode(mail.text)).toBe('TN-42');
      expect(existsSync(join(node.dataDir, 'outbox'))).toBe(false);
    } finally {
      await node.close();
    }
  });
});

async function waitForStatus(engine: Parameters<typeof outboxRow>[0], id: number, status: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  while ((await outboxRow(engine, id)).status !== status) {
    if (Date.now() > deadline) throw new Error(`message ${id} never became ${status}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Starts `punchcard store` and waits for its listening line. */
async function startStoreProcess(args: string[], env: Record<string, string> = {}) {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  const running = launch(['store', '--port', '0', ...args]);
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await waitFor('the listening line', () => (jsonLines(running.stdout()).some((l) => /listening on/.test(String(l.msg))) ? true : undefined), running);
  return running;
}

/** Queues a message from this process into the database of a running node (with its node key, as the CLI does: the parameters are sealed). */
async function queueInto(dataDir: string, to: string, token: string): Promise<void> {
  const engine = await startEngine({ database: openSqlite(join(dataDir, 'punchcard.db')), nodeKey: nodeKeyInUse(openDataDir(dataDir)).key!, role: 'store' });
  try {
    await queue(engine, resetMessage({ to, token }));
  } finally {
    await engine.close();
  }
}

describe('punchcard store', () => {
  it('sends through --smtp, logging the server but never its password', async () => {
    const dir = tempDir();
    const url = mailbox.url.replace('smtp://', 'smtp://shop:Sup3rSecret@');
    const running = await startStoreProcess(['--data', dir, '--smtp', url, '--mail-from', 'Shop <shop@example.com>']);
    await queueInto(dir, 'cli@example.com', 'CLI-TOKEN-1');
    const mail = await mailbox.waitFor((m) => m.to.includes('cli@example.com'), 10_000);
    expect(mail.authUser).toBe('shop');
    expect(mail.envelope.from).toBe('shop@example.com');
    expect(extractCode(mail.text)).toBe('CLI-TOKEN-1');
    expect(running.stdout()).toContain(`emails to ${mailbox.url}`);
    expect(running.stdout() + running.stderr()).not.toContain('Sup3rSecret');
  });

  it('reads PUNCHCARD_SMTP_URL when --smtp is absent', async () => {
    const dir = tempDir();
    await startStoreProcess(['--data', dir], { PUNCHCARD_SMTP_URL: mailbox.url });
    await queueInto(dir, 'env@example.com', 'ENV-TOKEN-1');
    const mail = await mailbox.waitFor((m) => m.to.includes('env@example.com'), 10_000);
    expect(mail.envelope.from).toBe('no-reply@punchcard.local');
    expect(extractCode(mail.text)).toBe('ENV-TOKEN-1');
    expect(existsSync(join(dir, 'outbox'))).toBe(false);
  });

  it('refuses an unusable --smtp with a clear message', async () => {
    const bad = await run(['store', '--data', tempDir(), '--port', '0', '--smtp', 'ftp://mail.example.com']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--smtp.*smtp:\/\/ or smtps:\/\//s);
  });
});
