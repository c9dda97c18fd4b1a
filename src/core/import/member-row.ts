import { isServiceError } from '../../shared/errors';
import { cardNumberKey, cleanCardNumber } from '../cards/card';
import { cleanEmail, cleanName, emailKey, phoneFromInput } from '../customers/contact';
import type { CurrencyColumns } from './currency-columns';
import type { MemberRecord } from './member-file';
import { contactConsentOf, readBirthdate, readLanguage, readPointsExpiry, readYesNo } from './member-profile';
import { type DecimalMark, readOpeningAmount } from './opening-amount';

// One record of the file checked on its own, before anything is looked up: contacts read as the
// rest of the product reads them (an email as sign-up cleans it, a phone in E.164, a national
// number read in the program's country), names as registration keeps them, balances exactly.

export interface MemberRow {
  line: number;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  card: string | null;
  /** Whole points of the program's loyalty currency. */
  points: number;
  /** Minor units of the quick-pay currency. */
  quickPay: number;
  /** When the points expire, the end of the old system's day in the program's time zone (epoch ms); null: the program's rule. */
  pointsExpireAt: number | null;
  /** Whole points of the program's other loyalty currencies, from their own columns (currency-columns.ts); none of 0. */
  currencyPoints: CurrencyPoints[];
  /** Date of birth, epoch ms of its UTC midnight (users.birthdate); null when the file does not say. */
  birthdate: number | null;
  /** The spec's contact consent (0 none, 1 email, 2 SMS, 3 both): 0 unless the file says yes. */
  contactConsent: number;
  /** en or es; null: the program's language. */
  language: string | null;
}

/** Opening points of one loyalty currency read from its own columns, and when they expire (as pointsExpireAt). */
export interface CurrencyPoints {
  currency: { id: number; name: string };
  points: number;
  expiresAt: number | null;
}

/** A row the import refuses, with a reason code that stays the same from version to version. */
export interface RowProblem {
  line: number;
  reason: string;
  field: string | null;
  message: string;
}

export interface RowContext {
  /** The program's country (ISO 3166-1 alpha-2): a phone without +code is read as its number. */
  country: string;
  /** Decimals of the quick-pay currency; null when the program has none. */
  quickPayDigits: number | null;
  /** The file's decimal mark (member-file.ts). */
  decimalMark: DecimalMark;
  /** The program's time zone (its first store's): the day a member's points expire ends there. */
  timeZone: string;
  /** The engine's clock (epoch ms): a date of birth after today is refused. */
  now: number;
  /** The file's per-currency columns the program reads (none: the file has only `points`). */
  currencyColumns: readonly CurrencyColumns[];
}

export function readMemberRow(record: MemberRecord, context: RowContext): { row: MemberRow } | { problem: RowProblem } {
  const f = record.fields;
  const refuse = (reason: string, field: string | null, message: string) => ({ problem: { line: record.line, reason, field, message } });
  const emailText = f.email ?? '';
  const phoneText = f.phone ?? '';
  // A card alone is enough: the counter finds a member by scanning it (check-in, order) as by a
  // contact, and the members export writes one known here by their card only without a contact.
  if (emailText === '' && phoneText === '' && (f.card ?? '').trim() === '') return refuse('no_contact', 'email', 'The row has no email, phone or card: a member needs one to be found at the counter.');
  let email: string | null = null;
  let phone: string | null = null;
  try {
    email = emailText === '' ? null : cleanEmail(emailText, 'email');
  } catch {
    return refuse('invalid_email', 'email', `"${emailText}" is not an email address.`);
  }
  try {
    phone = phoneFromInput(phoneText, context.country, 'phone');
  } catch {
    return refuse('invalid_phone', 'phone', `"${phoneText}" is not a phone number (a number of ${context.country}, or one written with its +code).`);
  }
  let card: string | null = null;
  try {
    card = f.card ? cleanCardNumber(f.card) : null;
  } catch {
    return refuse('invalid_card_number', 'card', `"${f.card}" is not a card number: letters and digits only, at most 64.`);
  }
  const names = namesOf(f.first_name ?? '', f.last_name ?? '', f.name ?? '');
  if ('problem' in names) return refuse('invalid_name', names.problem, `${names.problem} is longer than 100 characters.`);
  const points = readOpeningAmount(f.points ?? '', 0, context.decimalMark);
  if (!points.ok) return refuse(points.reason, 'points', points.message);
  const quickPay = readOpeningAmount(f.quick_pay ?? '', context.quickPayDigits ?? 2, context.decimalMark);
  if (!quickPay.ok) return refuse(quickPay.reason, 'quick_pay', quickPay.message);
  if (quickPay.minor > 0 && context.quickPayDigits === null) return refuse('no_quick_pay_currency', 'quick_pay', 'The program has no quick-pay currency to hold this balance.');
  // A value the old system had but the import cannot read refuses the row: dropped, a birthday reward or a consent would be lost unseen.
  const birthdate = readBirthdate(f.birthdate ?? '', context);
  if (!birthdate.ok) return refuse(birthdate.reason, 'birthdate', birthdate.message);
  const byEmail = readYesNo(f.marketing ?? '', 'marketing');
  if (!byEmail.ok) return refuse(byEmail.reason, 'marketing', byEmail.message);
  const bySms = readYesNo(f.sms_marketing ?? '', 'sms_marketing');
  if (!bySms.ok) return refuse(bySms.reason, 'sms_marketing', bySms.message);
  const language = readLanguage(f.language ?? '');
  if (!language.ok) return refuse(language.reason, 'language', language.message);
  const pointsExpireAt = readPointsExpiry(f.points_expire_on ?? '', { ...context, points: points.minor });
  if (!pointsExpireAt.ok) return refuse(pointsExpireAt.reason, 'points_expire_on', pointsExpireAt.message);
  const currencyPoints: CurrencyPoints[] = [];
  for (const columns of context.currencyColumns) {
    const read = readCurrencyPoints(record, columns, context);
    if ('problem' in read) return refuse(read.problem.reason, read.problem.field, read.problem.message);
    if (read.points > 0) currencyPoints.push({ currency: columns.currency, points: read.points, expiresAt: read.expiresAt });
  }
  return {
    row: {
      line: record.line,
      firstName: names.first,
      lastName: names.last,
      email,
      phone,
      card,
      points: points.minor,
      quickPay: quickPay.minor,
      pointsExpireAt: pointsExpireAt.value,
      currencyPoints,
      birthdate: birthdate.value,
      contactConsent: contactConsentOf(byEmail.value, bySms.value),
      language: language.value,
    },
  };
}

/**
 * One currency's points and expiry day, read as `points` and `points_expire_on` are. A whole number
 * below zero is a balance the member owed there (points spent, then the sale that earned them
 * voided): the export writes the true figure, and the import carries it over as nothing, as the
 * export's `points` column does (max 0) — an opening balance is a credit, never a debt.
 */
function readCurrencyPoints(record: MemberRecord, columns: CurrencyColumns, context: RowContext): { points: number; expiresAt: number | null } | { problem: { reason: string; field: string; message: string } } {
  const text = columns.points === null ? '' : (record.byCurrency?.[columns.points] ?? '');
  const points = /^-\d+$/.test(text) ? ({ ok: true, minor: 0 } as const) : readOpeningAmount(text, 0, context.decimalMark);
  if (!points.ok) return { problem: { reason: points.reason, field: columns.points!, message: points.message } };
  const expiry = readPointsExpiry(columns.expireOn === null ? '' : (record.byCurrency?.[columns.expireOn] ?? ''), { ...context, points: points.minor });
  if (!expiry.ok) return { problem: { reason: expiry.reason, field: columns.expireOn!, message: expiry.message } };
  return { points: points.minor, expiresAt: expiry.value };
}

/** First and last name from their columns, else a full `name` split at its first space; "Guest" as the counter names one without. */
function namesOf(first: string, last: string, full: string): { first: string; last: string } | { problem: string } {
  let [firstText, lastText] = [first, last];
  if (firstText === '' && lastText === '' && full !== '') {
    const space = full.trim().search(/\s/);
    [firstText, lastText] = space === -1 ? [full.trim(), ''] : [full.trim().slice(0, space), full.trim().slice(space + 1)];
  }
  try {
    return { first: firstText.trim() === '' ? 'Guest' : cleanName(firstText, 'first_name'), last: cleanName(lastText, 'last_name', { allowEmpty: true }) };
  } catch (error) {
    return { problem: isServiceError(error) && error.field ? error.field : 'name' };
  }
}

/** The identifiers two rows of one file must not share (each would make, or find, the same member). */
export function identifiersOf(row: MemberRow): string[] {
  return [...(row.email ? [`email ${emailKey(row.email)}`] : []), ...(row.phone ? [`phone ${row.phone}`] : []), ...(row.card ? [`card ${cardNumberKey(row.card)}`] : [])];
}
