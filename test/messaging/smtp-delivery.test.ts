import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { deliverDueMessages } from '../../src/core/messaging/deliver';
import type { MessageTransports } from '../../src/core/messaging/ports';
import { openParams } from '../../src/core/messaging/sealed-params';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { classifySmtpError, createSmtpMailTransport } from '../../src/server/messaging/smtp-transport';
import { createMessageTransports, DEFAULT_MAIL_FROM } from '../../src/server/messaging/start-messaging';
import { ManualClock } from '../support/clock';
import { extractCode, freePort, type Mailbox, startMailbox } from '../support/mailbox';
import { makeTempDir } from '../support/temp-dir';
import { openEngine, outboxRow, queue, resetMessage, sqliteBackend } from './support';

// Delivery through a real SMTP server (smtp-server in this process), read back as a mail client would.

describe('delivery by SMTP', () => {
  const clock = new ManualClock();
  const dataDir = makeTempDir('punchcard-smtp-');
  let engine: Engine;
  let close: () => Promise<void>;
  let vendorId: number;
  let mailbox: Mailbox;
  let transports: MessageTransports & { mail: { close?(): unknown } };

  beforeAll(async () => {
    ({ engine, close } = await openEngine(sqliteBackend, clock));
    ({ vendorId } = await setUpVendor(engine, { name: 'Café Luna', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. Amazonas 1', city: 'Quito' } }));
  });

  afterAll(async () => {
    await close?.();
    dataDir.remove();
  });

  beforeEach(async () => {
    await engine.db.deleteFrom('messages_outbox').execute();
    mailbox = await startMailbox();
    transports = createMessageTransports(engine, { dataDir: dataDir.path, smtpUrl: mailbox.url });
  });

  afterEach(async () => {
    await transports.mail.close?.();
    await mailbox.close();
  });

  const pass = () => deliverDueMessages(engine, transports);

  it('delivers an English password reset whose code a customer can read', async () => {
    const id = await queue(engine, resetMessage({ vendorId, token: 'RST-2K9Q-77PX' }));
    expect(await pass()).toMatchObject({ sent: 1 });

    const mail = await mailbox.waitFor((m) => m.to.includes('ana@example.com'));
    expect(mail.envelope).toEqual({ from: 'no-reply@punchcard.local', to: ['ana@example.com'] });
    expect(mail.from).toBe('no-reply@punchcard.local');
    expect(mail.subject).toBe('Reset your Café Luna password');
    expect(mail.text).toMatch(/^Hi Ana,$/m);
    expect(mail.text).toContain('reset the password of your Café Luna account');
    expect(extractCode(mail.text)).toBe('RST-2K9Q-77PX');
    expect(mail.html).toContain('RST-2K9Q-77PX');
    expect(mail.messageId).toBe(`<punchcard.${id}@punchcard.local>`);
    expect(new Date(mail.date!).getTime()).toBe(Math.floor(clock.now() / 1000) * 1000);
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', attempts: 1, params: null, sent_at: clock.now() });
    expect(DEFAULT_MAIL_FROM).toBe('Punchcard <no-reply@punchcard.local>');
  });

  it('delivers Spanish messages to Spanish-speaking customers', async () => {
    await queue(engine, {
      vendorId,
      channel: 'email',
      to: 'lucia@example.com',
      template: 'account_deletion',
      locale: 'es-EC',
      params: { first_name: 'Lucía', code: '904113', vendor_name: 'Café Luna', expires_minutes: '15' },
    });
    await queue(engine, { vendorId, channel: 'email', to: 'mateo@example.com', template: 'email_verification', locale: 'es', params: { first_name: 'Mateo', token: 'VRF-Q8', vendor_name: 'Café Luna' } });
    expect(await pass()).toMatchObject({ sent: 2 });

    const deletion = await mailbox.waitFor((m) => m.to.includes('lucia@example.com'));
    expect(deletion.subject).toBe('Confirme la eliminación de su cuenta de Café Luna');
    expect(deletion.text).toMatch(/^¡Hola, Lucía!$/m);
    expect(deletion.text).toMatch(/^Código: 904113$/m);
    expect(extractCode(deletion.text)).toBe('904113');
    expect(deletion.html).toContain('<html lang="es">');

    const verification = await mailbox.waitFor((m) => m.to.includes('mateo@example.com'));
    expect(verification.subject).toBe('Confirme su correo electrónico en Café Luna');
    expect(extractCode(verification.text)).toBe('VRF-Q8');
  });

  it('logs in with the credentials of the URL and sends from the configured sender', async () => {
    const authed = createMessageTransports(engine, {
      dataDir: dataDir.path,
      smtpUrl: mailbox.url.replace('smtp://', 'smtp://shop%40luna:p%40ss@'),
      mailFrom: 'Café Luna <hola@cafeluna.ec>',
    });
    await queue(engine, resetMessage());
    expect(await deliverDueMessages(engine, authed)).toMatchObject({ sent: 1 });
    const mail = await mailbox.waitFor(() => true);
    expect(mail.authUser).toBe('shop@luna');
    expect(mail.envelope.from).toBe('hola@cafeluna.ec');
    expect(mail.raw).toMatch(/^From: =\?UTF-8\?.*<hola@cafeluna\.ec>$/m);
    expect(mail.messageId).toMatch(/@cafeluna\.ec>$/);
    await authed.mail.close?.();
  });

  it('retries with backoff while the SMTP server is down, and delivers once it is up', async () => {
    const port = await freePort();
    const down = createMessageTransports(engine, { dataDir: dataDir.path, smtpUrl: `smtp://127.0.0.1:${port}` });
    const id = await queue(engine, resetMessage({ token: 'WAIT-FOR-IT-1' }));

    expect(await deliverDueMessages(engine, down)).toEqual({ sent: 0, retrying: 1, failed: 0, skipped: 0 });
    let row = await outboxRow(engine, id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: clock.now() + 5_000 });
    expect(row.last_error).toMatch(/ECONNREFUSED/);
    expect(openParams(engine, row.params)).toMatchObject({ token: 'WAIT-FOR-IT-1' });

    // Not due again before the backoff ends.
    expect(await deliverDueMessages(engine, down)).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
    clock.advance(5_000);
    expect(await deliverDueMessages(engine, down)).toEqual({ sent: 0, retrying: 1, failed: 0, skipped: 0 });
    row = await outboxRow(engine, id);
    expect(row).toMatchObject({ status: 'pending', attempts: 2, next_attempt_at: clock.now() + 10_000 });

    const late = await startMailbox({ port });
    try {
      clock.advance(9_999);
      expect(await deliverDueMessages(engine, down)).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
      expect(late.messages).toEqual([]);
      clock.advance(1);
      expect(await deliverDueMessages(engine, down)).toEqual({ sent: 1, retrying: 0, failed: 0, skipped: 0 });
      const mail = await late.waitFor((m) => m.to.includes('ana@example.com'));
      expect(extractCode(mail.text)).toBe('WAIT-FOR-IT-1');
      expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', attempts: 3, params: null, sent_at: clock.now() });
    } finally {
      await down.mail.close?.();
      await late.close();
    }
  });

  it('gives up at once when the server rejects the recipient (550), and still delivers the others', async () => {
    mailbox.rejectRecipients(/^nobody@/);
    const rejected = await queue(engine, resetMessage({ to: 'nobody@example.com', token: 'NEVER-SENT-1' }));
    const fine = await queue(engine, resetMessage({ to: 'ana@example.com' }));
    expect(await pass()).toEqual({ sent: 1, retrying: 0, failed: 1, skipped: 0 });

    const row = await outboxRow(engine, rejected);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, params: null, sent_at: null });
    expect(row.last_error).toMatch(/EENVELOPE 550/);
    expect(row.last_error).not.toContain('NEVER-SENT-1');
    expect((await outboxRow(engine, fine)).status).toBe('sent');

    clock.advance(3_600_000);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
    expect(mailbox.messages.map((m) => m.to)).toEqual([['ana@example.com']]);
  });

  it('refuses URLs that are not SMTP', () => {
    expect(() => createSmtpMailTransport('http://mail.example.com')).toThrow(/smtp:\/\/ or smtps:\/\//);
    expect(() => createSmtpMailTransport('not a url')).toThrow(/smtp:\/\/user:password@host/);
    expect(() => createMessageTransports(engine, { dataDir: dataDir.path, mailFrom: 'nobody' })).toThrow(/mail sender/);
  });
});

describe('SMTP failures', () => {
  it('are permanent only when the server refused the message or its recipient', () => {
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ code: 'EENVELOPE', responseCode: 550, permanent: true }, true],
      [{ code: 'EENVELOPE', responseCode: 553 }, true],
      [{ code: 'EMESSAGE', responseCode: 554, permanent: true }, true],
      [{ code: 'EENVELOPE' }, true],
      [{ code: 'EENVELOPE', responseCode: 450, permanent: false }, false],
      [{ code: 'EMESSAGE', responseCode: 452 }, false],
      [{ code: 'EENVELOPE', responseCode: 503 }, false],
      [{ code: 'EAUTH', responseCode: 535, permanent: true }, false],
      [{ code: 'ESOCKET' }, false],
      [{ code: 'ECONNECTION' }, false],
      [{ code: 'ETIMEDOUT' }, false],
      [{ code: 'ETLS' }, false],
      [{ code: 'EPROTOCOL', responseCode: 554 }, false],
      [{}, false],
    ];
    for (const [fields, permanent] of cases) {
      const error = Object.assign(new Error('boom'), fields);
      expect(classifySmtpError(error).permanent, JSON.stringify(fields)).toBe(permanent);
    }
    expect(classifySmtpError(Object.assign(new Error('Recipient rejected'), { code: 'EENVELOPE', responseCode: 550 })).message).toBe('EENVELOPE 550: Recipient rejected');
  });
});
