import { ServiceError } from '../../shared/errors';
import type { Actor } from '../audit/record-audit';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { type Engine, ownsProgramData } from '../engine';
import { type ImportReport, importMembers, importProgramOf } from './import-members';
import type { MemberFile } from './member-file';

// The back office's imports of members as jobs in the node's process: 20,000 rows take minutes
// (a dry run as long as the import: it writes each batch and rolls it back), longer than a request
// should be held open or a proxy waits. The route starts a job and answers at once; the screen
// reads its progress. One job runs per program at a time (two would race for the same members and
// each hold the write lock in turn). Jobs live in memory: a restart forgets them, and an import cut
// by it keeps its committed batches, as an interrupted CLI run does (running the file again completes it).

/** Finished jobs a program keeps (their files with them, for the confirmation and the problem rows). */
const KEPT_PER_PROGRAM = 5;

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
  /** The file as read, kept for the confirmation and the file of problem rows. */
  file: MemberFile;
  pointsCurrency: string | undefined;
}

class Stopped extends Error {}

/**
 * The node's import jobs (one registry per app). A class, so that the operation-errors generator
 * reads each route's call as its own method (a factory's constant made it walk every method).
 */
export class ImportJobs {
  private readonly jobs: ImportJob[] = [];
  private readonly running = new Set<Promise<void>>();
  private stopping = false;

  constructor(private readonly engine: Engine) {}

  /** Checks the program can take the file (a paired store, its points currency), then starts its preview. */
  async preview(staff: StaffPrincipal, input: { fileName: string; file: MemberFile; pointsCurrency?: string | undefined }): Promise<ImportJob> {
    this.refuseToStart(staff.vendorId);
    // The program's refusals of the whole file (several loyalty currencies and none named) as the
    // CLI's one line, before a job: the use case reads the same again when it runs.
    await importProgramOf(this.engine, { vendorId: staff.vendorId, fileName: input.fileName, records: input.file.records, dryRun: true, pointsCurrency: input.pointsCurrency });
    this.refuseToStart(staff.vendorId);
    return this.start(staff, { fileName: input.fileName, file: input.file, pointsCurrency: input.pointsCurrency, dryRun: true, previewId: null });
  }

  /** Starts the import of a finished preview's file, once. */
  confirm(staff: StaffPrincipal, previewId: string): ImportJob {
    const preview = this.get(staff.vendorId, previewId);
    this.refuseToStart(staff.vendorId);
    if (!preview.dryRun || preview.status !== 'finished' || preview.confirmedAs !== null) throw new ServiceError('import_not_confirmable');
    const job = this.start(staff, { fileName: preview.fileName, file: preview.file, pointsCurrency: preview.pointsCurrency, dryRun: false, previewId });
    preview.confirmedAs = job.id;
    return job;
  }

  /** The program's job, or 404 `import_not_found` (another program's is not found either). */
  get(vendorId: number, id: string): ImportJob {
    const job = this.jobs.find((j) => j.id === id && j.vendorId === vendorId);
    if (!job) throw new ServiceError('import_not_found');
    return job;
  }

  /** The program's jobs, newest first. */
  list(vendorId: number): ImportJob[] {
    return this.jobs.filter((j) => j.vendorId === vendorId);
  }

  /** A node stopping: running jobs end after their current batch (committed batches stay). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running]);
  }

  /** A stopping node, a paired store (customers are central's, as the CLI says), a program already importing. */
  private refuseToStart(vendorId: number): void {
    if (this.stopping) throw new ServiceError('service_unavailable');
    if (!ownsProgramData(this.engine)) throw new ServiceError('customers_managed_by_central');
    if (this.jobs.some((j) => j.vendorId === vendorId && j.status === 'running')) throw new ServiceError('import_in_progress');
  }

  /** Adds the job (a program keeps its last few) and runs it after the reply that announces it; a stopping node waits for it. */
  private start(staff: StaffPrincipal, fields: Pick<ImportJob, 'fileName' | 'file' | 'pointsCurrency' | 'dryRun' | 'previewId'>): ImportJob {
    const job: ImportJob = {
      id: globalThis.crypto.randomUUID(),
      vendorId: staff.vendorId,
      staffEmail: staff.email,
      status: 'running',
      rows: fields.file.records.length,
      done: 0,
      createdAt: this.engine.clock.now(),
      finishedAt: null,
      confirmedAs: null,
      report: null,
      error: null,
      ...fields,
    };
    this.jobs.unshift(job);
    const finished = this.jobs.filter((j) => j.vendorId === job.vendorId && j.status !== 'running');
    for (const old of finished.slice(KEPT_PER_PROGRAM)) this.jobs.splice(this.jobs.indexOf(old), 1);
    let done = () => {};
    const tracked = new Promise<void>((resolve) => (done = resolve));
    this.running.add(tracked);
    const actor = actorOf(staff);
    setTimeout(() => {
      void runJob(this.engine, job, actor, () => this.stopping).finally(() => {
        this.running.delete(tracked);
        done();
      });
    }, 0);
    return job;
  }
}

/** The import itself: its refusals go in the job (failed, with why), never in a request's reply. */
async function runJob(engine: Engine, job: ImportJob, actor: Actor, stopping: () => boolean): Promise<void> {
  try {
    job.report = await importMembers(engine, {
      vendorId: job.vendorId,
      fileName: job.fileName,
      records: job.file.records,
      decimalMark: job.file.decimalMark,
      dryRun: job.dryRun,
      pointsCurrency: job.pointsCurrency,
      actor,
      // Between batches: the node's other requests (the counter, the screen's polls) have their turn;
      // a batch runs a second at most (IMPORT_BATCH_MS), and on SQLite holds the event loop that long.
      onProgress: async (done: number) => {
        job.done = done;
        if (stopping()) throw new Stopped('The node stopped during the import: the batches before were kept; import the file again to complete it.');
        await new Promise((resolve) => setTimeout(resolve, 0));
      },
    });
    job.done = job.rows;
    job.status = 'finished';
  } catch (error) {
    job.status = 'failed';
    job.error = error instanceof ServiceError ? { code: error.code, message: error.message } : { code: error instanceof Stopped ? 'node_stopped' : 'import_failed', message: error instanceof Error ? error.message : String(error) };
  } finally {
    job.finishedAt = engine.clock.now();
  }
}
