import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import type { MessagingLogger } from '../../src/core/messaging/ports';
import { startMessageWorker } from '../../src/core/messaging/worker';
import { ManualClock } from '../support/clock';
import { deferred, eventually, openEngine, outboxRow, queue, RecordingTransports, resetMessage, sqliteBackend } from './support';

// The background worker: passes on a timer, wake(), drain() and a stop() that waits for the pass
// in flight. Real time is used only in steps of milliseconds; backoff moves the manual clock.

describe('message worker', () => {
  const clock = new ManualClock();
  let engine: Engine;
  let close: () => Promise<void>;
  let transports: RecordingTransports;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(sqliteBackend, clock));
  });

  afterAll(async () => {
    await close?.();
  });

  beforeEach(async () => {
    await engine.db.deleteFrom('messages_outbox').execute();
    transports = new RecordingTransports();
  });

  it('drain() delivers everything due, batch after batch, and stops when nothing is due', async () => {
    const worker = startMessageWorker(engine, transports, { intervalMs: 60_000, batchSize: 2 });
    try {
      for (let i = 0; i < 5; i++) await queue(engine, resetMessage({ to: `drain${i}@example.com` }));
      // One message fails for now: drain must not wait for its backoff.
      const stuck = await queue(engine, resetMessage({ to: 'stuck@example.com' }));
      const send = transports.mail.send;
      transports.mail.send = async (mail) => {
        if (mail.to === 'stuck@example.com') throw new Error('451 try later');
        return send(mail);
      };
      await worker.drain();
      expect(transports.mails.map((m) => m.to).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `drain${i}@example.com`));
      expect(await outboxRow(engine, stuck)).toMatchObject({ status: 'pending', attempts: 1 });

      transports.mail.send = send;
      clock.advance(5_000);
      await worker.drain();
      expect(await outboxRow(engine, stuck)).toMatchObject({ status: 'sent', attempts: 2 });
    } finally {
      await worker.stop();
    }
  });

  it('delivers on its own, every interval', async () => {
    const worker = startMessageWorker(engine, transports, { intervalMs: 10 });
    try {
      await queue(engine, resetMessage({ to: 'timer@example.com' }));
      await eventually(() => transports.mails.length === 1);
      await queue(engine, resetMessage({ to: 'timer2@example.com' }));
      await eventually(() => transports.mails.length === 2);
      expect(transports.mails.map((m) => m.to)).toEqual(['timer@example.com', 'timer2@example.com']);
    } finally {
      await worker.stop();
    }
  });

  it('wake() runs a pass now instead of at the next interval, even while a pass is running', async () => {
    const worker = startMessageWorker(engine, transports, { intervalMs: 60_000 });
    try {
      // The first pass (timer 0, so it fires before this later timer) finds nothing; drain()
      // queues behind it, so once drain returns no timed pass is pending for another minute.
      await new Promise((r) => setTimeout(r, 20));
      await worker.drain();
      await queue(engine, resetMessage({ to: 'woken@example.com' }));
      await new Promise((r) => setTimeout(r, 30));
      expect(transports.mails).toEqual([]);
      worker.wake();
      await eventually(() => transports.mails.length === 1);

      // A wake during a pass asks for another pass right after it.
      const gate = deferred();
      transports.delay = () => gate.promise;
      await queue(engine, resetMessage({ to: 'first@example.com' }));
      worker.wake();
      await eventually(async () => (await engine.db.selectFrom('messages_outbox').select('status').where('status', '=', 'sending').execute()).length === 1);
      await queue(engine, resetMessage({ to: 'second@example.com' }));
      worker.wake();
      gate.resolve();
      await eventually(() => transports.mails.length === 3);
      expect(transports.mails.map((m) => m.to)).toEqual(['woken@example.com', 'first@example.com', 'second@example.com']);
    } finally {
      await worker.stop();
    }
  });

  it('stop() waits for the pass in flight, and no pass runs after it', async () => {
    const worker = startMessageWorker(engine, transports, { intervalMs: 5 });
    const gate = deferred();
    transports.delay = () => gate.promise;
    const id = await queue(engine, resetMessage({ to: 'inflight@example.com' }));
    await eventually(async () => (await outboxRow(engine, id)).status === 'sending');

    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(await outboxRow(engine, id)).toMatchObject({ status: 'sent' });

    transports.delay = undefined;
    await queue(engine, resetMessage({ to: 'after-stop@example.com' }));
    worker.wake();
    await worker.drain();
    await new Promise((r) => setTimeout(r, 40));
    expect(transports.mails.map((m) => m.to)).toEqual(['inflight@example.com']);
  });

  it('stop() during a pass of several messages starts none after the one in hand (a mail outage would make the stop wait for each)', async () => {
    const worker = startMessageWorker(engine, transports, { intervalMs: 60_000 });
    await new Promise((r) => setTimeout(r, 20));
    await worker.drain();
    const gate = deferred();
    transports.delay = () => gate.promise;
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(await queue(engine, resetMessage({ to: `queued${i}@example.com` })));
    worker.wake();
    await eventually(async () => (await outboxRow(engine, ids[0]!)).status === 'sending');
    const stopping = worker.stop();
    gate.resolve();
    await stopping;
    expect(transports.mails.map((m) => m.to)).toEqual(['queued0@example.com']);
    // Left as they were for the next start: not tried, so no claim of theirs can count as interrupted.
    for (const id of ids.slice(1)) expect(await outboxRow(engine, id)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('logs a pass that fails and keeps going', async () => {
    const errors: Array<{ object: object; message: string }> = [];
    const logger: MessagingLogger = { info: () => {}, warn: () => {}, error: (object, message) => errors.push({ object, message }) };
    let broken = true;
    const flaky: Engine = {
      ...engine,
      clock: {
        now: () => {
          if (broken) {
            broken = false;
            throw new Error('clock unavailable');
          }
          return clock.now();
        },
      },
    };
    const worker = startMessageWorker(flaky, transports, { intervalMs: 10, logger });
    try {
      await queue(engine, resetMessage({ to: 'survivor@example.com' }));
      await eventually(() => transports.mails.length === 1);
      expect(errors).toEqual([{ object: { err: expect.objectContaining({ message: 'clock unavailable' }) }, message: 'message delivery pass failed' }]);
    } finally {
      await worker.stop();
    }
  });
});
