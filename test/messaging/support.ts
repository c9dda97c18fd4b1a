import { randomBytes } from 'node:crypto';
import { type Engine, transact } from '../../src/core/engine';
import type { MailTransport, MessageTransports, OutgoingMail, OutgoingSms, SmsProvider } from '../../src/core/messaging/ports';
import { type NewMessage, queueMessage } from '../../src/core/messaging/queue-message';

// Helpers shared by the messaging tests (not a test file itself).

export { type Backend, openEngine, postgresBackend, sqliteBackend } from '../support/backends';

/** A transport that records what it was asked to send and fails on demand. */
export class RecordingTransports implements MessageTransports {
  mails: OutgoingMail[] = [];
  texts: OutgoingSms[] = [];
  mailFrom = 'Test Shop <no-reply@shop.test>';
  /** Thrown by the next sends (until set back to undefined). */
  failWith: (() => unknown) | undefined;
  /** Awaited inside every send, before it resolves (to keep sends in flight). */
  delay: (() => Promise<void>) | undefined;

  mail: MailTransport = {
    send: async (mail) => {
      await this.delay?.();
      if (this.failWith) throw this.failWith();
      this.mails.push(mail);
    },
  };

  sms: SmsProvider = {
    send: async (sms) => {
      await this.delay?.();
      if (this.failWith) throw this.failWith();
      this.texts.push(sms);
    },
  };
}

export function resetMessage(overrides: Partial<NewMessage> & { token?: string } = {}): NewMessage {
  const { token, ...rest } = overrides;
  return {
    vendorId: null,
    channel: 'email',
    to: 'ana@example.com',
    template: 'password_reset',
    locale: 'en',
    params: { first_name: 'Ana', token: token ?? `tok-${randomBytes(6).toString('hex')}`, vendor_name: 'Café Luna', expires_minutes: '30' },
    ...rest,
  };
}

export function queue(engine: Engine, message: NewMessage): Promise<number> {
  return transact(engine, (trx) => queueMessage(trx, engine, message));
}

export function outboxRow(engine: Engine, id: number) {
  return engine.db.selectFrom('messages_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Polls until `probe` is true (real time, short waits only). */
export async function eventually(probe: () => boolean | Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
