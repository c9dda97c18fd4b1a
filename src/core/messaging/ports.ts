// What the delivery worker needs from the outside world to send a message. Adapters (SMTP, files,
// an SMS gateway) live in src/server/messaging; the engine knows only these shapes.

export interface OutgoingMail {
  /** `Name <address>` or a bare address. */
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The outbox id: adapters name files after it and derive a stable Message-ID from it. */
  id?: number;
}

export interface OutgoingSms {
  /** The phone number as it was queued. */
  to: string;
  text: string;
  /** The outbox id. */
  id?: number;
}

/**
 * Sends one email. Resolves once the message is accepted (by the SMTP server, or written to
 * disk). Throw MessageDeliveryError with `permanent: true` when retrying cannot help (the
 * recipient is rejected); any other error is retried later.
 */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close?(): Promise<void> | void;
}

/** Sends one SMS; errors are classified like MailTransport's. */
export interface SmsProvider {
  send(sms: OutgoingSms): Promise<void>;
  close?(): Promise<void> | void;
}

export interface MessageTransports {
  mail: MailTransport;
  sms: SmsProvider;
  /** The From of every email, e.g. `Punchcard <no-reply@punchcard.local>`. */
  mailFrom: string;
}

/** The subset of a pino/Fastify logger the worker writes to. */
export interface MessagingLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export const silentLogger: MessagingLogger = { info: () => {}, warn: () => {}, error: () => {} };
