import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../storage/schema';

// Erasure and the webhook outbox: stored events stay (their ids, kinds, times and amounts are the
// receiver's records, and replay sends them again), but not who the erased person was. A pending
// delivery sends the stored payload, so what was not delivered yet goes out without them too.

export interface ErasedPerson {
  userId: number;
  /** Every email they were known by, as lookup keys (lower case): today's and earlier ones. */
  emailKeys: readonly string[];
  /** Every phone they were known by (E.164). */
  phones: readonly string[];
}

/** What customerPayload shows of an erased account: the person's fields of a `user` object, blanked. */
const ERASED_USER_FIELDS: Record<string, string | null> = { first_name: '', last_name: '', email_address: null, birthdate: null, phone: null, phone_number: null };

/**
 * Blanks the person in every stored webhook event that may name them: the events of the programs
 * they belonged to that carry their user id, email or phone, and eGift events of any program that
 * carry their email (a guest buys a gift without joining, as eraseAccount's eGifts). Both read
 * every event they cover (there is no index into payloads): erasure is rare. `onlyVendorId`: the
 * events of the one program the person left.
 */
export async function forgetPersonInWebhookEvents(db: Kysely<DB>, person: ErasedPerson, onlyVendorId?: number): Promise<void> {
  const candidates = await db
    .selectFrom('webhook_events')
    .select(['id', 'data'])
    .where((eb) => eb.or([eb.and([eb('vendor_id', 'in', eb.selectFrom('user_vendors').select('vendor_id').where('user_id', '=', person.userId)), mentionsPerson(eb, person)]), ...giftsBy(eb, person)]))
    // A customer who leaves one program: that program's events only.
    .$if(onlyVendorId !== undefined, (qb) => qb.where('vendor_id', '=', onlyVendorId!))
    .execute();
  for (const event of candidates) {
    const data = JSON.stringify(withoutPerson(JSON.parse(event.data), person));
    if (data !== event.data) await db.updateTable('webhook_events').set({ data }).where('id', '=', event.id).execute();
  }
}

/** A payload that may name the person: their user id, email or phone in its text (withoutPerson decides exactly). */
function mentionsPerson(eb: ExpressionBuilder<DB, 'webhook_events'>, person: ErasedPerson) {
  return eb.or([
    eb('data', 'like', `%"user_id":${person.userId}%`),
    ...person.emailKeys.map((key) => eb(eb.fn('lower', ['data']), 'like', `%${key}%`)),
    ...person.phones.map((phone) => eb('data', 'like', `%${phone}%`)),
  ]);
}

/** eGift events of any program carrying one of the person's emails (none without one). */
function giftsBy(eb: ExpressionBuilder<DB, 'webhook_events'>, person: ErasedPerson) {
  if (person.emailKeys.length === 0) return [];
  return [eb.and([eb('type', 'in', ['egift.sent', 'egift.claimed']), eb.or(person.emailKeys.map((key) => eb(eb.fn('lower', ['data']), 'like', `%${key}%`)))])];
}

/**
 * `value` without the person: a `user` object of theirs (user_id) keeps its id and status and loses
 * name, email, phone and birthdate; any other text that is their email or phone becomes ''.
 * Ids, amounts and everything else stay as stored.
 */
export function withoutPerson(value: unknown, person: ErasedPerson): unknown {
  if (typeof value === 'string') return isTheirs(value, person) ? '' : value;
  if (Array.isArray(value)) return value.map((item) => withoutPerson(item, person));
  if (value === null || typeof value !== 'object') return value;
  const copy = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutPerson(item, person)]));
  if (copy['user_id'] === person.userId) {
    for (const [field, blank] of Object.entries(ERASED_USER_FIELDS)) if (field in copy) copy[field] = blank;
  }
  return copy;
}

function isTheirs(text: string, person: ErasedPerson): boolean {
  const clean = text.trim();
  return person.emailKeys.includes(clean.toLowerCase()) || person.phones.includes(clean);
}
