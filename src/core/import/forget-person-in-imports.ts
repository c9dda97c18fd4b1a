import type { Kysely } from 'kysely';
import { cardNumberKey } from '../cards/card';
import { emailKey } from '../customers/contact';
import type { Dialect } from '../storage/dialect';
import type { DB } from '../storage/schema';
import { DROPPED_FILE, lockImportFiles } from './import-jobs';
import type { MemberRecord } from './member-file';

// Erasure and the back office's member imports: a job keeps its file for a day (import-jobs.ts,
// FILE_KEPT_MS), a preview every row of it. A person who leaves a program (or is erased) in that
// day must not stay in that program's files. The rule is the simplest safe one: a kept file with a
// row carrying one of the person's emails, phones or card numbers is dropped whole (the job's report
// and counts stay; its confirmation and problem rows answer 409 `import_file_expired`, as a day-old
// one's). Taking the one row out instead would leave the report's line numbers pointing at other rows.
// The program left only: another program's file is that merchant's own list (they answer for it),
// and reading every program's files made one erasure hold a node of many programs for seconds
// (a review measured 21 s for twenty 60,000-row files); a person erased leaves each program in
// turn, so each program's files are looked at when they leave it.

/** Who is leaving: every email (as lookup keys), phone and card number (as keys) they are known by. */
interface Identifiers {
  emailKeys: Set<string>;
  /** Digits of each phone (E.164 without its +). */
  phoneDigits: string[];
  cardKeys: Set<string>;
}

/**
 * Drops the program's kept import files that name the person. Inside the departure's transaction,
 * before anything blanks the person (it reads the account's email and phone, those messages were
 * sent to, and the numbers of every card linked to them). Reads the program's kept files (five at
 * most, no index into them): departures are rare, and files live a day. After a confirmation of
 * the program in flight has committed (lockImportFiles): its new job's copy is read too.
 */
export async function forgetPersonInImportFiles(db: Kysely<DB>, dialect: Dialect, userId: number, vendorId: number): Promise<number> {
  const who = await identifiersOf(db, userId);
  if (who.emailKeys.size + who.phoneDigits.length + who.cardKeys.size === 0) return 0;
  await lockImportFiles(db, dialect, vendorId);
  const jobs = await db.selectFrom('import_jobs').select(['id', 'file']).where('vendor_id', '=', vendorId).where('file', '<>', DROPPED_FILE).execute();
  const naming = jobs.filter((job) => (JSON.parse(job.file) as { records: MemberRecord[] }).records.some((record) => names(record, who)));
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
  const phoneDigits = [...phones].map(digitsOf).filter((digits) => digits.length >= MIN_PHONE_DIGITS);
  return { emailKeys, phoneDigits, cardKeys: new Set(cards.map((card) => card.number_key)) };
}

/** Fewer digits than a subscriber number has match too many people. */
const MIN_PHONE_DIGITS = 7;

/** A number's digits without the zeros a trunk or international prefix puts first (0034…, 07700…). */
function digitsOf(phone: string): string {
  return phone.replace(/\D/g, '').replace(/^0+/, '');
}

/**
 * Whether the row carries one of the person's identifiers. Phones by their digits, as written in
 * any form ("(415) 555-0188", "+1 415…", "0034 600…"): one number ends with the other. Parsing each
 * row's phone as the import does cost ~15 µs a row (a second for a full file) inside the
 * departure's transaction; a namesake's number sharing the last digits drops a file needlessly,
 * which errs the safe way.
 */
function names(record: MemberRecord, who: Identifiers): boolean {
  const { email, phone, card } = record.fields;
  if (email && who.emailKeys.has(emailKey(email))) return true;
  if (card && who.cardKeys.has(cardNumberKey(card.trim()))) return true;
  if (!phone || who.phoneDigits.length === 0) return false;
  const digits = digitsOf(phone);
  return digits.length >= MIN_PHONE_DIGITS && who.phoneDigits.some((theirs) => theirs.endsWith(digits) || digits.endsWith(theirs));
}
