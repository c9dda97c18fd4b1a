import { type Kysely, type Migration, sql } from 'kysely';

// The back office's member imports as rows, not one process's memory: central may run as several
// processes on one database (README "Chain"), and the screen's poll, the confirmation or the file
// of problem rows may reach another process than the one that started the import. The running
// import per program is one row at most (the partial unique index), whichever process starts it.
// Node-local: never replicated (not in sync/replicated-tables.ts), and no hot path reads it.
export const importJobs: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('import_jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('vendor_id', 'bigint', (c) => c.notNull().references('vendors.id'))
      // The program's jobs in the order they started (a clock may give two the same millisecond).
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('staff_email', 'text', (c) => c.notNull())
      .addColumn('file_name', 'text', (c) => c.notNull())
      .addColumn('dry_run', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('rows', 'integer', (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addColumn('confirmed_as', 'text')
      .addColumn('preview_id', 'text')
      .addColumn('report', 'text')
      .addColumn('error', 'text')
      .addColumn('points_currency', 'text')
      .addColumn('ignored_columns', 'text', (c) => c.notNull())
      .addColumn('file', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('import_jobs_vendor').unique().on('import_jobs').columns(['vendor_id', 'seq']).execute();
    await db.schema.createIndex('import_jobs_running').unique().on('import_jobs').column('vendor_id').where(sql.ref('status'), '=', 'running').execute();
  },
};
