import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/core/credentials/secrets';
import { type Engine, transact } from '../../src/core/engine';
import { CODE_POLICY } from '../../src/core/customers/one-time-codes';
import { DEFAULT_RETRY_POLICY, deliverDueMessages, retryDelayMs } from '../../src/core/messaging/deliver';
import { DELIVERY_WINDOW_MS } from '../../src/core/messaging/delivery-window';
import { STAFF_TOKEN_HOURS } from '../../src/core/staff/staff-tokens';
import { MessageDeliveryError } from '../../src/core/messaging/delivery-error';
import { queueMessage } from '../../src/core/messaging/queue-message';
import { openParams } from '../../src/core/messaging/sealed-params';
import { nextObjectId } from '../../src/core/storage/ids';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { type Backend, deferred, openEngine, outboxRow, postgresBackend, queue, RecordingTransports, resetMessage, sqliteBackend } from './support';

// The outbox on both dialects: queueing in the caller's transaction, claiming, retries with
// backoff, giving up, and forgetting the parameters (one-time codes) once a message is done.

describe('retry delays', () => {
  it('double from 5 s after each failure, capped at one hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n))).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000]);
    expect(retryDelayMs(30)).toBe(3_600_000);
  });

  it('give a one-time code’s message as long as its code lives, a staff token’s as long as it does', () => {
    for (const purpose of ['password_reset', 'email_verification', 'sms_verification', 'account_deletion'] as const) {
      expect(DELIVERY_WINDOW_MS[purpose], purpose).toBe(CODE_POLICY[purpose].ttlMinutes * 60_000);
    }
    expect(DELIVERY_WINDOW_MS.staff_invitation).toBe(STAFF_TOKEN_HOURS.invitation * 3_600_000);
    expect(DELIVERY_WINDOW_MS.staff_password_reset).toBe(STAFF_TOKEN_HOURS.password_reset * 3_600_000);
  });
});

describe.each<Backend>([sqliteBackend, postgresBackend])('messages outbox on $name', (backend) => {
  const clock = new ManualClock();
  let engine: Engine;
  let close: () => Promise<void>;
  let vendorId: number;
  let transports: RecordingTransports;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
    ({ vendorId } = await setUpVendor(engine, {
      name: 'Café Luna',
      currency: 'USD',
      country: 'EC',
      store: { name: 'Centro', address1: 'Av. Amazonas 1', city: 'Quito' },
    }));
  });

  afterAll(async () => {
    await close?.();
  });

  beforeEach(async () => {
    // Each test starts with an empty outbox and nothing in flight.
    await engine.db.deleteFrom('messages_outbox').execute();
    transports = new RecordingTransports();
  });

  const pass = () => deliverDueMessages(engine, transports);

  it('queues inside the caller transaction: a rollback queues nothing, a commit queues a pending row', async () => {
    await expect(
      transact(engine, async (trx) => {
        await queueMessage(trx, engine, resetMessage({ vendorId }));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await engine.db.selectFrom('messages_outbox').selectAll().execute()).toEqual([]);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });

    const id = await queue(engine, resetMessage({ vendorId, token: 'R3SET-TOKEN' }));
    const row = await outboxRow(engine, id);
    expect(row).toMatchObject({
      vendor_id: vendorId,
      channel: 'email',
      recipient: 'ana@example.com',
      template: 'password_reset',
      locale: 'en',
      status: 'pending',
      attempts: 0,
      next_attempt_at: clock.now(),
      created_at: clock.now(),
      sent_at: null,
      last_error: null,
    });
    // Sealed under the node key: the token is not in the row; the worker opens it.
    expect(row.params).not.toContain('R3SET-TOKEN');
    expect(openParams(engine, row.params)).toEqual({ first_name: 'Ana', token: 'R3SET-TOKEN', vendor_name: 'Café Luna', expires_minutes: '30' });
    expect(Math.floor(id / 2 ** 32)).toBe(engine.nodeId);
  });

  it('stores the resolved language: regional Spanish is Spanish, unknown languages are English', async () => {
    const locales = { 'es-EC': 'es', ES: 'es', es: 'es', fr: 'en', '': 'en', 'pt-BR': 'en', en: 'en' };
    for (const [given, stored] of Object.entries(locales)) {
      const id = await queue(engine, resetMessage({ locale: given }));
      expect((await outboxRow(engine, id)).locale, given).toBe(stored);
    }
  });

  it('refuses programming mistakes and queues nothing', async () => {
    const mistakes = [
      resetMessage({ template: 'no_such_template' as never }),
      resetMessage({ channel: 'sms' }),
      resetMessage({ to: '  ' }),
      resetMessage({ to: 'not-an-email' }),
      resetMessage({ params: { first_name: 'Ana', vendor_name: 'Café Luna', expires_minutes: '30' } }),
      resetMessage({ params: { first_name: 'Ana', token: 'x', vendor_name: 'Café Luna', expires_minutes: '30', extra: 'y' } }),
      { ...resetMessage(), channel: 'email' as const, template: 'sms_verification' as const, params: { token: '123456', vendor_name: 'Café Luna' } },
    ];
    for (const message of mistakes) {
      await expect(queue(engine, message), JSON.stringify(message)).rejects.toThrow(TypeError);
    }
    expect(await engine.db.selectFrom('messages_outbox').selectAll().execute()).toEqual([]);
  });

  it('sends a due message once, marks it sent and clears its parameters', async () => {
    const email = await queue(engine, resetMessage({ token: 'ONCE-ONLY-1' }));
    const text = await queue(engine, { vendorId, channel: 'sms', to: '+593991234567', template: 'sms_verification', locale: 'es', params: { token: '482913', vendor_name: 'Café Luna' } });
    clock.advance(1_000);

    expect(await pass()).toEqual({ sent: 2, retrying: 0, failed: 0, skipped: 0 });
    expect(transports.mails).toHaveLength(1);
    expect(transports.mails[0]).toMatchObject({ from: transports.mailFrom, to: 'ana@example.com', subject: 'Reset your Café Luna password', id: email });
    expect(transports.mails[0]!.text).toMatch(/^Code: ONCE-ONLY-1$/m);
    expect(transports.texts).toEqual([{ to: '+593991234567', text: 'Café Luna: su código de verificación es 482913', id: text }]);
    for (const id of [email, text]) {
      expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', attempts: 1, sent_at: clock.now(), params: null });
    }

    clock.advance(24 * 3_600_000);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
    expect(transports.mails).toHaveLength(1);
  });

  it('does not send a message before it is due', async () => {
    const id = await queue(engine, resetMessage());
    expect((await deliverDueMessages(engine, transports, clock.now() - 1)).sent).toBe(0);
    expect((await outboxRow(engine, id)).status).toBe('pending');
    expect((await deliverDueMessages(engine, transports, clock.now())).sent).toBe(1);
  });

  it('retries transient failures with exponential backoff while the message is worth sending (a reset link: its hour), last a minute before its end, then gives up', async () => {
    const id = await queue(engine, resetMessage({ token: 'BACKOFF-TOKEN' }));
    const queuedAt = clock.now();
    transports.failWith = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2525 (BACKOFF-TOKEN)'), { code: 'ESOCKET' });

    // Tries at 0 s, 5, 15, 35 … 1,275 s; the 9th at 1,275 s would wait until 2,555 s, still in the hour.
    for (let attempt = 1; attempt <= 9; attempt++) {
      expect(await pass(), `attempt ${attempt}`).toEqual({ sent: 0, retrying: 1, failed: 0, skipped: 0 });
      const row = await outboxRow(engine, id);
      const wait = 5_000 * 2 ** (attempt - 1);
      expect(row).toMatchObject({ status: 'pending', attempts: attempt, next_attempt_at: clock.now() + wait });
      expect(row.last_error).toContain('ECONNREFUSED');
      expect(row.last_error).not.toContain('BACKOFF-TOKEN');
      expect(row.params).not.toBeNull();
      // Not due a millisecond early.
      clock.advance(wait - 1);
      expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
      clock.advance(1);
    }
    // The 10th fails at 2,555 s: the next step (5,115 s) would be after the link expired, so the
    // last try is a minute before its end (3,540 s); when that fails too, it is given up.
    expect(await pass()).toEqual({ sent: 0, retrying: 1, failed: 0, skipped: 0 });
    expect((await outboxRow(engine, id)).next_attempt_at).toBe(queuedAt + 3_540_000);
    clock.set(queuedAt + 3_540_000);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 1, skipped: 0 });
    const failed = await outboxRow(engine, id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 11, params: null, sent_at: null });
    expect(failed.last_error).toMatch(/^the message is no longer worth sending \(its window has passed\); last error: .*ECONNREFUSED/);

    transports.failWith = undefined;
    clock.advance(24 * 3_600_000);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
    expect(transports.mails).toEqual([]);
  });

  it('keeps an eGift’s claim code through an afternoon’s mail outage, and gives up only after its week', async () => {
    const gift = (code: string) =>
      resetMessage({ template: 'egift_received', params: { first_name: 'Bo', buyer_name: 'Ana', amount: '$25.00', vendor_name: 'Café Luna', code } });
    const down = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2525'), { code: 'ESOCKET' });
    /** Passes at each retry's time until `until`; how many tries failed. */
    const outage = async (id: number, until: number) => {
      let tries = 0;
      for (;;) {
        const row = await outboxRow(engine, id);
        if (row.status !== 'pending' || row.next_attempt_at > until) return tries;
        clock.set(Math.max(clock.now(), row.next_attempt_at));
        await pass();
        tries += 1;
      }
    };

    const kept = await queue(engine, gift('GIFT-KEPT-1'));
    const queuedAt = clock.now();
    transports.failWith = down;
    expect(await outage(kept, queuedAt + 6 * 3_600_000)).toBeGreaterThan(8);
    expect(await outboxRow(engine, kept)).toMatchObject({ status: 'pending' });
    transports.failWith = undefined;
    clock.set((await outboxRow(engine, kept)).next_attempt_at);
    expect((await pass()).sent).toBe(1);
    expect(transports.mails.at(-1)!.text).toContain('GIFT-KEPT-1');

    const lost = await queue(engine, gift('GIFT-LOST-2'));
    const lostAt = clock.now();
    transports.failWith = down;
    await outage(lost, Number.MAX_SAFE_INTEGER);
    const given = await outboxRow(engine, lost);
    expect(given).toMatchObject({ status: 'failed', params: null });
    // Tried hourly to the end of its week: the last try within the hour before it.
    expect(clock.now()).toBeLessThanOrEqual(lostAt + 7 * 86_400_000);
    expect(clock.now()).toBeGreaterThan(lostAt + 7 * 86_400_000 - 3_600_000);
  });

  it('gives an SMS code up within its ten minutes', async () => {
    const id = await queue(engine, { vendorId: null, channel: 'sms', to: '+593991234567', template: 'sms_verification', locale: 'en', params: { token: '551204', vendor_name: 'Café Luna' } });
    const queuedAt = clock.now();
    transports.failWith = () => Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' });
    for (;;) {
      const row = await outboxRow(engine, id);
      if (row.status !== 'pending') break;
      clock.set(Math.max(clock.now(), row.next_attempt_at));
      await pass();
    }
    // 0, 5, 15 … 315 s, then the last try a minute before its end.
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'failed', attempts: 8 });
    expect(clock.now() - queuedAt).toBe(540_000);
  });

  it('delivers on a later attempt once the transport recovers', async () => {
    const id = await queue(engine, resetMessage({ token: 'LATER-TOKEN' }));
    transports.failWith = () => new Error('451 4.3.0 try again later');
    expect((await pass()).retrying).toBe(1);
    transports.failWith = undefined;
    clock.advance(5_000);
    expect((await pass()).sent).toBe(1);
    const row = await outboxRow(engine, id);
    expect(row).toMatchObject({ status: 'sent', attempts: 2, params: null, sent_at: clock.now() });
    expect(transports.mails[0]!.text).toContain('Code: LATER-TOKEN');
  });

  it('gives up at once on a permanent failure, and clears the parameters', async () => {
    const id = await queue(engine, resetMessage({ token: 'PERM-TOKEN', to: 'nobody@example.com' }));
    transports.failWith = () => new MessageDeliveryError('EENVELOPE 550: 5.1.1 <nobody@example.com>: no such user (PERM-TOKEN)', { permanent: true });
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 1, skipped: 0 });
    const row = await outboxRow(engine, id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, params: null });
    expect(row.last_error).toContain('550');
    expect(row.last_error).not.toContain('PERM-TOKEN');

    transports.failWith = undefined;
    clock.advance(3_600_000);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
    expect(transports.mails).toEqual([]);
  });

  it('keeps credentials and one-time codes out of last_error, and keeps it short', async () => {
    const id = await queue(engine, resetMessage({ token: 'S3CRET-CODE' }));
    transports.failWith = () => new Error(`cannot reach smtp://shop:hunter2@mail.example.com:587 while sending S3CRET-CODE ${'x'.repeat(2_000)}`);
    await pass();
    const { last_error } = await outboxRow(engine, id);
    expect(last_error).toContain('smtp://[redacted]@mail.example.com:587');
    expect(last_error).not.toMatch(/hunter2|S3CRET-CODE/);
    expect(last_error!.length).toBeLessThanOrEqual(500);
  });

  it('keeps the parameters sealed at rest: no token in the table while the message waits, nor after; the message carries it', async () => {
    const id = await queue(engine, resetMessage({ token: 'SEALED-TOKEN-77' }));
    const stored = await engine.db.selectFrom('messages_outbox').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain('SEALED-TOKEN-77');
    expect((await outboxRow(engine, id)).params).toMatch(/^v1\./);
    expect(await pass()).toEqual({ sent: 1, retrying: 0, failed: 0, skipped: 0 });
    expect(transports.mails[0]!.text).toContain('Code: SEALED-TOKEN-77');
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', params: null });
  });

  it('still sends a row queued with plain parameters by an earlier version, and clears them', async () => {
    const id = await nextObjectId(engine.db, engine.nodeId);
    const params = JSON.stringify({ first_name: 'Ana', token: 'OLD-PLAIN-1', vendor_name: 'Café Luna', expires_minutes: '30' });
    await engine.db
      .insertInto('messages_outbox')
      .values({ id, vendor_id: null, channel: 'email', recipient: 'ana@example.com', template: 'password_reset', locale: 'en', params, status: 'pending', attempts: 0, next_attempt_at: clock.now(), last_error: null, created_at: clock.now(), sent_at: null })
      .execute();
    expect((await pass()).sent).toBe(1);
    expect(transports.mails[0]!.text).toContain('Code: OLD-PLAIN-1');
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', params: null });
  });

  it('gives up on parameters sealed under another node key (a database moved without its node.key), without retrying', async () => {
    const id = await nextObjectId(engine.db, engine.nodeId);
    const foreign = new Sealer(randomBytes(32)).seal(JSON.stringify({ first_name: 'Ana', token: 'OTHER-KEY-1', vendor_name: 'Café Luna', expires_minutes: '30' }));
    await engine.db
      .insertInto('messages_outbox')
      .values({ id, vendor_id: null, channel: 'email', recipient: 'ana@example.com', template: 'password_reset', locale: 'en', params: foreign, status: 'pending', attempts: 0, next_attempt_at: clock.now(), last_error: null, created_at: clock.now(), sent_at: null })
      .execute();
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 1, skipped: 0 });
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'failed', attempts: 1, params: null });
    expect(transports.mails).toEqual([]);
  });

  it('fails a message that cannot be rendered without retrying it', async () => {
    const id = await nextObjectId(engine.db, engine.nodeId);
    await engine.db
      .insertInto('messages_outbox')
      .values({ id, vendor_id: null, channel: 'email', recipient: 'ana@example.com', template: 'gone_template', locale: 'en', params: '{}', status: 'pending', attempts: 0, next_attempt_at: clock.now(), last_error: null, created_at: clock.now(), sent_at: null })
      .execute();
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 1, skipped: 0 });
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'failed', attempts: 1, params: null });
    expect((await outboxRow(engine, id)).last_error).toContain('gone_template');
  });

  it('two concurrent passes never send a message twice', async () => {
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push(await queue(engine, resetMessage({ to: `customer${i}@example.com` })));
    // Each send takes a moment, so the passes overlap for their whole length.
    transports.delay = () => new Promise((resolve) => setTimeout(resolve, 2));

    const reports = await Promise.all([pass(), pass(), pass()]);
    const sentIds = transports.mails.map((m) => m.id);
    expect(sentIds).toHaveLength(12);
    expect(new Set(sentIds)).toEqual(new Set(ids));
    expect(reports.reduce((sum, r) => sum + r.sent, 0)).toBe(12);
    // A pass skips what another claimed first; how many it even sees depends on timing (a pass that
    // reads after a claim does not see the row at all), so only the bound is fixed.
    expect(reports.reduce((sum, r) => sum + r.skipped, 0)).toBeLessThanOrEqual(24);
    const rows = await engine.db.selectFrom('messages_outbox').select(['status', 'attempts']).execute();
    expect(rows.every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
  });

  it('a message claimed by a pass that died is sent again once its lease ends', async () => {
    const id = await queue(engine, resetMessage({ token: 'LEASED-TOKEN' }));
    // What a pass that claimed it and then crashed mid-send leaves behind.
    await engine.db
      .updateTable('messages_outbox')
      .set({ status: 'sending', attempts: 1, next_attempt_at: clock.now() + DEFAULT_RETRY_POLICY.leaseMs })
      .where('id', '=', id)
      .execute();
    clock.advance(DEFAULT_RETRY_POLICY.leaseMs - 1);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
    clock.advance(1);
    expect(await pass()).toEqual({ sent: 1, retrying: 0, failed: 0, skipped: 0 });
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', attempts: 2, params: null });
  });

  it('a message whose claim ended after its window is given up, not sent late', async () => {
    const id = await queue(engine, { vendorId: null, channel: 'sms', to: '+593991234567', template: 'sms_verification', locale: 'en', params: { token: '551204', vendor_name: 'Café Luna' } });
    // Claimed 6 minutes in, then the pass died: its lease (5 minutes) ends after the code's 10.
    clock.advance(6 * 60_000);
    await engine.db
      .updateTable('messages_outbox')
      .set({ status: 'sending', attempts: 3, next_attempt_at: clock.now() + DEFAULT_RETRY_POLICY.leaseMs })
      .where('id', '=', id)
      .execute();
    clock.advance(DEFAULT_RETRY_POLICY.leaseMs);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 1, skipped: 0 });
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'failed', params: null, last_error: expect.stringMatching(/no longer worth sending/) });
    expect(transports.texts).toEqual([]);
  });

  it('a message first due after its window (the node was off) is given up, not sent stale', async () => {
    const id = await queue(engine, resetMessage({ token: 'STALE-TOKEN' }));
    clock.advance(DELIVERY_WINDOW_MS.password_reset + 1);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 1, skipped: 0 });
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'failed', params: null, last_error: expect.stringMatching(/window has passed/) });
    expect(transports.mails).toEqual([]);
  });

  it('a pass whose claim expired cannot overwrite the outcome of the pass that took over', async () => {
    const id = await queue(engine, resetMessage());
    const slow = new RecordingTransports();
    let release!: () => void;
    const inFlight = deferred();
    slow.delay = () => {
      inFlight.resolve();
      return new Promise((resolve) => (release = resolve));
    };
    slow.failWith = () => new Error('ETIMEDOUT: the server went silent');
    const stale = deliverDueMessages(engine, slow);
    // Its send has begun (a fixed wait was too short for PostgreSQL on a busy machine).
    await inFlight.promise;
    expect((await outboxRow(engine, id)).status).toBe('sending');

    clock.advance(DEFAULT_RETRY_POLICY.leaseMs);
    expect(await pass()).toEqual({ sent: 1, retrying: 0, failed: 0, skipped: 0 });
    release();
    await stale;
    // The late failure of the first pass is dropped: the message stays sent.
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', attempts: 2, params: null });
  });

  it('takes at most one batch per pass, oldest first', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await queue(engine, resetMessage({ to: `batch${i}@example.com` })));
      clock.advance(1);
    }
    expect((await deliverDueMessages(engine, transports, clock.now(), { batchSize: 2 })).sent).toBe(2);
    expect(transports.mails.map((m) => m.id)).toEqual(ids.slice(0, 2));
    expect((await deliverDueMessages(engine, transports, clock.now(), { batchSize: 10 })).sent).toBe(3);
    expect(transports.mails.map((m) => m.id)).toEqual(ids);
  });
});
