import PostalMime, { type Address } from 'postal-mime';
import { SMTPServer } from 'smtp-server';

// A real SMTP server for tests (smtp-server on 127.0.0.1, no TLS, any credentials accepted):
// what a node sends arrives here over a real SMTP session and is parsed like a mail client would.

export interface ParsedMail {
  /** The SMTP envelope: MAIL FROM and RCPT TO. */
  envelope: { from: string; to: string[] };
  /** The user name the client authenticated with, if it did. */
  authUser: string | undefined;
  /** Header addresses, parsed. */
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string | undefined;
  date: string | undefined;
  raw: string;
}

export interface Mailbox {
  url: string;
  port: number;
  /** Every message received, in order. */
  messages: ParsedMail[];
  /** The first message (already received or arriving within the timeout) that matches. */
  waitFor(predicate: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  /** Answers `550 5.1.1` to RCPT TO for addresses that match from now on. */
  rejectRecipients(pattern: RegExp | string): void;
  close(): Promise<void>;
}

function addresses(list: Address[] | Address | undefined): string[] {
  if (!list) return [];
  return (Array.isArray(list) ? list : [list]).flatMap((entry) => (entry.group ? entry.group.map((m) => m.address) : [entry.address]));
}

/** A one-time code from a message's text: the `Code: …` / `Código: …` line. */
export function extractCode(text: string): string | undefined {
  return /^(?:Code|Código): (\S+)$/m.exec(text)?.[1];
}

export { freePort } from './free-port';

export async function startMailbox(options: { port?: number } = {}): Promise<Mailbox> {
  const messages: ParsedMail[] = [];
  const waiters = new Set<(mail: ParsedMail) => void>();
  const rejected: Array<RegExp | string> = [];

  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    closeTimeout: 200,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      const hit = rejected.some((pattern) => (typeof pattern === 'string' ? address.address.includes(pattern) : pattern.test(address.address)));
      if (!hit) return callback();
      const error = new Error(`5.1.1 <${address.address}>: Recipient address rejected: no such user`) as Error & { responseCode: number };
      error.responseCode = 550;
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        PostalMime.parse(raw)
          .then((email) => {
            const mail: ParsedMail = {
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              authUser: typeof session.user === 'string' ? session.user : undefined,
              from: addresses(email.from)[0] ?? '',
              to: addresses(email.to),
              subject: email.subject ?? '',
              text: email.text ?? '',
              html: email.html ?? '',
              messageId: email.messageId,
              date: email.date,
              raw,
            };
            messages.push(mail);
            for (const waiter of [...waiters]) waiter(mail);
            callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  if (typeof address !== 'object' || !address) throw new Error('the mailbox has no address');
  const port = address.port;

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    waitFor(predicate, timeoutMs = 5_000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const seen = messages.map((m) => `${m.to.join(',')}: ${m.subject}`).join('; ') || 'nothing';
          reject(new Error(`no matching message within ${timeoutMs} ms (received: ${seen})`));
        }, timeoutMs);
        const waiter = (mail: ParsedMail) => {
          if (!predicate(mail)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(mail);
        };
        waiters.add(waiter);
      });
    },
    rejectRecipients(pattern) {
      rejected.push(pattern);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
