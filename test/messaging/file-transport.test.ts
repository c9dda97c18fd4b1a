import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { startMessaging } from '../../src/server/messaging/start-messaging';
import { ManualClock } from '../support/clock';
import { extractCode } from '../support/mailbox';
import { fillDisk, mountSmallDisk } from '../support/small-disk';
import { makeTempDir } from '../support/temp-dir';
import { startTestNode } from '../support/test-node';
import { openEngine, outboxRow, queue, resetMessage, sqliteBackend } from './support';

// With no SMTP server configured, every message becomes a file in <data>/outbox/: a single shop
// works out of the box, and the files are what a mail client or an SMS gateway would get.

const smallDisk = mountSmallDisk('punchcard-outbox-disk-', 'size=256k');

describe('file transports', () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9, 30, 0, 123));
  const dataDir = makeTempDir('punchcard-files-');
  let engine: Engine;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(sqliteBackend, clock));
  });

  afterAll(async () => {
    await close?.();
    dataDir.remove();
    smallDisk.remove();
  });

  it('write emails as .eml a mail client can read and SMS as .sms.json, owner-readable only', async () => {
    const messaging = startMessaging(engine, { dataDir: dataDir.path, intervalMs: 60_000 });
    try {
      const email = await queue(engine, resetMessage({ locale: 'es', token: 'FILE-TOKEN-7' }));
      const sms = await queue(engine, { vendorId: null, channel: 'sms', to: '+593991234567', template: 'sms_verification', locale: 'en', params: { token: '551204', vendor_name: 'Café Luna' } });
      await messaging.drain();

      const outbox = join(dataDir.path, 'outbox');
      expect(messaging.outboxDir).toBe(outbox);
      expect(messaging.mailTarget).toBe(outbox);
      expect(readdirSync(outbox).sort()).toEqual([`20261121T093000123Z-${email}.eml`, `20261121T093000123Z-${sms}.sms.json`]);

      const emlPath = join(outbox, `20261121T093000123Z-${email}.eml`);
      const parsed = await PostalMime.parse(readFileSync(emlPath));
      expect(parsed.from).toMatchObject({ name: 'Punchcard', address: 'no-reply@punchcard.local' });
      expect(parsed.to).toEqual([{ name: '', address: 'ana@example.com' }]);
      expect(parsed.subject).toBe('Restablezca su contraseña de Café Luna');
      expect(extractCode(parsed.text!)).toBe('FILE-TOKEN-7');
      expect(parsed.html).toContain('FILE-TOKEN-7');
      expect(parsed.messageId).toBe(`<punchcard.${email}@punchcard.local>`);
      expect(parsed.date).toBe('2026-11-21T09:30:00.000Z');

      const smsPath = join(outbox, `20261121T093000123Z-${sms}.sms.json`);
      expect(JSON.parse(readFileSync(smsPath, 'utf8'))).toEqual({ to: '+593991234567', text: 'Café Luna: your verification code is 551204' });

      for (const path of [emlPath, smsPath]) expect(statSync(path).mode & 0o777, path).toBe(0o600);
      expect(await outboxRow(engine, email)).toMatchObject({ status: 'sent', params: null });
      expect(await outboxRow(engine, sms)).toMatchObject({ status: 'sent', params: null });
    } finally {
      await messaging.stop();
    }
  });

  it('retry when the folder cannot be written', async () => {
    const blocked = makeTempDir('punchcard-blocked-');
    // A file where the outbox folder should be.
    writeFileSync(join(blocked.path, 'outbox'), 'not a folder');
    const messaging = startMessaging(engine, { dataDir: blocked.path, intervalMs: 60_000 });
    try {
      const id = await queue(engine, resetMessage());
      await messaging.drain();
      const row = await outboxRow(engine, id);
      expect(row).toMatchObject({ status: 'pending', attempts: 1 });
      expect(row.last_error).toMatch(/EEXIST|ENOTDIR/);
    } finally {
      await messaging.stop();
      await engine.db.deleteFrom('messages_outbox').execute();
      blocked.remove();
    }
  });

  // A tmpfs: needs root and the right to mount (CI runs as root); skipped elsewhere.
  it.runIf(smallDisk.mounted)('leave no half-written file behind, and deliver once there is room again', async () => {
    const outbox = join(smallDisk.path, 'outbox');
    mkdirSync(outbox);
    const filler = join(smallDisk.path, 'filler');
    fillDisk(filler);
    const messaging = startMessaging(engine, { dataDir: smallDisk.path, intervalMs: 60_000 });
    try {
      const id = await queue(engine, resetMessage({ token: 'FULL-DISK-TOKEN' }));
      await messaging.drain();
      expect(await outboxRow(engine, id)).toMatchObject({ status: 'pending', attempts: 1, last_error: expect.stringMatching(/ENOSPC/) });
      // The file the write began is gone: nothing in the folder a reader could take for a message.
      expect(readdirSync(outbox)).toEqual([]);

      rmSync(filler);
      clock.advance(60_000);
      await messaging.drain();
      expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent' });
      const files = readdirSync(outbox);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      expect(readFileSync(join(outbox, files[0]!), 'utf8')).toContain('FULL-DISK-TOKEN');
    } finally {
      await messaging.stop();
    }
  });
});

describe('a test node', () => {
  it('delivers to files in its data folder when no SMTP server is given', async () => {
    const node = await startTestNode();
    try {
      const { vendorId } = await node.addVendor('Panadería Sol');
      const id = await queue(node.engine, resetMessage({ vendorId, token: 'NODE-FILE-1' }));
      await node.messaging.drain();
      const files = readdirSync(join(node.dataDir, 'outbox'));
      expect(files).toEqual([expect.stringMatching(new RegExp(`^\\d{8}T\\d{9}Z-${id}\\.eml$`))]);
      const parsed = await PostalMime.parse(readFileSync(join(node.dataDir, 'outbox', files[0]!)));
      expect(extractCode(parsed.text!)).toBe('NODE-FILE-1');
    } finally {
      await node.close();
    }
  });
});
