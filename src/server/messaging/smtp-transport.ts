import nodemailer from 'nodemailer';
import { MessageDeliveryError } from '../../core/messaging/delivery-error';
import type { MailTransport, OutgoingMail } from '../../core/messaging/ports';
import { messageIdFor } from './message-id';

export interface SmtpTransportOptions {
  /** Milliseconds to open the connection, to get the greeting, and of silence mid-session. */
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
  clock?: { now(): number };
}

/** Checks an SMTP URL (`smtp://user:pass@host:port`, `smtps://…`); returns it parsed. */
export function parseSmtpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('The SMTP server must be a URL like smtp://user:password@host:587 or smtps://user:password@host:465.');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') throw new Error(`The SMTP URL must start with smtp:// or smtps://, not ${parsed.protocol}//.`);
  if (!parsed.hostname) throw new Error('The SMTP URL needs a host name.');
  return parsed;
}

/** host:port of an SMTP URL, for logs (never the credentials). */
export function describeSmtpUrl(url: string): string {
  const parsed = parseSmtpUrl(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * Classifies a nodemailer failure. Permanent only when the server refused this message or its
 * recipient (a 5xx reply to MAIL/RCPT/DATA, or an address nodemailer cannot use): the same message
 * would be refused again. Connection, timeout, TLS, protocol and authentication failures are about
 * the link to the server (or its configuration) and 4xx replies ask to try later: transient.
 */
export function classifySmtpError(error: unknown): MessageDeliveryError {
  const e = (error ?? {}) as { code?: unknown; responseCode?: unknown; permanent?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const aboutMessage = code === 'EENVELOPE' || code === 'EMESSAGE';
  const permanent = aboutMessage && (responseCode === undefined ? code === 'EENVELOPE' : e.permanent === true || (responseCode >= 500 && responseCode !== 503));
  const text = typeof e.message === 'string' ? e.message : String(error);
  const prefix = [code, responseCode].filter((part) => part !== undefined).join(' ');
  return new MessageDeliveryError(prefix && !text.startsWith(prefix) ? `${prefix}: ${text}` : text, { permanent, cause: error });
}

/** Sends email through an SMTP server given as a URL; one connection per message. */
export function createSmtpMailTransport(url: string, options: SmtpTransportOptions = {}): MailTransport & { close(): void } {
  parseSmtpUrl(url);
  const transporter = nodemailer.createTransport({
    url,
    connectionTimeout: options.connectionTimeoutMs ?? 10_000,
    greetingTimeout: options.greetingTimeoutMs ?? 10_000,
    socketTimeout: options.socketTimeoutMs ?? 30_000,
  });
  return {
    async send(mail: OutgoingMail) {
      try {
        await transporter.sendMail({
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          ...(mail.id === undefined ? {} : { messageId: messageIdFor(mail.id, mail.from) }),
          ...(options.clock ? { date: new Date(options.clock.now()) } : {}),
        });
      } catch (error) {
        throw classifySmtpError(error);
      }
    },
    close: () => transporter.close(),
  };
}
