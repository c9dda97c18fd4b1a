import { LANGUAGES } from '../../shared/languages';
import { startOfLocalDay, zoneOrUtc } from '../dashboard/time-zone-days';

// What the old system knew of a member beyond their contacts, read into where the product keeps it
// (as sign-up and the app's profile set it): the date of birth on the account (`users.birthdate`,
// epoch ms of the day's UTC midnight), and on the membership the contact consent (0 none, 1 email,
// 2 SMS, 3 both: the spec's enum) and the language (en, es; null: the program's). An empty cell
// says nothing: no birthdate, no consent (as a counter registration), the program's language.

export type Read<T> = { ok: true; value: T } | { ok: false; reason: string; message: string };

/** Countries whose spreadsheets write a date month first (03/04/1990 is 4 March there). */
const MONTH_FIRST = new Set(['US', 'PH']);

/** The oldest a member can be: beyond this a year was mistyped (1890 for 1990). */
const OLDEST_YEARS = 120;

/**
 * A date of birth: 1990-03-15 always; 15/03/1990 (or 15-03-1990, 15.03.1990) day first, as
 * Spanish and most spreadsheets write it, except in a program whose country writes the month first
 * (there 03/15/1990 and 15/03/1990 cannot be told apart in general: ISO only). Four-digit years
 * only. Not a real day, after today, or more than 120 years ago: refused.
 */
export function readBirthdate(text: string, context: { country: string; now: number }): Read<number | null> {
  if (text === '') return { ok: true, value: null };
  const ms = readDay(text, context.country);
  if (ms === null) return { ok: false, reason: 'invalid_birthdate', message: `"${text}" is not a date of birth: write it as ${dayFormats(context.country, '1990-03-15')}.` };
  const today = new Date(context.now);
  const oldest = Date.UTC(today.getUTCFullYear() - OLDEST_YEARS, today.getUTCMonth(), today.getUTCDate());
  // A day of grace: the merchant's today may already be tomorrow in UTC (as sign-up allows).
  if (ms > context.now + 24 * 3600_000 || ms < oldest) {
    return { ok: false, reason: 'birthdate_out_of_range', message: `${text} is ${ms > context.now ? 'in the future' : `more than ${OLDEST_YEARS} years ago`}: a year mistyped?` };
  }
  return { ok: true, value: ms };
}

const DAY_MS = 24 * 3600_000;

/** Where each day read ends, by zone and day: an import's rows share a few dozen dates at most. */
const dayEndsSeen = new Map<string, number>();
const DAY_ENDS_KEPT = 4_096;

/**
 * The first instant after a local day (its day number) in a time zone (UTC where this node cannot
 * read it). Found by halving over Intl (~17 calls, most of a millisecond): once per zone and day,
 * not once per row, as the import reads every row before its first batch yields.
 */
function endOfLocalDay(timeZone: string, day: number): number {
  const key = `${timeZone} ${day}`;
  let ends = dayEndsSeen.get(key);
  if (ends === undefined) {
    if (dayEndsSeen.size >= DAY_ENDS_KEPT) dayEndsSeen.clear();
    ends = startOfLocalDay(zoneOrUtc(timeZone), day + 1);
    dayEndsSeen.set(key, ends);
  }
  return ends;
}

/**
 * When a member's imported points expire, the old system's own date (`points_expire_on`), read as
 * a date of birth is: the last day they can be spent, so they go at the end of that day in the
 * program's time zone (its first store's, as the dashboard counts days). A day that has ended
 * (before today there) is refused when the row brings points: they have expired already (a member
 * without points keeps an old date unread). Empty: the program's rule.
 */
export function readPointsExpiry(text: string, context: { country: string; timeZone: string; now: number; points: number }): Read<number | null> {
  if (text === '') return { ok: true, value: null };
  const ms = readDay(text, context.country);
  if (ms === null) return { ok: false, reason: 'invalid_expiry_date', message: `"${text}" is not a date the points expire on: write it as ${dayFormats(context.country, '2027-03-15')}.` };
  if (context.points === 0) return { ok: true, value: null };
  const dayEnds = endOfLocalDay(context.timeZone, ms / DAY_MS);
  if (dayEnds <= context.now) return { ok: false, reason: 'expiry_in_the_past', message: `${text} has ended: these points have expired already (leave the cell empty for the program's rule).` };
  // Its last millisecond: a screen showing when the points expire shows the day written, not the next.
  return { ok: true, value: dayEnds - 1 };
}

/**
 * A day written YYYY-MM-DD, or day first (DD/MM/YYYY, DD-MM-YYYY, DD.MM.YYYY) except in a program
 * whose country writes the month first: the epoch ms of its UTC midnight, null when it is not a real day.
 */
function readDay(text: string, country: string): number | null {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  const dayFirst = MONTH_FIRST.has(country) ? null : /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/.exec(text);
  const [year, month, day] = iso ? [iso[1], iso[2], iso[3]] : dayFirst ? [dayFirst[4], dayFirst[3], dayFirst[1]] : [];
  const ms = year === undefined ? NaN : Date.UTC(Number(year), Number(month) - 1, Number(day));
  const date = new Date(ms);
  if (Number.isNaN(ms) || date.getUTCFullYear() !== Number(year) || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return null;
  return ms;
}

/** The formats readDay takes in a country, with an example day (YYYY-MM-DD). */
function dayFormats(country: string, example: string): string {
  const [y, m, d] = example.split('-');
  return MONTH_FIRST.has(country) ? `YYYY-MM-DD (${example})` : `YYYY-MM-DD (${example}) or DD/MM/YYYY (${d}/${m}/${y})`;
}

const YES = new Set(['yes', 'y', 'sí', 'si', 's', 'true', '1', 'x']);
const NO = new Set(['no', 'n', 'false', '0']);

/** A yes/no cell (yes, sí, true, 1 …; no, false, 0 …; any letter case): empty is not said, so no. */
export function readYesNo(text: string, column: string): Read<boolean> {
  const value = text.toLowerCase();
  if (value === '' || NO.has(value)) return { ok: true, value: false };
  if (YES.has(value)) return { ok: true, value: true };
  return { ok: false, reason: 'invalid_consent', message: `${column} "${text}" is neither yes nor no (yes/no, sí/no, true/false, 1/0): leave it empty when the old system does not know.` };
}

/** The spec's contact consent from the two yes/no columns: bit 1 email (`marketing`), bit 2 SMS (`sms_marketing`). */
export function contactConsentOf(email: boolean, sms: boolean): number {
  return (email ? 1 : 0) + (sms ? 2 : 0);
}

/** The names a language goes by in an export, to its code: en, es (also es-ES, English, Español, inglés…). */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  english: 'en',
  inglés: 'en',
  ingles: 'en',
  spanish: 'es',
  español: 'es',
  espanol: 'es',
  castellano: 'es',
};

/** A language the product speaks; empty: the program's. Another one is refused (the product could only drop it). */
export function readLanguage(text: string): Read<string | null> {
  if (text === '') return { ok: true, value: null };
  const value = text.toLowerCase();
  const code = LANGUAGE_NAMES[value] ?? value.split(/[-_]/)[0];
  if (LANGUAGES.some((language) => language.code === code)) return { ok: true, value: code! };
  return { ok: false, reason: 'unsupported_language', message: `"${text}" is not a language the program speaks (${LANGUAGES.map((l) => l.code).join(', ')}): leave it empty for the program's language.` };
}
