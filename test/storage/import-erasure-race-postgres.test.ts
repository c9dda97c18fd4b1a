import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeMemberOnRequest } from '../../src/core/customer-care/remove-member';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { type Engine, startEngine } from '../../src/core/engine';
import { type ImportJob, ImportJobs } from '../../src/core/import/import-jobs';
import { readMemberFile } from '../../src/core/import/member-file';
import { addOwner } from '../../src/core/staff/add-owner';
import { type Database, fromKysely } from '../../src/core/storage/database';
import type { DB } from '../../src/core/storage/schema';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { waitForLockWaits } from '../support/pg-lock-waits';

// A person's erasure (staff removing them at their request) racing the confirmation of a preview
// that names them, on PostgreSQL (READ COMMITTED): after both commit, no kept import file names the
// person (docs/decisions.md, eighteenth round). Each order is staged with a row lock held from
// outside, released once both requests wait. The node as it runs takes its write lock in every
// transaction (storage/write-lock.ts), which already orders the two; the same race on a connection
// without it proves the import's own lock (lockImportFiles) is what keeps the erased out.

/** The node as it runs (its write lock in every transaction), and a connection without that lock. */
const ENGINES = [
  { name: 'the node as it runs', writeLock: true },
  { name: 'without the node’s write lock', writeLock: false },
] as const;

interface Node {
  database: Awaited<ReturnType<typeof openTestPostgres>>;
  engine: Engine;
  jobs: ImportJobs;
}

describe.skipIf(!process.env.PG_URL)('an erasure racing an import’s confirmation on PostgreSQL (PG_URL)', () => {
  const nodes = new Map<boolean, Node>();
  const clock = new ManualClock();
  const clients: pg.Client[] = [];

  async function connect(node: Node): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: node.database.url });
    await client.connect();
    clients.push(client);
    return client;
  }


  beforeAll(async () => {
    for (const { writeLock } of ENGINES) {
      const database = await openTestPostgres();
      const plain = (): Database => fromKysely(new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 4 }) }) }));
      const engine = await startEngine({ database: writeLock ? database.database : plain(), nodeKey: randomBytes(32), clock, role: 'central' });
      nodes.set(writeLock, { database, engine, jobs: new ImportJobs(engine) });
    }
  });

  afterAll(async () => {
    for (const client of clients) await client.end();
    for (const node of nodes.values()) {
      await node.jobs.stop();
      await node.engine.close();
      await node.database.drop();
    }
  });

  /** A program, its owner, a member (Ana) and a finished preview naming her: her row refused (a bad birthday), so every copy keeps it. */
  async function previewNamingAna({ engine, jobs }: Node, tag: string) {
    const vendor = await setUpVendor(engine, { name: `Race ${tag}`, currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
    const { staff } = await addOwner(engine, { vendorId: vendor.vendorId, email: `owner.${tag}@race.test` });
    const owner: StaffPrincipal = { sessionId: 0, staffId: staff.id, vendorId: vendor.vendorId, email: staff.email, name: staff.name, role: 'owner', storeId: null };
    const email = `ana.${tag}@race.test`;
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Ana', lastName: 'Race', email, password: 'correct horse 1', terms: true });
    const file = readMemberFile(`first_name,email,birthdate\nAna,${email},soon\nBob,bob.${tag}@race.test,\n`);
    const preview = await untilDone(jobs, owner, await jobs.preview(owner, { fileName: 'members.csv', file }));
    expect(preview.report?.refusedByReason).toEqual({ invalid_birthdate: 1 });
    return { owner, anaId: user.id, email, previewId: preview.id };
  }

  async function untilDone(jobs: ImportJobs, owner: StaffPrincipal, started: ImportJob): Promise<ImportJob> {
    for (let i = 0; i < 500; i += 1) {
      const job = await jobs.get(owner.vendorId, started.id);
      if (job.status !== 'running') return job;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the job never ended');
  }

  /** The program's kept import files that still carry the email. */
  async function filesNaming({ engine }: Node, vendorId: number, email: string): Promise<string[]> {
    const rows = await engine.db.selectFrom('import_jobs').select(['id', 'file']).where('vendor_id', '=', vendorId).execute();
    return rows.filter((row) => row.file.includes(email)).map((row) => row.id);
  }

  const remove = ({ engine }: Node, owner: StaffPrincipal, anaId: number) => removeMemberOnRequest(engine, owner, anaId, { reason: 'asked by phone', forfeitBalances: true });
  const outcome = (result: PromiseSettledResult<unknown>) => (result.status === 'fulfilled' ? 'ok' : isServiceError(result.reason) ? result.reason.code : `raw: ${String(result.reason)}`);

  it.each(ENGINES)('the confirmation first (its new job written, not committed), the erasure after: the new job’s copy goes too ($name)', async ({ writeLock }) => {
    const node = nodes.get(writeLock)!;
    const { owner, anaId, email, previewId } = await previewNamingAna(node, `confirm-first-${writeLock}`);
    // The confirmation writes its job, then waits for the preview's row, held here.
    const holder = await connect(node);
    await holder.query('begin');
    await holder.query('select id from import_jobs where id = $1 for update', [previewId]);
    const confirming = node.jobs.confirm(owner, previewId);
    const observer = await connect(node);
    await waitForLockWaits(observer, 1);
    const removing = remove(node, owner, anaId);
    await waitForLockWaits(observer, 2);
    await holder.query('commit');
    const [confirmed, removed] = await Promise.allSettled([confirming, removing]);
    expect([outcome(confirmed), outcome(removed)]).toEqual(['ok', 'ok']);
    const job = await untilDone(node.jobs, owner, (confirmed as PromiseFulfilledResult<ImportJob>).value);
    // Its copy dropped before its first batch: the import stops there rather than run a file naming
    // someone erased (nineteenth round, MEMBER_LEFT); it imported nothing.
    expect([job.status, job.error?.code]).toEqual(['failed', 'member_left']);
    expect(await filesNaming(node, owner.vendorId, email)).toEqual([]);
  });

  // Without the write lock the confirmation does not wait for an erasure that has not reached the files yet: this order is the node's own.
  it('the erasure first (its transaction open), the confirmation after: it finds the preview dropped (409 import_file_expired)', async () => {
    const node = nodes.get(true)!;
    const { owner, anaId, email, previewId } = await previewNamingAna(node, 'erasure-first');
    // The erasure waits for Ana's membership, held here.
    const holder = await connect(node);
    await holder.query('begin');
    await holder.query('select id from user_vendors where user_id = $1 for update', [anaId]);
    const removing = remove(node, owner, anaId);
    const observer = await connect(node);
    await waitForLockWaits(observer, 1);
    const confirming = node.jobs.confirm(owner, previewId);
    await waitForLockWaits(observer, 2);
    await holder.query('commit');
    const [removed, confirmed] = await Promise.allSettled([removing, confirming]);
    expect([outcome(removed), outcome(confirmed)]).toEqual(['ok', 'import_file_expired']);
    expect(await filesNaming(node, owner.vendorId, email)).toEqual([]);
  });
});
