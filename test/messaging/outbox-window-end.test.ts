import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { DEFAULT_RETRY_POLICY, deliverDueMessages } from '../../src/core/messaging/deliver';
import { DELIVERY_WINDOW_MS } from '../../src/core/messaging/delivery-window';
import type { MessagingLogger } from '../../src/core/messaging/ports';
import { ManualClock } from '../support/clock';
import { type Backend, deferred, openEngine, outboxRow, postgresBackend, queue, RecordingTransports, resetMessage, sqliteBackend } from './support';

// The end of a message's window (docs/decisions.md, "Nineteenth round: messages to the end of their
// window"): doubling waits left the last third of every window untried (a reset link given up at
// 45 of its 60 minutes), so the try the backoff would place after the window is made a minute
// before its end instead; and a message whose sending stops the node is given up after three such
// stops, not retried through its window (200 crashes).

const MINUTE = 60_000;
const smsCode = { vendorId: null, channel: 'sms' as const, to: '+593991234567', template: 'sms_verification' as const, locale: 'en', params: { token: '551204', vendor_name: 'Café Luna' } };
const serverDown = () => Object.assign(new Error('421 service not available'), { code: 'EENVELOPE' });

describe.each<Backend>([sqliteBackend, postgresBackend])('the end of a message’s window on $name', (backend) => {
  const clock = new ManualClock();
  let engine: Engine;
  let close: () => Promise<void>;
  let transports: RecordingTransports;
  let logged: { level: string; object: Record<string, unknown>; message: string }[];
  const logger: MessagingLogger = {
    info: (object, message) => logged.push({ level: 'info', object: object as Record<string, unknown>, message }),
    warn: (object, message) => logged.push({ level: 'warn', object: object as Record<string, unknown>, message }),
    error: (object, message) => logged.push({ level: 'error', object: object as Record<string, unknown>, message }),
  };

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
  });
  afterAll(async () => {
    await close?.();
  });
  beforeEach(async () => {
    await engine.db.deleteFrom('messages_outbox').execute();
    transports = new RecordingTransports();
    logged = [];
  });

  const pass = () => deliverDueMessages(engine, transports, clock.now(), { logger });
  /** Passes every 30 s (as a busy worker would) from now until `until`. */
  const passEvery30s = async (until: number, onTick: (at: number) => void = () => {}) => {
    while (clock.now() < until) {
      onTick(clock.now());
      await pass();
      clock.advance(30_000);
    }
  };

  it('delivers a reset link once a 50-minute mail outage ends, in the ten minutes its code has left', async () => {
    const start = clock.now();
    const id = await queue(engine, resetMessage({ token: 'OUTAGE-50' }));
    transports.failWith = serverDown;
    await passEvery30s(start + DELIVERY_WINDOW_MS.password_reset, (at) => {
      if (at >= start + 50 * MINUTE) transports.failWith = undefined;
    });
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', params: null });
    // The backoff's next step (85 min) fell after the hour: the last try was a minute before its end.
    expect((await outboxRow(engine, id)).sent_at).toBe(start + 59 * MINUTE);
    expect(transports.mails.map((m) => m.id)).toEqual([id]);
  });

  it('tries an SMS code until the last minute of its ten, then gives it up saying its window ended, with the last error', async () => {
    const start = clock.now();
    const id = await queue(engine, smsCode);
    transports.failWith = serverDown;
    const tries: number[] = [];
    for (;;) {
      const row = await outboxRow(engine, id);
      if (row.status !== 'pending') break;
      clock.set(Math.max(clock.now(), row.next_attempt_at));
      tries.push((clock.now() - start) / 1000);
      await pass();
    }
    // Doubling from 5 s, then (635 s would be past 600 s) the last try at 540 s.
    expect(tries).toEqual([0, 5, 15, 35, 75, 155, 315, 540]);
    const row = await outboxRow(engine, id);
    expect(row).toMatchObject({ status: 'failed', attempts: 8, params: null });
    expect(row.last_error).toMatch(/^the message is no longer worth sending \(its window has passed\); last error: EENVELOPE: 421 service not available$/);
    // The log says it in the same words as the row.
    expect(logged.at(-1)).toMatchObject({ level: 'error', message: 'message not delivered; gave up', object: { message_id: id, error: row.last_error } });
  });

  it('says the same words when the window had passed before a pass reached the message', async () => {
    const id = await queue(engine, smsCode);
    clock.advance(DELIVERY_WINDOW_MS.sms_verification + 1);
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 1, skipped: 0 });
    expect((await outboxRow(engine, id)).last_error).toBe('the message is no longer worth sending (its window has passed)');
  });

  it('still gives up at once on a permanent failure near the window’s end', async () => {
    const id = await queue(engine, smsCode);
    clock.advance(8 * MINUTE);
    transports.failWith = () => Object.assign(new Error('21211 invalid To number'), { permanent: true });
    expect(await pass()).toEqual({ sent: 0, retrying: 0, failed: 1, skipped: 0 });
    expect((await outboxRow(engine, id)).last_error).toBe('21211 invalid To number');
  });

  it('gives up a message whose sending stops the node after three such stops, saying why', async () => {
    const start = clock.now();
    const id = await queue(engine, { vendorId: null, channel: 'email', to: 'ana@example.com', template: 'billing_profile_expiring', locale: 'en', params: { first_name: 'Ana', vendor_name: 'Café', brand: 'visa', last4: '4242', expiry: '12/26' } });
    let crashes = 0;
    for (let restart = 0; restart < 20; restart++) {
      // A send that never settles stands for the crash: the pass is abandoned with its row `sending`.
      const crashing = new RecordingTransports();
      const sending = deferred();
      crashing.delay = () => {
        sending.resolve();
        return new Promise(() => {});
      };
      const passed = deliverDueMessages(engine, crashing, clock.now(), { logger });
      // Either the pass claims the message and hangs in its send, or it ends without sending.
      const outcome = await Promise.race([sending.promise.then(() => 'crashed'), passed.then(() => 'ended')]);
      if (outcome === 'ended') break;
      crashes += 1;
      clock.advance(DEFAULT_RETRY_POLICY.leaseMs + 1);
    }
    expect(crashes).toBe(3);
    expect(clock.now() - start).toBeLessThan(20 * MINUTE);
    const row = await outboxRow(engine, id);
    expect(row).toMatchObject({ status: 'failed', attempts: 4, interrupted_sends: 3, params: null });
    expect(row.last_error).toMatch(/sending was interrupted 3 times/);
  });

  it('counts only interrupted sends against that limit: an ordinary failure after two stops is retried by the window rule', async () => {
    const id = await queue(engine, resetMessage({ token: 'TWO-STOPS' }));
    // Left `sending` twice by passes that died (the second claim found the first abandoned).
    await engine.db.updateTable('messages_outbox').set({ status: 'sending', attempts: 2, interrupted_sends: 1, next_attempt_at: clock.now() }).where('id', '=', id).execute();
    transports.failWith = serverDown;
    expect(await pass()).toEqual({ sent: 0, retrying: 1, failed: 0, skipped: 0 });
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'pending', attempts: 3, interrupted_sends: 2 });
    for (let i = 0; i < 5; i++) {
      clock.set((await outboxRow(engine, id)).next_attempt_at);
      expect((await pass()).retrying).toBe(1);
    }
    transports.failWith = undefined;
    clock.set((await outboxRow(engine, id)).next_attempt_at);
    expect((await pass()).sent).toBe(1);
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent', attempts: 9, interrupted_sends: 2 });
  });
});
