import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { type ImportJob, ImportJobs } from '../../core/import/import-jobs';
import { importReportToWire } from './import-report-wire';
import { memberFileText, readMemberFile } from '../../core/import/member-file';
import { problemRowsCsv, problemRowsFileName } from '../../core/import/problem-rows-csv';
import { ServiceError } from '../../shared/errors';
import { IMPORT_FILE_MAX_BYTES, ImportIdParams, ImportJobListSchema, ImportJobSchema, ImportProblemsQuery, ImportUploadBody } from '../../shared/schemas/backoffice-import';
import { toIso } from '../../shared/time';
import { requireStaff, staffOf } from '../auth/staff';

const tags = ['Back office'];
const config = { style: 'resource' as const };

/** The file arrives as base64 in JSON: 8 MB of file is about 10.7 MB of body; whole MiB, as the docs state limits. */
const BODY_LIMIT = 12 * 1024 * 1024;

/**
 * Importing members from another system in the back office (owners only): `punchcard import
 * customers` as jobs the screen follows (core/import/import-jobs.ts). Upload starts the dry run
 * (the preview); confirming it starts the import of the same file; each job's status and report
 * is read by polling, and its refused rows come back as a CSV to fix and upload again.
 */
export const backOfficeImportRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const owners = requireStaff(engine, 'customers.import');
  const jobs = new ImportJobs(engine);
  app.addHook('onClose', () => jobs.stop());

  app.post(
    '/backoffice/imports/customers',
    { config, preValidation: owners, bodyLimit: BODY_LIMIT, schema: { tags, body: ImportUploadBody, response: { 202: ImportJobSchema } } },
    async (request, reply) => {
      const { file_name, content_base64, points_currency } = request.body;
      const file = readMemberFile(memberFileText(base64Bytes(content_base64)));
      const job = await jobs.preview(staffOf(request), { fileName: file_name, file, pointsCurrency: points_currency });
      return reply.code(202).send(jobToWire(job));
    },
  );

  app.post('/backoffice/imports/customers/:id/confirm', { config, preValidation: owners, schema: { tags, params: ImportIdParams, response: { 202: ImportJobSchema } } }, async (request, reply) => {
    const job = await jobs.confirm(staffOf(request), request.params.id);
    return reply.code(202).send(jobToWire(job));
  });

  app.get('/backoffice/imports/customers', { config, preValidation: owners, schema: { tags, response: { 200: ImportJobListSchema } } }, async (request) => ({
    items: (await jobs.list(staffOf(request).vendorId)).map((job) => ({ ...jobToWire(job), report: null })),
  }));

  app.get('/backoffice/imports/customers/:id', { config, preValidation: owners, schema: { tags, params: ImportIdParams, response: { 200: ImportJobSchema } } }, async (request) =>
    jobToWire(await jobs.get(staffOf(request).vendorId, request.params.id)),
  );

  // The refused rows as a file to fix and upload again (problem-rows-csv.ts).
  app.get(
    '/backoffice/imports/customers/:id/problems.csv',
    {
      config,
      preValidation: owners,
      schema: { tags, params: ImportIdParams, querystring: ImportProblemsQuery, response: { 200: { description: 'text/csv', content: { 'text/csv': { schema: { type: 'string' } } } } } },
    },
    async (request, reply) => {
      const vendorId = staffOf(request).vendorId;
      const job = await jobs.get(vendorId, request.params.id);
      if (job.status === 'running') throw new ServiceError('import_in_progress');
      if (!job.report) throw new ServiceError('import_not_found', 'This import failed before its report: it has no problem rows to give.');
      const file = await jobs.file(vendorId, job.id);
      return reply
        .type('text/csv; charset=utf-8; header=present')
        .header('content-disposition', `attachment; filename="${problemRowsFileName(job.fileName)}"`)
        .send(problemRowsCsv(file, job.report, request.query.language ?? 'en'));
    },
  );
};

/** The upload's bytes: base64 only (a file over the limit is said so, before it is read). */
function base64Bytes(content: string): Uint8Array {
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new ServiceError('validation_failed', 'content_base64 is not base64: send the file’s bytes in base64.', 'content_base64');
  if (Math.floor((compact.length * 3) / 4) > IMPORT_FILE_MAX_BYTES + 2) throw new ServiceError('import_file_too_large');
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > IMPORT_FILE_MAX_BYTES) throw new ServiceError('import_file_too_large');
  return bytes;
}

function jobToWire(job: ImportJob) {
  return {
    id: job.id,
    file_name: job.fileName,
    dry_run: job.dryRun,
    status: job.status,
    rows: job.rows,
    done: job.done,
    ignored_columns: job.ignoredColumns,
    staff_email: job.staffEmail,
    date_created: toIso(job.createdAt),
    date_finished: job.finishedAt === null ? null : toIso(job.finishedAt),
    confirmed_as: job.confirmedAs,
    preview_id: job.previewId,
    report: job.report && importReportToWire(job.report),
    error: job.error,
  };
}

