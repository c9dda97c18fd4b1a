import { type Kysely, sql } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { type Actor, actorWithoutStaff, recordAudit } from '../audit/record-audit';
import { holdProgramMoney } from '../currencies/program-money';
import { type Engine, ownsProgramData, transact } from '../engine';
import { isUniqueViolation } from '../storage/errors';
import { identifierLockKeys, lockKeys } from '../storage/identifier-locks';
import { programTimeZone } from '../stores/program-time-zone';
import type { DB } from '../storage/schema';
import type { MemberRecord } from './member-file';
import type { DecimalMark } from './opening-amount';
import { identifiersOf, type MemberRow, readMemberRow, type RowProblem } from './member-row';
import { addNewMembers, type BatchContext, readBatchContext } from './add-new-members';
import { findMembers } from './find-members';
import { decideMember, type ImportProgram, type MemberOutcome, openingPoints, refusalOf, RowRefused, writeMember } from './write-member';
import { currencyHeaders, type CurrencyColumns, readCurrencyColumns } from './currency-columns';

/**
 * A batch is one transaction: it commits whole (its audit record with it), so a stop keeps the
 * batches before. It ends at IMPORT_BATCH_ROWS rows or once it has run IMPORT_BATCH_MS: it holds
 * the database's write lock (SQLite's, PostgreSQL's node write lock), and a counter registering a
 * customer, a store's push or a sale at a node running on the same data waits that long at most.
 */
export const IMPORT_BATCH_ROWS = 500;
export const IMPORT_BATCH_MS = 1000;

export interface MemberImport {
  vendorId: number;
  /** The file's name, as the audit records say where the members came from. */
  fileName: string;
  records: readonly MemberRecord[];
  /** Before the decimals of the file's amounts (member-file.ts); a dot when not said. */
  decimalMark?: DecimalMark;
  /** Every row checked and written as for real, each batch then rolled back: nothing is kept. */
  dryRun: boolean;
  /** The loyalty currency the `points` column goes to (public id or name); needed when the program has several. */
  pointsCurrency?: string | undefined;
  /** Called after each batch with the rows done so far; awaited (a job in a node gives its event loop a turn there). */
  onProgress?: ((done: number, total: number) => unknown) | undefined;
  /** Who each batch's audit record names: the staff member of a back-office import; `cli` when not said. */
  actor?: Actor | undefined;
  /**
   * Run first in each batch's transaction, before its rows are looked up: a throw stops the import
   * there (that batch writes nothing; the ones before stay). A back-office job checks that no person
   * in its file left or was erased meanwhile (import-jobs.ts, refuseIfSomeoneLeft).
   */
  beforeBatch?: ((trx: Kysely<DB>) => Promise<void>) | undefined;
}

/** A row reported: refused (with its reason) or skipped (already a member: the customer it found). */
export interface ReportedRow extends RowProblem {
  outcome: 'refused' | 'skipped';
  customer_id?: number;
}

export interface ImportReport {
  dryRun: boolean;
  rows: number;
  imported: number;
  alreadyMembers: number;
  refused: number;
  refusedByReason: Record<string, number>;
  /** Points (of every loyalty currency) and quick pay (minor units) the imported rows brought. */
  points: number;
  /** The points of each loyalty currency the file brings (the `points` column's and each read from its own columns), in the program's order. */
  pointsByCurrency: Array<{ currency: string; name: string; points: number }>;
  /** The file's per-currency columns the program does not read (currency-columns.ts): said with the columns not read. */
  columnsNotRead: string[];
  quickPay: number;
  quickPayCurrency: { code: string; digits: number } | null;
  /** Every row not imported, in file order. */
  reported: ReportedRow[];
}

/**
 * `punchcard import customers`: the old system's members into the program, in batches (one
 * transaction each, see IMPORT_BATCH_ROWS). Rows are checked on their own first (contacts,
 * names, amounts), then against each other (two rows of one member), then against what the
 * program holds, a batch's rows looked up and written together (importRows): a refused row is
 * rolled back alone and the batch goes on. A paired store is refused: customers are central's,
 * and an import there would only travel as thousands of counter registrations.
 */
export async function importMembers(engine: Engine, input: MemberImport): Promise<ImportReport> {
  if (!ownsProgramData(engine)) throw new ServiceError('customers_managed_by_central');
  const program = await importProgramOf(engine, input);
  const reported: ReportedRow[] = [];
  const report: ImportReport = {
    dryRun: input.dryRun,
    rows: input.records.length,
    imported: 0,
    alreadyMembers: 0,
    refused: 0,
    refusedByReason: {},
    points: 0,
    pointsByCurrency: program.pointCurrencies.map((c) => ({ currency: c.publicId, name: c.name, points: 0 })),
    columnsNotRead: program.columnsNotRead,
    quickPay: 0,
    quickPayCurrency: program.quickPayCurrency,
    reported,
  };
  const refuse = (problem: RowProblem) => {
    reported.push({ ...problem, outcome: 'refused' });
    report.refused += 1;
    report.refusedByReason[problem.reason] = (report.refusedByReason[problem.reason] ?? 0) + 1;
  };

  const rows: MemberRow[] = [];
  const firstLineOf = new Map<string, number>();
  for (const record of input.records) {
    const read = readMemberRow(record, { country: program.country, timeZone: program.timeZone, quickPayDigits: program.quickPayCurrency?.digits ?? null, decimalMark: input.decimalMark ?? '.', now: engine.clock.now(), currencyColumns: program.currencyColumns });
    if ('problem' in read) {
      refuse(read.problem);
      continue;
    }
    const ids = identifiersOf(read.row);
    const earlier = ids.find((id) => firstLineOf.has(id));
    if (earlier) {
      const [what] = earlier.split(' ');
      refuse({ line: record.line, reason: 'duplicate_in_file', field: what!, message: `Line ${firstLineOf.get(earlier)} has the same ${what}: one member, one row.` });
      continue;
    }
    for (const id of ids) firstLineOf.set(id, record.line);
    rows.push(read.row);
  }

  let done = input.records.length - rows.length;
  for (let start = 0; start < rows.length; ) {
    const outcomes = await importBatch(engine, program.target, rows.slice(start, start + IMPORT_BATCH_ROWS), input);
    start += outcomes.length;
    for (const [row, outcome] of outcomes) {
      if (outcome instanceof RowRefused) refuse({ line: row.line, reason: outcome.reason, field: outcome.field, message: outcome.message });
      else if (outcome.outcome === 'already_member') {
        report.alreadyMembers += 1;
        reported.push({ line: row.line, outcome: 'skipped', reason: 'already_member', field: outcome.matchedBy[0] ?? null, message: `Already a member (customer ${outcome.customerId}, found by ${outcome.matchedBy.join(' and ')}): left as they are.`, customer_id: outcome.customerId });
      } else {
        report.imported += 1;
        for (const lot of openingPoints(program.target, row, 0)) {
          report.points += lot.points;
          report.pointsByCurrency[program.pointCurrencies.findIndex((c) => c.id === lot.currency.id)]!.points += lot.points;
        }
        report.quickPay += row.quickPay;
      }
    }
    done += outcomes.length;
    await input.onProgress?.(done, input.records.length);
  }
  reported.sort((a, b) => a.line - b.line);
  return report;
}

type RowOutcome = MemberOutcome | RowRefused;

/** Thrown to roll a dry run's batch back, carrying what the batch would have done. */
class DryRun extends Error {
  constructor(readonly outcomes: Array<[MemberRow, RowOutcome]>) {
    super('dry run');
  }
}

/**
 * The first rows of `candidates` in one transaction, each under a savepoint of its own: as many as
 * IMPORT_BATCH_MS allows (one at least). Returns what each row it took came to.
 */
async function importBatch(engine: Engine, target: ImportProgram, candidates: MemberRow[], input: MemberImport): Promise<Array<[MemberRow, RowOutcome]>> {
  try {
    return await transact(
      engine,
      async (trx) => {
        await input.beforeBatch?.(trx);
        // The phones' locks first (a counter registering one of them waits, then finds the member), then the program's money.
        await lockKeys(trx, engine.dialect, candidates.flatMap((row) => identifierLockKeys({ phone: row.phone })));
        if (candidates.some((row) => row.quickPay > 0)) await holdProgramMoney(trx, engine.dialect, target.vendorId);
        const outcomes = await importRows(trx, engine, target, candidates);
        const batch = outcomes.map(([row]) => row);
        const counts = countOutcomes(outcomes);
        if (input.dryRun) throw new DryRun(outcomes);
        if (counts.imported > 0) {
          await recordAudit(trx, engine, input.actor ?? actorWithoutStaff(target.vendorId, 'cli'), {
            action: 'customers.import',
            objectType: 'import',
            objectId: target.runId,
            before: null,
            after: { file: input.fileName, lines: `${batch[0]!.line}-${batch.at(-1)!.line}`, ...counts },
          });
        }
        return outcomes;
      },
      { alone: true },
    );
  } catch (error) {
    if (error instanceof DryRun) return error.outcomes;
    throw error;
  }
}

/**
 * The first rows of `candidates`, in file order, as many as IMPORT_BATCH_MS allows (one at least).
 * Their emails, phones and cards are looked up at once (findMembers), and each row decided as
 * writeMember decides it: one already a member or refused is not written. The new members between
 * two rows that link a card the program has (writeMember links it: that may move the card's value)
 * are written together (writeTogether).
 */
async function importRows(trx: Kysely<DB>, engine: Engine, target: ImportProgram, candidates: MemberRow[]): Promise<Array<[MemberRow, RowOutcome]>> {
  const started = performance.now();
  const found = await findMembers(trx, target.vendorId, candidates);
  const context = await readBatchContext(trx, target.vendorId);
  const outcomes: RowOutcome[] = [];
  let together: number[] = [];
  /** Writes the rows gathered; the first row not written when time ran out (it and the rows after go to the next batch). */
  const flush = async (): Promise<number | undefined> => {
    const written = await writeTogether(trx, engine, target, context, together.map((i) => candidates[i]!), started);
    written.forEach((outcome, k) => (outcomes[together[k]!] = outcome));
    const notWritten = together[written.length];
    together = [];
    return notWritten;
  };
  let taken = 0;
  for (; taken < candidates.length; taken += 1) {
    const row = candidates[taken]!;
    const decision = decideMember(target, row, found[taken]!);
    if (decision instanceof RowRefused || decision.outcome === 'already_member') outcomes[taken] = decision;
    else if (!decision.card) together.push(taken);
    else {
      const notWritten = await flush();
      if (notWritten !== undefined) return taking(candidates, outcomes, notWritten);
      if (taken > 0 && performance.now() - started > IMPORT_BATCH_MS) break;
      outcomes[taken] = await importRow(trx, engine, target, row);
    }
  }
  return taking(candidates, outcomes, (await flush()) ?? taken);
}

const taking = (candidates: MemberRow[], outcomes: RowOutcome[], count: number): Array<[MemberRow, RowOutcome]> => candidates.slice(0, count).map((row, i) => [row, outcomes[i]!]);

/**
 * New members written together (addNewMembers: one statement per table) under one savepoint. If
 * that fails (a contact another transaction took after the look-up, a key no read foresaw), the
 * savepoint rolls all of them back and each is written alone under its own (importRow), read
 * again first: as before batching, a refused row is rolled back alone and its neighbours are
 * written, and a row meets what another transaction wrote as one row at a time met it. Returns
 * the outcomes of the first rows: all of them, or fewer when IMPORT_BATCH_MS ran out one by one.
 */
async function writeTogether(trx: Kysely<DB>, engine: Engine, target: ImportProgram, context: BatchContext, rows: MemberRow[], started: number): Promise<RowOutcome[]> {
  if (rows.length === 0) return [];
  await sql`savepoint import_rows`.execute(trx);
  try {
    const customerIds = await addNewMembers(trx, engine, target, context, rows);
    await sql`release savepoint import_rows`.execute(trx);
    return customerIds.map((customerId) => ({ outcome: 'imported', customerId }));
  } catch {
    await sql`rollback to savepoint import_rows`.execute(trx);
    await sql`release savepoint import_rows`.execute(trx);
    // One by one, within the batch's time as before (the first row whatever it takes: a batch writes one at least).
    const outcomes: RowOutcome[] = [];
    for (const row of rows) {
      if (outcomes.length > 0 && performance.now() - started > IMPORT_BATCH_MS) break;
      outcomes.push(await importRow(trx, engine, target, row));
    }
    return outcomes;
  }
}

/**
 * One row under a savepoint: a refusal rolls back the row alone. On PostgreSQL a unique key that
 * another transaction took meanwhile (a counter registering that email) is not the row's fault:
 * it runs once more, and finds the member.
 */
async function importRow(trx: Kysely<DB>, engine: Engine, target: ImportProgram, row: MemberRow): Promise<RowOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    await sql`savepoint import_row`.execute(trx);
    try {
      const outcome = await writeMember(trx, engine, target, row);
      await sql`release savepoint import_row`.execute(trx);
      return outcome;
    } catch (error) {
      await sql`rollback to savepoint import_row`.execute(trx);
      await sql`release savepoint import_row`.execute(trx);
      if (isUniqueViolation(error)) {
        if (attempt === 1 && engine.dialect === 'postgres') continue;
        return new RowRefused('contact_taken', null, 'Another customer took this email or card while the row was imported.');
      }
      const refusal = refusalOf(error);
      if (refusal) return refusal;
      throw error;
    }
  }
}

function countOutcomes(outcomes: Array<[MemberRow, RowOutcome]>) {
  let imported = 0;
  let alreadyMembers = 0;
  for (const [, outcome] of outcomes) {
    if (outcome instanceof RowRefused) continue;
    if (outcome.outcome === 'imported') imported += 1;
    else alreadyMembers += 1;
  }
  return { imported, already_members: alreadyMembers, refused: outcomes.length - imported - alreadyMembers };
}

/** The vendor's country and time zone, the currencies the file's balances go to (its per-currency columns read: currency-columns.ts) and its points expiry. */
export async function importProgramOf(
  engine: Engine,
  input: MemberImport,
): Promise<{
  country: string;
  timeZone: string;
  quickPayCurrency: { code: string; digits: number } | null;
  currencyColumns: CurrencyColumns[];
  columnsNotRead: string[];
  /** The loyalty currencies the file brings points of, in the program's order. */
  pointCurrencies: Array<{ id: number; publicId: string; name: string }>;
  target: ImportProgram;
}> {
  const { db } = engine;
  const vendor = await db.selectFrom('vendors').select(['id', 'country', 'quick_pay_currency_id', 'points_expiry_days']).where('id', '=', input.vendorId).executeTakeFirst();
  if (!vendor) throw new ServiceError('vendor_not_found', undefined, 'vendor');
  const currencies = await db.selectFrom('currencies').select(['id', 'public_id', 'name', 'code', 'status']).where('vendor_id', '=', vendor.id).where('deleted_at', 'is', null).orderBy('id').execute();
  const quickPay = currencies.find((c) => c.id === vendor.quick_pay_currency_id && c.code !== null) ?? null;
  const loyalty = currencies.filter((c) => c.code === null && c.status === 'ACTIVE');
  let points = loyalty.length === 1 ? loyalty[0]! : null;
  if (input.pointsCurrency !== undefined) {
    const named = input.pointsCurrency.trim().toLowerCase();
    points = loyalty.find((c) => c.public_id.toLowerCase() === named || c.name.toLowerCase() === named) ?? null;
    if (!points) throw new ServiceError('unknown_currency', `The program has no active loyalty currency "${input.pointsCurrency}" (it has: ${loyalty.map((c) => `${c.name} ${c.public_id}`).join(', ') || 'none'}).`, 'points_currency');
  } else if (loyalty.length > 1 && input.records.some((r) => (r.fields.points ?? '') !== '')) {
    throw new ServiceError('validation_failed', `The program has several loyalty currencies: name the one the points column holds with --points-currency (${loyalty.map((c) => `${c.name} ${c.public_id}`).join(', ')}).`, 'points_currency');
  }
  // `points` wins: its currency's own columns are not read when the file has that column.
  const hasPointsColumn = input.records[0]?.fields.points !== undefined;
  const read = readCurrencyColumns(currencyHeaders(input.records), loyalty, hasPointsColumn ? (points?.id ?? null) : null);
  const brought = new Set([...(hasPointsColumn && points ? [points.id] : []), ...read.columns.map((c) => c.currency.id)]);
  return {
    country: vendor.country,
    timeZone: await programTimeZone(db, vendor.id),
    quickPayCurrency: quickPay ? { code: quickPay.code!, digits: minorUnitDigits(quickPay.code!) } : null,
    currencyColumns: read.columns,
    columnsNotRead: read.notRead,
    pointCurrencies: loyalty.filter((c) => brought.has(c.id)).map((c) => ({ id: c.id, publicId: c.public_id, name: c.name })),
    target: { vendorId: vendor.id, points: points && { id: points.id, name: points.name }, quickPay: quickPay && { id: quickPay.id, name: quickPay.name }, pointsExpiryDays: vendor.points_expiry_days, runId: `import-${engine.clock.now()}` },
  };
}
