import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { sealParams } from './sealed-params';
import { checkTemplateParams, isMessageTemplate, resolveLocale, TEMPLATES } from './templates';

export type MessageTemplate =
  | 'password_reset'
  | 'email_verification'
  | 'sms_verification'
  | 'account_deletion'
  | 'egift_received'
  | 'billing_profile_expiring'
  | 'webhook_endpoint_disabled'
  | 'staff_invitation'
  | 'staff_password_reset';

export interface NewMessage {
  vendorId: number | null;
  channel: 'email' | 'sms';
  /** An email address, or a phone number for SMS. */
  to: string;
  template: MessageTemplate;
  /** The customer's language (`en`, `es`, `es-EC`…); anything else is sent in English. */
  locale: string;
  /** The customer it is for, when it is a customer's (an erasure finds it by them: migration 0038). */
  userId?: number | null | undefined;
  /** Exactly the parameters the template takes, plus any of its optional ones (see TEMPLATES); kept sealed, and only until delivered. */
  params: Record<string, string>;
}

/**
 * Writes an email or SMS to the outbox in the caller's transaction: if the change that causes it
 * commits, the message will be delivered (by the worker, with retries); if it rolls back, there is
 * no message. Returns the outbox id. Nothing is sent here. The parameters are stored sealed
 * (sealed-params.ts): they carry the message's codes and tokens.
 *
 * Programming mistakes (unknown template, a channel the template is not written for, missing or
 * unknown parameters, an empty recipient) throw a TypeError, so the transaction rolls back.
 */
export async function queueMessage(db: Kysely<DB>, engine: Engine, message: NewMessage): Promise<number> {
  if (!isMessageTemplate(message.template)) throw new TypeError(`Unknown message template ${String(message.template)}.`);
  const channel = TEMPLATES[message.template].channel;
  if (message.channel !== channel) throw new TypeError(`Message template ${message.template} is sent by ${channel}, not ${String(message.channel)}.`);
  const to = message.to.trim();
  if (to === '' || /[\r\n]/.test(to) || (channel === 'email' && !to.includes('@'))) {
    throw new TypeError(`Message ${message.template} needs a valid ${channel === 'email' ? 'email address' : 'phone number'} to send to.`);
  }
  checkTemplateParams(message.template, message.params);

  const id = await nextObjectId(db, engine.nodeId);
  const now = engine.clock.now();
  await db
    .insertInto('messages_outbox')
    .values({
      id,
      vendor_id: message.vendorId,
      channel,
      recipient: to,
      template: message.template,
      locale: resolveLocale(message.locale),
      params: sealParams(engine, message.params),
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      created_at: now,
      sent_at: null,
      ...(message.userId ? { user_id: message.userId } : {}),
    })
    .execute();
  return id;
}
