import { type Kysely, sql } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { toIso } from '../../shared/time';
import { recordAudit } from '../audit/record-audit';
import { seenAtCounter } from '../customers/seen-at-counter';
import { readBirthdate } from '../import/member-profile';
import { columnKey } from '../import/member-file';
import { zoneOrUtc } from '../dashboard/time-zone-days';
import { programTimeZone } from '../stores/program-time-zone';
import { lastExpiryDays } from './expiry-days';
import { csvField } from '../../shared/csv-field';
import { plainDecimal } from '../dashboard/period-statement-csv';
import { type Engine, ownsProgramData, transact } from '../engine';
import { openReadSnapshot } from '../storage/read-snapshot';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';
import type { DB } from '../storage/schema';

// The program's members as one CSV file (owners only: 'customers.export_all'), for the accountant
// (the stored-value liability per member), a mailing tool (the consent columns) or another system
// (portability). The import's columns come first, with the import's header names and formats
// (src/core/import/member-file.ts), so the file imports into another Punchcard program unchanged;
// then what only this program knows (member since, tier, blocked) and every balance, one column
// per currency, read from the ledger's accounts as the customer page reads them; each loyalty
// currency's column is followed by the day its points expire (expiry-days.ts), the import's
// `points:<name>` and `points_expire_on:<name>` (import/currency-columns.ts). UTF-8 with a
// byte-order mark, CRLF, as the period statement's file; amounts plain decimals in the currency's
// units (its plainDecimal), text cells guarded against formulas (shared/csv-field.ts: a phone, only
// digits after its +, is written as it is, so the import reads it back).
//
// Read in keyset pages of memberships by id, each page its own few queries; the caller streams
// each page's text as it comes and the node serves other requests between pages (the SQLite
// driver is synchronous: a page holds the thread for its queries, never the whole file). Every
// page of one file reads one snapshot (storage/read-snapshot.ts), taken when the download starts:
// a member merged, re-joined or changed meanwhile is written once, as they were then.

/** Memberships read per page: ~1,000 rows are a few milliseconds of SQLite's time. */
export const MEMBER_EXPORT_PAGE = 1000;

/**
 * How long one download may hold its snapshot: a held snapshot stops SQLite's checkpoints at it
 * (the WAL grows) and PostgreSQL's vacuum. 100,000 members take seconds; a client still reading
 * after this gets a cut-off transfer, audited `complete: false`.
 */
export const MEMBER_EXPORT_TIME_LIMIT_MS = 15 * 60_000;

/**
 * How the export reads: rows per page, the snapshot's time limit, and a pause between two pages
 * (after one went to the stream, before the next is read). Tests make pages small, the limit
 * short, and pause there to change members mid-download; the node never changes them.
 */
export const memberExportSettings: { rows: number; timeLimitMs: number; betweenPages: (() => Promise<void>) | null } = {
  rows: MEMBER_EXPORT_PAGE,
  timeLimitMs: MEMBER_EXPORT_TIME_LIMIT_MS,
  betweenPages: null,
};

/**
 * Downloads a node serves at once: each holds its snapshot for its whole length (on PostgreSQL a
 * connection of the pool, which counters need too); one more is refused (429) until one ends.
 */
export const MEMBER_EXPORTS_AT_ONCE = 2;
const running = new WeakMap<Kysely<DB>, number>();

/** The import's columns, in its order, under its names (MEMBER_COLUMNS without the full `name`). */
const IMPORT_COLUMNS = ['first_name', 'last_name', 'email', 'phone', 'card', 'points', 'quick_pay', 'birthdate', 'marketing', 'sms_marketing', 'language', 'points_expire_on'] as const;
/** What the import does not read (it lists them as columns not read). */
const PROGRAM_COLUMNS = ['member_since', 'tier', 'blocked', 'other_cards'] as const;

interface ExportCurrency {
  id: number;
  header: string;
  digits: number;
  /** A loyalty currency's: the header of the day its points expire. */
  expiryHeader: string | null;
}

export interface MemberExportPlan {
  vendorId: number;
  dialect: Engine['dialect'];
  header: string;
  currencies: ExportCurrency[];
  /** The loyalty currency the `points` column holds (the program's first active one), and the quick-pay currency of `quick_pay`. */
  pointsCurrencyId: number | null;
  quickPayCurrencyId: number | null;
  quickPayDigits: number;
  tiers: Map<number, string>;
  /** The program's time zone (UTC where this node cannot read it): the days points expire are its days. */
  timeZone: string;
  /** When the export started: a birthdate is written as the import reads one on that day. */
  now: number;
}

/** A paired store refuses: the program's member list is central's (the store holds only what it pulled). */
export function refuseMemberExportHere(engine: Engine): void {
  if (!ownsProgramData(engine)) throw new ServiceError('member_list_managed_by_central');
}

/** Checks the export may run here and reads (from `db`: the export's snapshot) what every page needs (the currencies, the tiers). */
export async function planMemberExport(engine: Engine, staff: StaffPrincipal, db: Kysely<DB> = engine.db): Promise<MemberExportPlan> {
  refuseMemberExportHere(engine);
  const vendorId = staff.vendorId;
  const [vendor, currencies, tiers, timeZone] = await Promise.all([
    db.selectFrom('vendors').select(['quick_pay_currency_id']).where('id', '=', vendorId).executeTakeFirstOrThrow(),
    db.selectFrom('currencies').select(['id', 'public_id', 'name', 'code', 'status']).where('vendor_id', '=', vendorId).where('deleted_at', 'is', null).orderBy('id').execute(),
    db.selectFrom('tiers').select(['id', 'name']).where('vendor_id', '=', vendorId).execute(),
    programTimeZone(db, vendorId),
  ]);
  // One column per currency: points:<name> for a loyalty currency, stored_value:<code> for money;
  // the public id when two would read alike to the import (letter case and spaces ignored).
  const label = (c: { name: string; code: string | null }) => (c.code === null ? c.name : `stored_value:${c.code}`);
  const keys = currencies.map((c) => columnKey(label(c)));
  const columns = currencies.map((c, i) => {
    const name = keys.indexOf(keys[i]!) === keys.lastIndexOf(keys[i]!) ? label(c) : `${label(c)} (${c.public_id})`;
    return c.code === null ? { id: c.id, header: `points:${name}`, digits: 0, expiryHeader: `points_expire_on:${name}` } : { id: c.id, header: name, digits: minorUnitDigits(c.code), expiryHeader: null };
  });
  const points = currencies.find((c) => c.code === null && c.status === 'ACTIVE') ?? null;
  const quickPay = currencies.find((c) => c.id === vendor.quick_pay_currency_id && c.code !== null) ?? null;
  const header = [...IMPORT_COLUMNS, ...PROGRAM_COLUMNS, ...columns.flatMap((c) => [c.header, ...(c.expiryHeader ? [c.expiryHeader] : [])])].map((h) => csvField(h)).join(',');
  return {
    vendorId,
    dialect: engine.dialect,
    header,
    currencies: columns,
    pointsCurrencyId: points?.id ?? null,
    quickPayCurrencyId: quickPay?.id ?? null,
    quickPayDigits: quickPay ? minorUnitDigits(quickPay.code!) : 0,
    tiers: new Map(tiers.map((t) => [t.id, t.name])),
    timeZone: zoneOrUtc(timeZone),
    now: engine.clock.now(),
  };
}

/** One page: the memberships after `afterId` (current ones, of accounts not erased), as CSV lines; `lastId` null when none was left. */
export async function memberExportPage(db: Kysely<DB>, plan: MemberExportPlan, afterId: number, limit = MEMBER_EXPORT_PAGE): Promise<{ lines: string[]; lastId: number | null }> {
  const members = await db
    .selectFrom('user_vendors as uv')
    .innerJoin('users as u', 'u.id', 'uv.user_id')
    .select(['uv.id', 'uv.user_id', 'uv.contact_consent', 'uv.language', 'uv.tier_id', 'uv.created_at', 'uv.blocked_at', 'uv.counter_enrolled', 'u.first_name', 'u.last_name', 'u.email', 'u.phone', 'u.birthdate'])
    // In the primary key's order, the program a filter. On SQLite `+` keeps the planner off the
    // vendor index, whose entries are not in id order (with it each page sorted every member: 100 ms
    // a page at 100,000); PostgreSQL walks the primary key by itself, and would misjudge `+`.
    .where(plan.dialect === 'sqlite' ? sql<number>`+${sql.ref('uv.vendor_id')}` : 'uv.vendor_id', '=', plan.vendorId)
    .where('uv.id', '>', afterId)
    .where('uv.removed_at', 'is', null)
    .where('u.status', '!=', 'deleted')
    .where('u.merged_into', 'is', null)
    .orderBy('uv.id')
    .limit(limit)
    .execute();
  if (members.length === 0) return { lines: [], lastId: null };
  const userIds = members.map((m) => m.user_id);
  const [accounts, cards] = await Promise.all([
    db.selectFrom('ledger_accounts').select(['id', 'holder_id', 'currency_id', 'balance']).where('vendor_id', '=', plan.vendorId).where('holder_type', '=', 'user').where('holder_id', 'in', userIds).execute(),
    db
      .selectFrom('user_cards as l')
      .innerJoin('cards as c', 'c.id', 'l.card_id')
      .select(['l.user_id', 'c.number'])
      .where('l.vendor_id', '=', plan.vendorId)
      .where('l.user_id', 'in', userIds)
      .where('l.removed_at', 'is', null)
      .where('c.deleted_at', 'is', null)
      .orderBy('l.id')
      .execute(),
  ]);
  const balances = new Map<string, number>(accounts.map((a) => [`${a.holder_id}:${a.currency_id}`, Number(a.balance)]));
  const loyalty = new Set(plan.currencies.filter((c) => c.expiryHeader !== null).map((c) => c.id));
  const loyaltyAccounts = accounts.filter((a) => loyalty.has(Number(a.currency_id)));
  const expiryDays = await lastExpiryDays(db, loyaltyAccounts.map((a) => ({ id: Number(a.id), balance: Number(a.balance) })), plan.now, plan.timeZone);
  const expiresOn = new Map(loyaltyAccounts.map((a) => [`${a.holder_id}:${a.currency_id}`, expiryDays.get(Number(a.id)) ?? '']));
  const cardsOf = new Map<number, string[]>();
  for (const card of cards) cardsOf.set(card.user_id, [...(cardsOf.get(card.user_id) ?? []), card.number]);
  const lines = members.map((m) => {
    // What the program sees of them: a member a counter enrolled from another program, by name only until they confirm.
    const shown = seenAtCounter(m, m);
    const balance = (currencyId: number | null) => (currencyId === null ? 0 : (balances.get(`${m.user_id}:${currencyId}`) ?? 0));
    const expiry = (currencyId: number | null) => (currencyId === null ? '' : (expiresOn.get(`${m.user_id}:${currencyId}`) ?? ''));
    const [card = '', ...otherCards] = cardsOf.get(m.user_id) ?? [];
    return [
      csvField(shown.first_name),
      csvField(shown.last_name),
      csvField(shown.email ?? ''),
      csvField(shown.phone ?? ''),
      csvField(card),
      // The import takes no amount below zero (it refused the whole row, the member's quick pay with
      // it): a balance owed (points spent, then their sale voided) goes over as nothing; the true
      // figure stays in its currency's column.
      plan.pointsCurrencyId === null ? '' : String(Math.max(0, balance(plan.pointsCurrencyId))),
      plan.quickPayCurrencyId === null ? '' : plainDecimal(Math.max(0, balance(plan.quickPayCurrencyId)), plan.quickPayDigits),
      birthdateCell(shown.birthdate ?? null, plan.now),
      (m.contact_consent & 1) !== 0 ? 'yes' : 'no',
      (m.contact_consent & 2) !== 0 ? 'yes' : 'no',
      csvField(m.language ?? ''),
      expiry(plan.pointsCurrencyId),
      toIso(m.created_at),
      csvField(m.tier_id === null ? '' : (plan.tiers.get(m.tier_id) ?? '')),
      m.blocked_at === null ? 'no' : 'yes',
      csvField(otherCards.join(' ')),
      ...plan.currencies.flatMap((c) => [plainDecimal(balance(c.id), c.digits), ...(c.expiryHeader ? [expiry(c.id)] : [])]),
    ].join(',');
  });
  return { lines, lastId: members.at(-1)!.id };
}

/**
 * A date of birth as the import takes it (YYYY-MM-DD), or empty where the import would refuse the
 * whole row — and with it the member's balances: a placeholder such as 1900-01-01 or a day in the
 * future, which the app's profile accepts (1900–2100) and the import reads as a year mistyped.
 */
function birthdateCell(birthdate: number | null, now: number): string {
  if (birthdate === null) return '';
  const day = toIso(birthdate).slice(0, 10);
  return readBirthdate(day, { country: '', now }).ok ? day : '';
}

/**
 * The whole file, page by page (the byte-order mark and header first), every page from one
 * snapshot opened at the first read. The caller streams it; the snapshot is released when the
 * stream ends, fails or is destroyed (a client gone mid-download: the stream returns the
 * generator), or at its time limit (memberExportSettings.timeLimitMs; then `onTimeLimit`: the
 * caller destroys its stream, which may wait on a client that stopped reading, and the generator
 * ends, its slot freed and its audit written). A turn of the event loop
 * between pages lets the node serve check-ins meanwhile. At most MEMBER_EXPORTS_AT_ONCE run.
 * Refused or failed before the header, nothing has left: the caller answers with the error.
 * Audited once it ends, with the rows written, and `complete: false` when the download stopped
 * before the end (what left the node is said either way).
 */
export async function* memberExportCsv(engine: Engine, staff: StaffPrincipal, options: { onTimeLimit?: () => void } = {}): AsyncGenerator<string> {
  refuseMemberExportHere(engine);
  const others = running.get(engine.db) ?? 0;
  if (others >= MEMBER_EXPORTS_AT_ONCE) {
    const busy = new ServiceError('rate_limited', 'Other member downloads are running. Please try again in a minute.');
    busy.retryAfterSeconds = 60;
    throw busy;
  }
  running.set(engine.db, others + 1);
  try {
    yield* snapshotCsv(engine, staff, options.onTimeLimit);
  } finally {
    running.set(engine.db, (running.get(engine.db) ?? 1) - 1);
  }
}

async function* snapshotCsv(engine: Engine, staff: StaffPrincipal, onTimeLimit?: () => void): AsyncGenerator<string> {
  const snapshot = await openReadSnapshot(engine.db, memberExportSettings.timeLimitMs, onTimeLimit);
  let plan: MemberExportPlan;
  try {
    plan = await planMemberExport(engine, staff, snapshot.db);
  } catch (error) {
    await snapshot.release();
    throw error;
  }
  let rows = 0;
  let complete = false;
  try {
    yield `\uFEFF${plan.header}\r\n`;
    for (let afterId = 0; ; ) {
      // Released at its time limit while the client read slowly: the download stops, cut off.
      if (!snapshot.open) throw new Error(`the members export ran past its time limit (${memberExportSettings.timeLimitMs} ms)`);
      const page = await memberExportPage(snapshot.db, plan, afterId, memberExportSettings.rows);
      if (page.lastId === null) break;
      afterId = page.lastId;
      yield `${page.lines.join('\r\n')}\r\n`;
      // Counted once the stream asks for more (it took the page: a page is bigger than its buffer),
      // so a download cut short says about what left the node, not what was read.
      rows += page.lines.length;
      await new Promise((resolve) => setImmediate(resolve));
      await memberExportSettings.betweenPages?.();
    }
    complete = true;
  } finally {
    try {
      await snapshot.release();
    } finally {
      await transact(engine, (trx) =>
        recordAudit(trx, engine, actorOf(staff), {
          action: 'customers.exported',
          objectType: 'program',
          objectId: staff.vendorId,
          before: null,
          after: { format: 'csv', rows, complete },
        }),
      );
    }
  }
}

/** The file's name: members-<date>.csv (UTC day of the node's clock). */
export function memberExportFileName(now: number): string {
  return `members-${toIso(now).slice(0, 10)}.csv`;
}
