import type { Kysely } from 'kysely';
import { cardNumberKey } from '../cards/card';
import { emailKey, phoneFromInput } from '../customers/contact';
import type { DB } from '../storage/schema';
import { DROPPED_FILE } from './import-jobs';
import type { MemberRecord } from './member-file';

// Erasure and the back office's member imports: a job keeps its file for a day (import-jobs.ts,
// FILE_KEPT_MS), a preview every row of it. A person who leaves (or is erased) in that day must not
// stay in it. The rule is the simplest safe one: a kept file with a row carrying one of the
// person's emails, phones or card numbers is dropped whole (the job's report and counts stay; its
// confirmation and problem rows answer 409 `import_file_expired`, as a day-old one's). Taking the one
// row out instead would leave the report's line numbers pointing at other rows.

/** Who is leaving: every email (as lookup keys), phone (E.164) and card number (as keys) they are known by. */
interface Identifiers {
  emailKeys: Set<string>;
  phones: Set<string>;
  /** Digits of each phone: a row's number written without its country code still matches. */
  phoneDigits: string[];
  cardKeys: Set<string>;
}

/**
 * Drops the kept import files that name the person: those of `onlyVendorId` (a customer who leaves
 * one program), or every program's (an erasure: a preview lists people who are no member yet).
 * Inside the departure's transaction, before anything blanks the person (it reads the account's
 * email and phone, those messages were sent to, and the numbers of every card linked to them).
 * Reads every kept file (no index into them): erasure is rare, and files live a day.
 */
export async function forgetPersonInImportFiles(db: Kysely<DB>, userId: number, onlyVendorId?: number): Promise<number> {
  const who = await identifiersOf(db, userId);
  if (who.emailKeys.size + who.phones.size + who.cardKeys.size === 0) return 0;
  const jobs = await db
    .selectFrom('import_jobs as j')
    .innerJoin('vendors as v', 'v.id', 'j.vendor_id')
    .select(['j.id', 'j.file', 'v.country'])
    .where('j.file', '<>', DROPPED_FILE)
    .$if(onlyVendorId !== undefined, (qb) => qb.where('j.vendor_id', '=', onlyVendorId!))
    .execute();
  const naming = jobs.filter((job) => (JSON.parse(job.file) as { records: MemberRecord[] }).records.some((record) => names(record, who, job.country)));
  if (naming.length === 0) return 0;
  await db.updateTable('import_jobs').set({ file: DROPPED_FILE }).where('id', 'in', naming.map((job) => job.id)).execute();
  return naming.length;
}

async function identifiersOf(db: Kysely<DB>, userId: number): Promise<Identifiers> {
  const person = await db.selectFrom('users').select(['email_key', 'phone']).where('id', '=', userId).executeTakeFirst();
  const sent = await db.selectFrom('messages_outbox').select(['channel', 'recipient']).where('user_id', '=', userId).where('recipient', '!=', '').execute();
  const cards = await db.selectFrom('user_cards as uc').innerJoin('cards as c', 'c.id', 'uc.card_id').select('c.number_key').where('uc.user_id', '=', userId).execute();
  const emailKeys = new Set(person?.email_key ? [person.email_key] : []);
  const phones = new Set(person?.phone ? [person.phone] : []);
  for (const message of sent) {
    if (message.channel === 'email') emailKeys.add(emailKey(message.recipient));
    else phones.add(message.recipient);
  }
  return { emailKeys, phones, phoneDigits: [...phones].map((phone) => phone.replace(/\D/g, '')), cardKeys: new Set(cards.map((card) => card.number_key)) };
}

/** Whether the row carries one of the person's identifiers, read as the import reads them (a cell it could not read matches nothing of a real account, except by its digits). */
function names(record: MemberRecord, who: Identifiers, country: string): boolean {
  const { email, phone, card } = record.fields;
  if (email && who.emailKeys.has(emailKey(email))) return true;
  if (card && who.cardKeys.has(cardNumberKey(card.trim()))) return true;
  if (!phone || phone.trim() === '') return false;
  try {
    const read = phoneFromInput(phone, country, 'phone');
    if (read && who.phones.has(read)) return true;
  } catch {
    // Not a phone the import reads: its digits may still be the person's.
  }
  const digits = phone.replace(/\D/g, '');
  return digits.length >= 7 && who.phoneDigits.some((theirs) => theirs.endsWith(digits));
}
