import type { Command } from 'commander';
import { parseSmtpUrl } from '../messaging/smtp-transport';
import { checkMailFrom, DEFAULT_MAIL_FROM } from '../messaging/start-messaging';
import { SettingError } from '../node/setting-error';
import { asOption } from './as-option';

/** --smtp and --mail-from: how a node sends its emails (store and central alike: central invites staff too). */
export function withMailOptions(command: Command): Command {
  return command
    .option('--smtp <url>', 'send emails through this SMTP server (smtp://user:pass@host:587 or smtps://…; default: PUNCHCARD_SMTP_URL, else files in <data>/outbox)', asOption(parseSmtpUrl))
    .option('--mail-from <address>', 'sender of emails', asOption(checkMailFrom), DEFAULT_MAIL_FROM);
}

export interface MailOptions {
  smtp?: string;
  mailFrom: string;
}

/** The SMTP server: --smtp (checked by commander), else PUNCHCARD_SMTP_URL, checked here. */
export function smtpUrlOf(options: MailOptions, env: NodeJS.ProcessEnv): string | undefined {
  if (options.smtp !== undefined) return options.smtp;
  const fromEnv = env.PUNCHCARD_SMTP_URL || undefined;
  if (fromEnv === undefined) return undefined;
  try {
    parseSmtpUrl(fromEnv);
  } catch (error) {
    throw new SettingError(`PUNCHCARD_SMTP_URL: ${(error as Error).message}`);
  }
  return fromEnv;
}
