import { type Kysely, type Selectable, sql } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { toMinorUnits } from '../../shared/money';
import type { ObjectStatus } from '../../shared/schemas/common';
import { assertStatusMove, parseStatus } from '../lifecycle/status';
import { findCurrencyRow } from '../currencies/currency-store';
import type { Engine } from '../engine';
import type { ListPage, ListPlan } from '../listing/list-plan';
import { lockRow } from '../storage/dialect';
import { newPublicId } from '../storage/ids';
import type { CurrenciesTable, DB } from '../storage/schema';

// Field rules shared by earning rules, rewards (spending rules) and tiers.

const NAME_TAKEN = { earning_rules: 'earning_rule_name_taken', spending_rules: 'reward_name_taken', tiers: 'tier_name_taken' } as const;

/**
 * One name per program for earning rules, rewards and tiers, whatever the case: a second "1 point
 * per unit spent" made by mistake doubled every sale's points, and two "Gold" tiers cannot be told
 * apart. `exceptId`: the row being renamed.
 */
export async function refuseTakenName(trx: Kysely<DB>, table: keyof typeof NAME_TAKEN, vendorId: number, name: string, exceptId: number | null = null): Promise<void> {
  let same = trx.selectFrom(table).select('id').where('vendor_id', '=', vendorId).where(sql<boolean>`lower(name) = lower(${name})`);
  if (table === 'spending_rules') same = same.where('deleted_at', 'is', null);
  if (exceptId !== null) same = same.where('id', '!=', exceptId);
  if (await same.executeTakeFirst()) throw new ServiceError(NAME_TAKEN[table], undefined, 'name');
}

/** Surrounding spaces dropped, inner runs of spaces made one; empty is refused. */
export function cleanName(name: string, field = 'name'): string {
  const clean = name.trim().replace(/\s+/g, ' ');
  if (clean.length === 0) throw new ServiceError('validation_failed', `${field} must not be empty.`, field);
  return clean;
}

/** Summaries and descriptions: surrounding spaces dropped, may be empty; null or absent is empty. */
export function cleanText(text: string | null | undefined): string {
  return (text ?? '').trim();
}

/** The same normalisation as currency names: `n:` filters ignore case and Unicode form. */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/**
 * Ids of the rows whose name starts with `prefix` (any case), for the `n:` filter. These tables
 * have no normalised name column; a vendor has few rules and tiers, so the names are matched here
 * with exactly the currency-name normalisation (SQL lower() would differ between the dialects).
 */
export function idsWithNamePrefix(rows: ReadonlyArray<{ id: number; name: string }>, prefix: string): number[] {
  const key = nameKey(prefix);
  return rows.filter((row) => nameKey(row.name).startsWith(key)).map((row) => row.id);
}

/** The empty page a filter that matched nothing answers with. */
export function emptyPage<Row>(plan: ListPlan<string, string>): ListPage<Row> {
  return { items: [], page: plan.page, limit: plan.limit, hasMore: false };
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An ISO 8601 date-time with a time zone (`2026-12-01T00:00:00Z`, `…+05:30`; seconds and fractions
 * optional) as epoch ms. Null, or an empty string (what a form sends for "none"), is null;
 * undefined (not sent) stays undefined. Impossible dates (February 30th) are refused.
 */
export function parseInstant(value: string | null | undefined, field: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value.trim() === '') return null;
  const match = ISO_INSTANT.exec(value.trim());
  const refuse = () => new ServiceError('validation_failed', `${field} must be an ISO 8601 date and time with a time zone, like 2026-12-01T00:00:00Z.`, field);
  if (!match) throw refuse();
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? '0');
  const daysInMonth = new Date(utcTime(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) throw refuse();
  let offsetMinutes = 0;
  if (!zulu) {
    const hours = Number(oh);
    const minutes = Number(om);
    if (hours > 23 || minutes > 59) throw refuse();
    offsetMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const ms = Number((fraction ?? '').padEnd(3, '0').slice(0, 3));
  return utcTime(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000;
}

/** 400 Gregorian years, in ms: the calendar repeats after them. */
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

/** Date.UTC, also for the years 0 to 99 (Date.UTC reads them as 1900 to 1999: "0001-01-01" was 1901). */
function utcTime(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  return year < 100 ? Date.UTC(year + 400, month, day, hour, minute, second, ms) - FOUR_CENTURIES_MS : Date.UTC(year, month, day, hour, minute, second, ms);
}

/** A nullable whole number in [min, max] (the wire schema checks only that it is an integer). */
export function wholeOrNull(value: number | null, field: string, min: number, max: number): number | null {
  if (value === null) return null;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ServiceError('validation_failed', `${field} must be a whole number from ${min} to ${max}, or null.`, field);
  }
  return value;
}

/** A window with both ends must end after it starts. */
export function assertDateRange(startsAt: number | null, endsAt: number | null): void {
  if (startsAt !== null && endsAt !== null && endsAt <= startsAt) {
    throw new ServiceError('invalid_date_range', 'ends_at must be later than starts_at.', 'ends_at');
  }
}

/**
 * The loyalty currency a rule or reward counts in, by its `curr_` id: a currency of the vendor
 * (not deleted) without an ISO code. Paused or archived currencies are accepted: orders refuse them.
 */
export async function loyaltyCurrency(db: Kysely<DB>, vendorId: number, publicId: string): Promise<Selectable<CurrenciesTable>> {
  const row = await findCurrencyRow(db, vendorId, publicId.trim());
  if (!row) throw new ServiceError('unknown_currency', `No currency of this program has the id "${publicId}".`, 'currency');
  if (row.code !== null) {
    throw new ServiceError('currency_not_loyalty', `${row.name} is a cash currency (${row.code}); rules and rewards count in a loyalty currency.`, 'currency');
  }
  return row;
}


/** A positive amount in major units (2.5) as whole minor units (250); finer amounts are refused. */
export function toWholeMinorUnits(major: number, digits: number, field: string): number {
  const minor = toMinorUnits(major, digits, field);
  if (minor < 1) throw new ServiceError('validation_failed', `${field} must be at least ${1 / 10 ** digits}.`, field);
  return minor;
}

/**
 * Writers that check a rule across a vendor's rows (tier thresholds are unique, one tier must
 * remain) take the vendor row first. SQLite already runs one writer at a time (BEGIN IMMEDIATE);
 * PostgreSQL needs the row lock.
 */
export function lockVendor(db: Kysely<DB>, engine: Engine, vendorId: number): Promise<void> {
  return lockRow(db, engine.dialect, 'vendors', vendorId);
}

/**
 * Rows made before public ids existed (or inserted by older code) get one the first time they are
 * listed; the first writer wins, so two concurrent lists agree on the id.
 */
export async function withPublicIds<Row extends { id: number; public_id: string | null }>(
  engine: Engine,
  table: 'earning_rules' | 'tiers',
  prefix: 'erul' | 'tier',
  rows: Row[],
): Promise<Array<Row & { public_id: string }>> {
  const out: Array<Row & { public_id: string }> = [];
  for (const row of rows) {
    if (row.public_id !== null) {
      out.push(row as Row & { public_id: string });
      continue;
    }
    await engine.db.updateTable(table).set({ public_id: newPublicId(prefix) }).where('id', '=', row.id).where('public_id', 'is', null).execute();
    const stored = await engine.db.selectFrom(table).select('public_id').where('id', '=', row.id).executeTakeFirstOrThrow();
    out.push({ ...row, public_id: stored.public_id as string });
  }
  return out;
}

interface Windowed {
  startsAt: number | null;
  endsAt: number | null;
  status: ObjectStatus;
}

/** A new earning rule's or reward's date window and status (ACTIVE unless given). */
export function newWindowAndStatus(input: { startsAt?: string | null | undefined; endsAt?: string | null | undefined; status?: string | undefined }): Windowed {
  const startsAt = parseInstant(input.startsAt, 'starts_at') ?? null;
  const endsAt = parseInstant(input.endsAt, 'ends_at') ?? null;
  assertDateRange(startsAt, endsAt);
  return { startsAt, endsAt, status: input.status === undefined ? 'ACTIVE' : parseStatus(input.status) };
}

/** The changes earning rules and rewards share, checked the same way: their date window and status. */
export function applyWindowAndStatus(
  current: Windowed,
  next: Windowed,
  changes: { startsAt?: string | null | undefined; endsAt?: string | null | undefined; status?: string | undefined },
): void {
  const startsAt = parseInstant(changes.startsAt, 'starts_at');
  if (startsAt !== undefined) next.startsAt = startsAt;
  const endsAt = parseInstant(changes.endsAt, 'ends_at');
  if (endsAt !== undefined) next.endsAt = endsAt;
  assertDateRange(next.startsAt, next.endsAt);
  if (changes.status !== undefined) {
    next.status = parseStatus(changes.status);
    assertStatusMove(current.status, next.status);
  }
}
