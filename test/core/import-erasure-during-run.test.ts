import { afterEach, describe, expect, it } from 'vitest';
import { removeMemberOnRequest } from '../../src/core/customer-care/remove-member';
import { emailKey } from '../../src/core/customers/contact';
import { linkUserToVendor } from '../../src/core/customers/customer-store';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, transact } from '../../src/core/engine';
import { CLI_STARTER, type ImportJob, ImportJobs, importFromCommandLine, importJobSettings, ImportRunStopped, MEMBER_LEFT } from '../../src/core/import/import-jobs';
import { IMPORT_BATCH_ROWS } from '../../src/core/import/import-members';
import { readMemberFile } from '../../src/core/import/member-file';
import { addOwner } from '../../src/core/staff/add-owner';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// A back-office import already running holds its file's rows in memory. A person in that file who
// is erased (or leaves the program) while it runs must not come back from it: the job's next batch
// finds its file dropped by the departure and stops there (docs/decisions.md, nineteenth round).
// The departure is staged between two batches of the real job (importJobSettings.betweenBatches),
// on an SQLite file and on PostgreSQL.

const open: Array<{ engine: Engine; close(): Promise<unknown> }> = [];
afterEach(async () => {
  importJobSettings.betweenBatches = null;
  for (const handle of open.splice(0).reverse()) await handle.close();
});

describe.each(BACKENDS)('a departure during a running import ($name)', (backend) => {
  async function program(tag: string) {
    const opened = await openEngine(backend, new ManualClock());
    open.push(opened);
    const { engine } = opened;
    const vendor = await setUpVendor(engine, testVendor(`Café ${tag}`));
    const { staff } = await addOwner(engine, { vendorId: vendor.vendorId, email: `owner.${tag}@during.test` });
    const owner: StaffPrincipal = { sessionId: 0, staffId: staff.id, vendorId: vendor.vendorId, email: staff.email, name: staff.name, role: 'owner', storeId: null };
    const jobs = new ImportJobs(engine);
    open.push({ engine, close: () => jobs.stop() });
    return { engine, vendorId: vendor.vendorId, owner, jobs };
  }

  /** A file whose first batch is newcomers and whose second holds `email` among more newcomers. */
  function fileNaming(email: string, tag: string): string {
    const newcomers = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `New${from + i},new${from + i}.${tag}@during.test`);
    return ['first_name,email', ...newcomers(0, IMPORT_BATCH_ROWS + 20), `Ana,${email}`, ...newcomers(IMPORT_BATCH_ROWS + 20, IMPORT_BATCH_ROWS + 40)].join('\n');
  }

  async function untilDone(jobs: ImportJobs, owner: StaffPrincipal, started: ImportJob): Promise<ImportJob> {
    for (let i = 0; i < 1000; i += 1) {
      const job = await jobs.get(owner.vendorId, started.id);
      if (job.status !== 'running') return job;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the job never ended');
  }

  /** Previews the file, then confirms it with `meanwhile` run once after the import's first batch. */
  async function importWith(jobs: ImportJobs, owner: StaffPrincipal, text: string, meanwhile: () => Promise<unknown>): Promise<{ job: ImportJob; firstBatch: number }> {
    const preview = await untilDone(jobs, owner, await jobs.preview(owner, { fileName: 'members.csv', file: readMemberFile(text) }));
    expect(preview.report).toMatchObject({ imported: IMPORT_BATCH_ROWS + 40, alreadyMembers: 1 });
    let firstBatch = -1;
    importJobSettings.betweenBatches = async (job, done) => {
      if (job.dryRun || firstBatch !== -1) return;
      firstBatch = done;
      await meanwhile();
    };
    const job = await untilDone(jobs, owner, await jobs.confirm(owner, preview.id));
    expect(firstBatch).toBeGreaterThan(0);
    return { job, firstBatch };
  }

  const membersOf = async (engine: Engine, vendorId: number) =>
    Number((await engine.db.selectFrom('user_vendors').select((eb) => eb.fn.countAll().as('n')).where('vendor_id', '=', vendorId).where('removed_at', 'is', null).executeTakeFirstOrThrow()).n);
  const accountsWith = async (engine: Engine, email: string) => engine.db.selectFrom('users').select(['id', 'status']).where('email_key', '=', emailKey(email)).execute();

  it('a person erased between two batches is not brought back as a new member: the job stops, its first batch kept', async () => {
    const { engine, vendorId, owner, jobs } = await program('Borrado');
    const email = 'ana.erased@during.test';
    const { user: ana } = await registerCustomer(engine, { vendorId, firstName: 'Ana', lastName: 'Borrada', email, password: 'correct horse 1', terms: true });

    const { job, firstBatch } = await importWith(jobs, owner, fileNaming(email, 'e'), () => removeMemberOnRequest(engine, owner, ana.id, { reason: 'asked by phone', forfeitBalances: true }));

    expect(await accountsWith(engine, email)).toEqual([]);
    expect([job.status, job.error]).toEqual(['failed', MEMBER_LEFT]);
    expect(await membersOf(engine, vendorId)).toBe(firstBatch);
    const kept = await engine.db.selectFrom('import_jobs').select('file').where('vendor_id', '=', vendorId).execute();
    expect(kept.filter((row) => row.file.includes(email))).toEqual([]);
  }, 60_000);

  it('a member who leaves this program (and stays in another) between two batches is not made a member again: the job stops', async () => {
    const { engine, vendorId, owner, jobs } = await program('Salida');
    const other = await setUpVendor(engine, testVendor('Café Otro'));
    const email = 'bruno.leaves@during.test';
    const { user: bruno } = await registerCustomer(engine, { vendorId, firstName: 'Bruno', lastName: 'Sale', email, password: 'correct horse 1', terms: true });
    await transact(engine, (trx) => linkUserToVendor(trx, engine, { userId: bruno.id, vendorId: other.vendorId }));

    const { job, firstBatch } = await importWith(jobs, owner, fileNaming(email, 'l'), () => removeMemberOnRequest(engine, owner, bruno.id, { reason: 'asked by email', forfeitBalances: true }));

    expect([job.status, job.error]).toEqual(['failed', MEMBER_LEFT]);
    expect(await accountsWith(engine, email)).toEqual([{ id: bruno.id, status: expect.any(String) }]);
    const membership = await engine.db.selectFrom('user_vendors').select('id').where('user_id', '=', bruno.id).where('vendor_id', '=', vendorId).where('removed_at', 'is', null).execute();
    expect(membership).toEqual([]);
    expect(await membersOf(engine, vendorId)).toBe(firstBatch);
  }, 60_000);

  it('a job another process took for stopped between two batches writes no further batch', async () => {
    const { engine, vendorId, owner, jobs } = await program('Tomado');
    const email = 'ana.taken@during.test';
    await registerCustomer(engine, { vendorId, firstName: 'Ana', lastName: 'Tomada', email, password: 'correct horse 1', terms: true });
    const failed = JSON.stringify({ code: 'node_stopped', message: 'taken for stopped' });
    const { firstBatch } = await importWith(jobs, owner, fileNaming(email, 't'), () =>
      // What another process's sweep writes once this one's heartbeat looked stale (import-jobs.ts).
      engine.db.updateTable('import_jobs').set({ status: 'failed', error: failed }).where('vendor_id', '=', vendorId).where('status', '=', 'running').execute(),
    );
    expect(await membersOf(engine, vendorId)).toBe(firstBatch + 1);
  }, 60_000);

  it('a command-line run (importFromCommandLine: its rows a kept file while it runs) stops when a person in it is erased between two batches', async () => {
    const { engine, vendorId, owner } = await program('Consola');
    const email = 'ana.cli@during.test';
    const { user: ana } = await registerCustomer(engine, { vendorId, firstName: 'Ana', lastName: 'Consola', email, password: 'correct horse 1', terms: true });
    let firstBatch = -1;
    importJobSettings.betweenBatches = async (_job, done) => {
      if (firstBatch !== -1) return;
      firstBatch = done;
      await removeMemberOnRequest(engine, owner, ana.id, { reason: 'asked by phone', forfeitBalances: true });
    };
    // What `punchcard import customers` runs (a process of its own on the same database).
    const run = importFromCommandLine(engine, { vendorId, fileName: 'members.csv', file: readMemberFile(fileNaming(email, 'c')), pointsCurrency: undefined });
    const stopped = await run.then(() => null, (error: unknown) => error);

    expect(await accountsWith(engine, email)).toEqual([]);
    expect(stopped).toBeInstanceOf(ImportRunStopped);
    expect(stopped).toMatchObject({ failure: MEMBER_LEFT, done: firstBatch, rows: IMPORT_BATCH_ROWS + 41 });
    expect(await membersOf(engine, vendorId)).toBe(firstBatch);
    const [job] = await new ImportJobs(engine).list(vendorId);
    expect([job?.staffEmail, job?.status, job?.error]).toEqual([CLI_STARTER, 'failed', MEMBER_LEFT]);
    const kept = await engine.db.selectFrom('import_jobs').select('file').where('vendor_id', '=', vendorId).execute();
    expect(kept.filter((row) => row.file.includes(email))).toEqual([]);
  }, 60_000);

  it('an import nobody leaves during runs to its end (the check costs it nothing else)', async () => {
    const { engine, vendorId, owner, jobs } = await program('Entero');
    const email = 'ana.stays@during.test';
    await registerCustomer(engine, { vendorId, firstName: 'Ana', lastName: 'Queda', email, password: 'correct horse 1', terms: true });
    const { job } = await importWith(jobs, owner, fileNaming(email, 's'), async () => undefined);
    expect(job.status).toBe('finished');
    expect(job.report).toMatchObject({ imported: IMPORT_BATCH_ROWS + 40, alreadyMembers: 1 });
    expect(await membersOf(engine, vendorId)).toBe(IMPORT_BATCH_ROWS + 41);
  }, 60_000);
});
