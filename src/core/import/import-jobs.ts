import { type Kysely, sql, type UpdateObject } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { type Actor, actorWithoutStaff } from '../audit/record-audit';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { type Engine, ownsProgramData, transact } from '../engine';
import { type Dialect, lockKey } from '../storage/dialect';
import { isUniqueViolation } from '../storage/errors';
import type { DB, ImportJobsTable } from '../storage/schema';
import { type ImportReport, importMembers, importProgramOf } from './import-members';
import type { MemberFile, MemberRecord } from './member-file';

// The back office's imports of members as jobs: 20,000 rows take minutes (a dry run as long as the
// import: it writes each batch and rolls it back), longer than a request should be held open or a
// proxy waits. The route starts a job and answers at once; the screen reads its progress. Jobs are
// rows (import_jobs, migration 0047), not one process's memory: central may be several processes
// on one database, and the poll, the confirmation or the problem rows may reach any of them. The
// process that starts a job runs it, moving `done` and `updated_at` (its heartbeat) after each
// batch. One job runs per program at a time (two would race for the same members and each hold the
// write lock in turn): a partial unique index, whichever process starts it. A job whose process
// died reads as failed (node_stopped) once its heartbeat is older than STALE_MS, and is marked so
// when the program's next import starts; its committed batches stay, as an interrupted CLI run's
// do (running the file again completes it).

/** Finished jobs a program keeps (their reports and counts; their files for FILE_KEPT_MS only). */
const KEPT_PER_PROGRAM = 5;

/**
 * How long a job keeps its file after its last write (its end): a preview can be confirmed, and the
 * refused rows downloaded, for a day; then the node's hourly jobs empty the file (forgetOldImportFiles),
 * so the people of a member file do not stay in the database for as long as the job is listed.
 */
export const FILE_KEPT_MS = 24 * 3600_000;

/** The `file` of a job whose file was dropped (the column is NOT NULL): its reads are 409 `import_file_expired`. */
export const DROPPED_FILE = '';

/**
 * Orders a confirmation (which copies a kept file into its new job) and an erasure (which drops the
 * kept files naming the person) of one program, on PostgreSQL: an erasure reading the files while a
 * confirmation's new job is not committed would not see that copy. Either waits for the other's
 * commit, then reads what it wrote. Taken before either reads or writes import_jobs. The node's
 * write lock orders them already (storage/write-lock.ts) while the erasure writes before it reads;
 * this keeps them ordered whatever the erasure does first.
 */
export function lockImportFiles(db: Kysely<DB>, dialect: Dialect, vendorId: number): Promise<void> {
  return lockKey(db, dialect, `import-files:${vendorId}`);
}

/** The `file` of a job that failed: no rows to confirm or hand back (the decimal mark of a file of none). */
const NO_ROWS = JSON.stringify({ records: [], decimalMark: '.' });

/** A running job's heartbeat older than this: its process is gone (a batch runs a second at most, IMPORT_BATCH_MS). */
export const STALE_MS = 2 * 60_000;

const STOPPED = { code: 'node_stopped', message: 'The node stopped during the import: the batches before were kept; import the file again to complete it.' };

/** A person in the file left the program (or was erased) while the job ran: it stops rather than bring them back (refuseIfSomeoneLeft). */
export const MEMBER_LEFT = {
  code: 'member_left',
  message: 'A member in this file left the program or asked to be erased while the job ran: it stopped so as not to bring them back (an import keeps the batches it finished before). Take them out of the file before uploading it again.',
};

/** Who a command-line run's job names as its starter (the Import screen: "An import started by … is running"). */
export const CLI_STARTER = 'punchcard import customers';

/** A command-line run that stopped before its end (MEMBER_LEFT, or taken for stopped): the batches before stay. */
export class ImportRunStopped extends Error {
  constructor(
    readonly failure: { code: string; message: string },
    readonly done: number,
    readonly rows: number,
  ) {
    super(failure.message);
  }
}

/** For tests: awaited by a running job between its batches (after its heartbeat), to stage what happens meanwhile. The node never sets it. */
export const importJobSettings: { betweenBatches: ((job: ImportJob, done: number) => Promise<void>) | null } = { betweenBatches: null };

export interface ImportJob {
  id: string;
  vendorId: number;
  staffEmail: string;
  fileName: string;
  dryRun: boolean;
  status: 'running' | 'finished' | 'failed';
  rows: number;
  done: number;
  createdAt: number;
  finishedAt: number | null;
  /** A preview: the import confirmed from it. */
  confirmedAs: string | null;
  /** An import: the preview it was confirmed from. */
  previewId: string | null;
  report: ImportReport | null;
  error: { code: string; message: string } | null;
  /** Header names the file had that the import does not read. */
  ignoredColumns: string[];
  pointsCurrency: string | undefined;
}

class Stopped extends Error {}

interface JobFields {
  fileName: string;
  file: MemberFile;
  pointsCurrency: string | undefined;
  dryRun: boolean;
  previewId: string | null;
  previewReport?: ImportReport | null;
}

/** Why a job another process found stale (its heartbeat late) goes no further. */
const TAKEN_FOR_STOPPED = 'This import was taken for stopped: its heartbeat was late.';

/** Thrown in a batch's transaction whose job lost its file to a departure (refuseIfSomeoneLeft). */
class SomeoneLeft extends Error {}

/** Every column but the file (megabytes, read only to run, confirm or give the problem rows). */
const JOB_COLUMNS = [
  'id',
  'vendor_id',
  'staff_email',
  'file_name',
  'dry_run',
  'status',
  'rows',
  'done',
  'created_at',
  'updated_at',
  'finished_at',
  'confirmed_as',
  'preview_id',
  'report',
  'error',
  'points_currency',
  'ignored_columns',
] as const;

/**
 * The node's import jobs (one per app). A class, so that the operation-errors generator reads each
 * route's call as its own method (a factory's constant made it walk every method).
 */
export class ImportJobs {
  /** This process's running jobs: a stopping node waits for them. */
  private readonly running = new Set<Promise<void>>();
  private stopping = false;

  constructor(private readonly engine: Engine) {}

  /** Checks the program can take the file (a paired store, its points currency), then starts its preview. */
  async preview(staff: StaffPrincipal, input: { fileName: string; file: MemberFile; pointsCurrency?: string | undefined }): Promise<ImportJob> {
    await this.refuseToStart(staff.vendorId);
    // The program's refusals of the whole file (several loyalty currencies and none named) as the
    // CLI's one line, before a job: the use case reads the same again when it runs.
    // Its per-currency columns the program does not read are said with the file's other columns not read.
    const program = await importProgramOf(this.engine, { vendorId: staff.vendorId, fileName: input.fileName, records: input.file.records, dryRun: true, pointsCurrency: input.pointsCurrency });
    const file = { ...input.file, ignoredColumns: [...input.file.ignoredColumns, ...program.columnsNotRead] };
    return this.start(staff, { fileName: input.fileName, file, pointsCurrency: input.pointsCurrency, dryRun: true, previewId: null });
  }

  /** Starts the import of a finished preview's file, once. */
  async confirm(staff: StaffPrincipal, previewId: string): Promise<ImportJob> {
    const preview = await this.get(staff.vendorId, previewId);
    await this.refuseToStart(staff.vendorId);
    if (!preview.dryRun || preview.status !== 'finished' || preview.confirmedAs !== null) throw new ServiceError('import_not_confirmable');
    const file = await this.file(staff.vendorId, previewId);
    return this.start(staff, { fileName: preview.fileName, file, pointsCurrency: preview.pointsCurrency, dryRun: false, previewId, previewReport: preview.report });
  }

  /** `punchcard import customers`'s job (importFromCommandLine): the program's running import, run by the caller. */
  async addForCommandLine(input: CommandLineImport): Promise<ImportJob> {
    await this.refuseToStart(input.vendorId);
    // The program's refusals of the whole file before a job, as a preview's (the run reads them again).
    await importProgramOf(this.engine, { vendorId: input.vendorId, fileName: input.fileName, records: input.file.records, dryRun: false, pointsCurrency: input.pointsCurrency });
    return this.add({ vendorId: input.vendorId, email: CLI_STARTER }, { fileName: input.fileName, file: input.file, pointsCurrency: input.pointsCurrency, dryRun: false, previewId: null });
  }

  /** The program's job, or 404 `import_not_found` (another program's is not found either). */
  async get(vendorId: number, id: string): Promise<ImportJob> {
    const row = await this.engine.db.selectFrom('import_jobs').select(JOB_COLUMNS).where('vendor_id', '=', vendorId).where('id', '=', id).executeTakeFirst();
    if (!row) throw new ServiceError('import_not_found');
    return this.jobOf(row);
  }

  /** The file a job read (its records and decimal mark, and the columns not read). */
  async file(vendorId: number, id: string): Promise<MemberFile> {
    const row = await this.engine.db.selectFrom('import_jobs').select(['file', 'ignored_columns']).where('vendor_id', '=', vendorId).where('id', '=', id).executeTakeFirst();
    if (!row) throw new ServiceError('import_not_found');
    if (row.file === DROPPED_FILE) throw new ServiceError('import_file_expired');
    const file = JSON.parse(row.file) as Pick<MemberFile, 'records' | 'decimalMark'>;
    return { records: file.records, decimalMark: file.decimalMark, ignoredColumns: JSON.parse(row.ignored_columns) as string[] };
  }

  /** The program's jobs, newest first. */
  async list(vendorId: number): Promise<ImportJob[]> {
    const rows = await this.engine.db.selectFrom('import_jobs').select(JOB_COLUMNS).where('vendor_id', '=', vendorId).orderBy('seq', 'desc').execute();
    return rows.map((row) => this.jobOf(row));
  }

  /** A node stopping: its running jobs end after their current batch (committed batches stay). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running]);
  }

  /** A stopping node, a paired store (customers are central's, as the CLI says). A running import is the insert's to find. */
  private async refuseToStart(vendorId: number): Promise<void> {
    if (this.stopping) throw new ServiceError('service_unavailable');
    if (!ownsProgramData(this.engine)) throw new ServiceError('customers_managed_by_central');
    // The program's running job whose process died no longer holds the program's one place.
    const now = this.engine.clock.now();
    await this.engine.db
      .updateTable('import_jobs')
      // Its file goes with it, as a job failing in its own process keeps no row (runJob): the dead
      // process's end, which would have trimmed it, never comes.
      .set({ status: 'failed', error: JSON.stringify(STOPPED), finished_at: now, updated_at: now, file: sql<string>`case when file = ${DROPPED_FILE} then file else ${NO_ROWS} end` })
      .where('vendor_id', '=', vendorId)
      .where('status', '=', 'running')
      .where('updated_at', '<', now - STALE_MS)
      .execute();
  }

  /** Adds the job and runs it here after the reply that announces it; a stopping node waits for it. */
  private async start(staff: StaffPrincipal, fields: JobFields): Promise<ImportJob> {
    const job = await this.add(staff, fields);
    let done = () => {};
    const tracked = new Promise<void>((resolve) => (done = resolve));
    this.running.add(tracked);
    const actor = actorOf(staff);
    setTimeout(() => {
      void runJob(this.engine, job, fields.file, actor, () => this.stopping).finally(() => {
        this.running.delete(tracked);
        done();
      });
    }, 0);
    return job;
  }

  /** Adds the job's row, running (a program keeps its last few finished). */
  private async add(staff: Pick<StaffPrincipal, 'vendorId' | 'email'>, fields: JobFields): Promise<ImportJob> {
    const now = this.engine.clock.now();
    const row = {
      id: globalThis.crypto.randomUUID(),
      vendor_id: staff.vendorId,
      staff_email: staff.email,
      file_name: fields.fileName,
      dry_run: fields.dryRun ? 1 : 0,
      status: 'running',
      rows: fields.file.records.length,
      done: 0,
      created_at: now,
      updated_at: now,
      finished_at: null,
      confirmed_as: null,
      preview_id: fields.previewId,
      report: null,
      error: null,
      points_currency: fields.pointsCurrency ?? null,
      ignored_columns: JSON.stringify(fields.file.ignoredColumns),
    };
    try {
      await transact(this.engine, async (trx) => {
        // A confirmation copies the preview's file: an erasure of one of its people waits, or is waited for.
        if (fields.previewId !== null) await lockImportFiles(trx, this.engine.dialect, staff.vendorId);
        await trx
          .insertInto('import_jobs')
          .values({ ...row, seq: sql<number>`(select coalesce(max(seq), 0) + 1 from import_jobs where vendor_id = ${staff.vendorId})`, file: storedFile(fields.file, fields.file.records) })
          .execute();
        if (fields.previewId !== null) {
          // The preview's file now serves only its problem rows: the import has its own copy.
          const file = storedFile(fields.file, refusedRecords(fields.file, fields.previewReport ?? null));
          const confirmed = await trx
            .updateTable('import_jobs')
            .set({ confirmed_as: row.id, file })
            .where('id', '=', fields.previewId)
            .where('confirmed_as', 'is', null)
            // Dropped since it was read (its day ended, or a person in it was erased): not imported.
            .where('file', '<>', DROPPED_FILE)
            .executeTakeFirst();
          if (Number(confirmed.numUpdatedRows) !== 1) {
            const preview = await trx.selectFrom('import_jobs').select('confirmed_as').where('id', '=', fields.previewId).executeTakeFirst();
            throw new ServiceError(preview && preview.confirmed_as === null ? 'import_file_expired' : 'import_not_confirmable');
          }
        }
      });
    } catch (error) {
      // Another process's (or this one's) running import of the program holds the partial unique index.
      if (isUniqueViolation(error)) throw new ServiceError('import_in_progress');
      throw error;
    }
    // A failure here leaves old rows for the next start to delete.
    await this.forgetOldJobs(staff.vendorId).catch(() => undefined);
    return this.jobOf(row);
  }

  /** The program's finished jobs beyond the last few, their files with them. */
  private async forgetOldJobs(vendorId: number): Promise<void> {
    const old = await this.engine.db
      .selectFrom('import_jobs')
      .select('id')
      .where('vendor_id', '=', vendorId)
      .where('status', '<>', 'running')
      .orderBy('seq', 'desc')
      .offset(KEPT_PER_PROGRAM)
      .limit(1000)
      .execute();
    if (old.length > 0) await this.engine.db.deleteFrom('import_jobs').where('id', 'in', old.map((r) => r.id)).execute();
  }

  /** A row as the job it is; a running one whose heartbeat stopped reads as failed (its process died). */
  private jobOf(row: Omit<ImportJobsTable, 'seq' | 'file'>): ImportJob {
    const stale = row.status === 'running' && row.updated_at < this.engine.clock.now() - STALE_MS;
    return {
      id: row.id,
      vendorId: row.vendor_id,
      staffEmail: row.staff_email,
      fileName: row.file_name,
      dryRun: row.dry_run === 1,
      status: stale ? 'failed' : (row.status as ImportJob['status']),
      rows: row.rows,
      done: row.done,
      createdAt: row.created_at,
      finishedAt: stale ? row.updated_at : row.finished_at,
      confirmedAs: row.confirmed_as,
      previewId: row.preview_id,
      report: row.report === null ? null : (JSON.parse(row.report) as ImportReport),
      error: stale ? STOPPED : row.error === null ? null : (JSON.parse(row.error) as ImportJob['error']),
      ignoredColumns: JSON.parse(row.ignored_columns) as string[],
      pointsCurrency: row.points_currency ?? undefined,
    };
  }
}

export interface CommandLineImport {
  vendorId: number;
  fileName: string;
  file: MemberFile;
  pointsCurrency: string | undefined;
  onProgress?: ((done: number, total: number) => unknown) | undefined;
}

/**
 * `punchcard import customers` (not a dry run, which writes nothing): the run as a job of this
 * process, awaited. Its rows are a kept file for the run's length, so an erasure on the same
 * database (a node running meanwhile, central's processes) drops it and the run's next batch stops
 * (refuseIfSomeoneLeft) as a back-office job's does; it is listed as one (CLI_STARTER) and holds
 * the program's one running import. A run killed midway is a dead process's job (STALE_MS).
 * Throws ImportRunStopped when it stopped early; a refusal of the file (a ServiceError) or the
 * database's error as thrown. Not a method: the operation-errors generator would read the rows'
 * refusals as the routes' errors.
 */
export async function importFromCommandLine(engine: Engine, input: CommandLineImport): Promise<ImportReport> {
  const job = await new ImportJobs(engine).addForCommandLine(input);
  const outcome = await runJob(engine, job, input.file, actorWithoutStaff(input.vendorId, 'cli'), () => false, input.onProgress);
  if ('report' in outcome) return outcome.report;
  if (outcome.error instanceof SomeoneLeft) throw new ImportRunStopped(MEMBER_LEFT, outcome.done, job.rows);
  if (outcome.error instanceof Stopped) throw new ImportRunStopped({ code: STOPPED.code, message: outcome.error.message }, outcome.done, job.rows);
  throw outcome.error;
}

/**
 * The hourly drop (server/node/jobs.ts): every job whose last write is older than FILE_KEPT_MS loses
 * its file (its row, report and counts stay). A running job writes its heartbeat each batch, so only
 * one whose process died a day ago is among them. One idempotent UPDATE: central's processes may
 * run it at the same moment. Returns how many files went.
 */
export async function forgetOldImportFiles(engine: Engine): Promise<number> {
  const result = await engine.db
    .updateTable('import_jobs')
    .set({ file: DROPPED_FILE })
    .where('updated_at', '<', engine.clock.now() - FILE_KEPT_MS)
    .where('file', '<>', DROPPED_FILE)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The file as a job's row keeps it: these records and the decimal mark. */
function storedFile(file: MemberFile, records: MemberRecord[]): string {
  return JSON.stringify({ records, decimalMark: file.decimalMark });
}

/**
 * The records the file of problem rows needs (the refused ones), so that a program's last imports
 * keep no more of the people they brought than that; a blank record first keeps the file's columns
 * (every record has every column the header named).
 */
function refusedRecords(file: MemberFile, report: ImportReport | null): MemberRecord[] {
  const refused = new Set(report?.reported.filter((row) => row.outcome === 'refused').map((row) => row.line));
  const first = file.records[0];
  const blank = (values: Record<string, string>) => Object.fromEntries(Object.keys(values).map((column) => [column, '']));
  const columns: MemberRecord[] = first ? [{ line: 0, fields: blank(first.fields), ...(first.byCurrency ? { byCurrency: blank(first.byCurrency) } : {}) }] : [];
  return [...columns, ...file.records.filter((record) => refused.has(record.line))];
}

/**
 * The import itself, in this process: its refusals go in the job's row (failed, with why), never in
 * a request's reply. Returns its report, or what stopped it and the rows done by then (for the CLI).
 */
async function runJob(
  engine: Engine,
  job: ImportJob,
  file: MemberFile,
  actor: Actor,
  stopping: () => boolean,
  onProgress?: (done: number, total: number) => unknown,
): Promise<{ report: ImportReport } | { error: unknown; done: number }> {
  // Only while the row is still running: another process may have found this one's heartbeat stale.
  const write = (set: UpdateObject<DB, 'import_jobs'>) =>
    engine.db
      .updateTable('import_jobs')
      .set({ ...set, updated_at: engine.clock.now() })
      .where('id', '=', job.id)
      .where('status', '=', 'running')
      .executeTakeFirst();
  let ended: Partial<ImportJobsTable>;
  let outcome: { report: ImportReport } | { error: unknown; done: number };
  let doneSoFar = 0;
  try {
    const report = await importMembers(engine, {
      vendorId: job.vendorId,
      fileName: job.fileName,
      records: file.records,
      decimalMark: file.decimalMark,
      dryRun: job.dryRun,
      pointsCurrency: job.pointsCurrency,
      actor,
      beforeBatch: (trx) => refuseIfSomeoneLeft(trx, engine.dialect, job),
      // Between batches: the node's other requests (the counter, the screen's polls) have their turn;
      // a batch runs a second at most (IMPORT_BATCH_MS), and on SQLite holds the event loop that long.
      onProgress: async (done: number) => {
        const moved = await write({ done });
        if (Number(moved.numUpdatedRows) === 0) throw new Stopped(TAKEN_FOR_STOPPED);
        doneSoFar = done;
        await onProgress?.(done, job.rows);
        if (stopping()) throw new Stopped(STOPPED.message);
        await new Promise((resolve) => setTimeout(resolve, 0));
        await importJobSettings.betweenBatches?.(job, done);
      },
    });
    // A finished preview keeps its whole file for the confirmation; anything else, its refused rows only.
    ended = { status: 'finished', done: job.rows, report: JSON.stringify(report), ...(job.dryRun ? {} : { file: storedFile(file, refusedRecords(file, report)) }) };
    outcome = { report };
  } catch (error) {
    outcome = { error, done: doneSoFar };
    const failure = error instanceof ServiceError ? { code: error.code, message: error.message } : error instanceof Stopped ? STOPPED : error instanceof SomeoneLeft ? MEMBER_LEFT : { code: 'import_failed', message: error instanceof Error ? error.message : String(error) };
    ended = { status: 'failed', error: JSON.stringify(failure), file: storedFile(file, []) };
  }
  // A file dropped while the job ran (a person in it erased) stays dropped.
  const { file: endFile, ...rest } = ended;
  const keptFile = endFile === undefined ? {} : { file: sql<string>`case when file = ${DROPPED_FILE} then ${DROPPED_FILE} else ${endFile} end` };
  try {
    await write({ ...rest, ...keptFile, finished_at: engine.clock.now() });
  } catch (error) {
    // The database out of reach at the end: the row's heartbeat stops, and it reads as failed in STALE_MS.
    process.emitWarning(`import ${job.id}: its end could not be written: ${error instanceof Error ? error.message : String(error)}`, 'PunchcardImportJobs');
  }
  return outcome;
}

/**
 * An erasure (or a person leaving the program) drops every kept file of the program naming them,
 * a running job's too (forget-person-in-imports.ts), but the job imports from the rows it holds in
 * memory: a person erased meanwhile is no longer found by their email or phone, and would come back
 * as a new member. So each batch, in its own transaction and before it looks anything up, reads
 * whether its job's file is still there, and stops the job if not. Both take lockImportFiles (and,
 * as every writer, the node's write lock), so a departure commits wholly before the batch that
 * reads it or after the batch commits — when the person, still a member, was found and skipped.
 * The job does not know who left (their identifiers are gone), so it stops: the batches before stay.
 * A job another process took for stopped since its last heartbeat (marked failed) writes no further
 * batch either: its row already says where it stopped.
 */
async function refuseIfSomeoneLeft(trx: Kysely<DB>, dialect: Dialect, job: ImportJob): Promise<void> {
  await lockImportFiles(trx, dialect, job.vendorId);
  const row = await trx.selectFrom('import_jobs').select(['file', 'status']).where('id', '=', job.id).executeTakeFirst();
  if (row?.file === DROPPED_FILE) throw new SomeoneLeft(MEMBER_LEFT.message);
  if (row?.status !== 'running') throw new Stopped(TAKEN_FOR_STOPPED);
}
