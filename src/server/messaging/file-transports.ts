import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { MailTransport, OutgoingMail, OutgoingSms, SmsProvider } from '../../core/messaging/ports';
import { messageIdFor } from './message-id';

// The transports a single shop gets with no configuration: every message becomes a file in
// `<data>/outbox/`, named `<UTC timestamp>-<outbox id>` so a listing sorts by time. Emails are
// complete RFC 822 messages (`.eml`, opened by any mail client); SMS are `{to, text}` JSON
// (`.sms.json`). The files hold one-time codes, so they are readable by the owner only.

export interface FileTransportOptions {
  clock?: { now(): number };
}

/** `2026-11-21T09:30:00.123Z` → `20261121T093000123Z`. */
function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, '');
}

function fileName(dir: string, ms: number, id: number | undefined, extension: string): string {
  return join(dir, `${stamp(ms)}-${id ?? randomBytes(6).toString('hex')}${extension}`);
}

/**
 * Writes whole files only: a reader never sees half a message, and a write that fails (a full disk)
 * takes its temporary file away with it: the retry writes another, and the folder fills with nothing.
 */
function writeAtomically(path: string, content: Buffer | string): void {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, content, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, path);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The write's own error says more than a failed clean-up.
    }
    throw error;
  }
}

function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function createFileMailTransport(dir: string, options: FileTransportOptions = {}): MailTransport {
  const now = () => options.clock?.now() ?? Date.now();
  return {
    async send(mail: OutgoingMail) {
      const at = now();
      const composer = new MailComposer({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        date: new Date(at),
        ...(mail.id === undefined ? {} : { messageId: messageIdFor(mail.id, mail.from) }),
      });
      const raw = await composer.compile().build();
      writeAtomically(fileName(ensureDir(dir), at, mail.id, '.eml'), raw);
    },
  };
}

export function createFileSmsProvider(dir: string, options: FileTransportOptions = {}): SmsProvider {
  const now = () => options.clock?.now() ?? Date.now();
  return {
    async send(sms: OutgoingSms) {
      const body = `${JSON.stringify({ to: sms.to, text: sms.text }, null, 2)}\n`;
      writeAtomically(fileName(ensureDir(dir), now(), sms.id, '.sms.json'), body);
    },
  };
}
