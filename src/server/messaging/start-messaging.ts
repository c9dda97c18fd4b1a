import { join } from 'node:path';
import addressparser from 'nodemailer/lib/addressparser';
import type { Engine } from '../../core/engine';
import type { MailTransport, MessageTransports, MessagingLogger, SmsProvider } from '../../core/messaging/ports';
import { type MessageWorker, type MessageWorkerOptions, startMessageWorker } from '../../core/messaging/worker';
import { createFileMailTransport, createFileSmsProvider } from './file-transports';
import { createSmtpMailTransport, describeSmtpUrl } from './smtp-transport';

export const DEFAULT_MAIL_FROM = 'Punchcard <no-reply@punchcard.local>';

export interface MessagingOptions {
  /** The node's data folder; the file transports write to its `outbox/` folder. */
  dataDir: string;
  /** smtp://user:pass@host:port or smtps://…; without it emails are written as files. */
  smtpUrl?: string | undefined;
  /** From of every email; DEFAULT_MAIL_FROM when absent. */
  mailFrom?: string | undefined;
  /** An SMS gateway; the file provider when absent. */
  sms?: SmsProvider | undefined;
  logger?: MessagingLogger | undefined;
  /** Pause between worker passes (default 500 ms). */
  intervalMs?: number | undefined;
  policy?: MessageWorkerOptions['policy'];
}

export interface Messaging extends MessageWorker {
  /** Where emails go: `smtp://host:port` (no credentials) or the outbox folder. */
  mailTarget: string;
  /** `<data>/outbox`, where file transports write. */
  outboxDir: string;
}

/** Checks a From address: one mailbox, `Name <a@b.c>` or `a@b.c`. */
export function checkMailFrom(from: string): string {
  const value = from.trim();
  const parsed = addressparser(value, { flatten: true });
  if (parsed.length !== 1 || !/^[^\s@]+@[^\s@]+$/.test(parsed[0]?.address ?? '')) {
    throw new Error(`The mail sender must be one address like "Shop <no-reply@shop.example>", not ${JSON.stringify(from)}.`);
  }
  return value;
}

/** The transports a node uses: SMTP when a URL is given, else files in `<data>/outbox`. */
export function createMessageTransports(engine: Engine, options: MessagingOptions): MessageTransports & { mailTarget: string; outboxDir: string } {
  const outboxDir = join(options.dataDir, 'outbox');
  const mailFrom = checkMailFrom(options.mailFrom ?? DEFAULT_MAIL_FROM);
  let mail: MailTransport;
  let mailTarget: string;
  if (options.smtpUrl) {
    mail = createSmtpMailTransport(options.smtpUrl, { clock: engine.clock });
    mailTarget = describeSmtpUrl(options.smtpUrl);
  } else {
    mail = createFileMailTransport(outboxDir, { clock: engine.clock });
    mailTarget = outboxDir;
  }
  const sms = options.sms ?? createFileSmsProvider(outboxDir, { clock: engine.clock });
  return { mail, sms, mailFrom, mailTarget, outboxDir };
}

/**
 * Starts delivering the node's outbox. Stop it before closing the engine: stop() waits for the
 * pass in flight, then closes the transports.
 */
export function startMessaging(engine: Engine, options: MessagingOptions): Messaging {
  const transports = createMessageTransports(engine, options);
  const workerOptions: MessageWorkerOptions = {};
  if (options.intervalMs !== undefined) workerOptions.intervalMs = options.intervalMs;
  if (options.logger !== undefined) workerOptions.logger = options.logger;
  if (options.policy !== undefined) workerOptions.policy = options.policy;
  const worker = startMessageWorker(engine, transports, workerOptions);
  options.logger?.info({ mail: transports.mailTarget, from: transports.mailFrom }, `messages: emails to ${transports.mailTarget}`);
  let stopping: Promise<void> | undefined;
  return {
    mailTarget: transports.mailTarget,
    outboxDir: transports.outboxDir,
    wake: () => worker.wake(),
    drain: () => worker.drain(),
    stop: () => {
      stopping ??= worker.stop().then(async () => {
        await transports.mail.close?.();
        await transports.sms.close?.();
      });
      return stopping;
    },
  };
}
