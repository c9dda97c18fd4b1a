import { Type } from 'typebox';
import { Nullable } from './common';

// The back office's import of members from another system (sixteenth round): the owner uploads the
// CSV export, the node runs a dry run as a job, then, confirmed, the import itself; the screen polls.

/** The largest members file the back office takes (20,000 full rows are about 2 MB). */
export const IMPORT_FILE_MAX_BYTES = 8 * 1024 * 1024;

export const ImportUploadBody = Type.Object({
  file_name: Type.String({ minLength: 1, maxLength: 255, description: 'the file’s name, as the audit records say where the members came from' }),
  content_base64: Type.String({ description: 'the file’s bytes, base64: a CSV with a header (UTF-8; commas, or semicolons with a comma before decimals), as `punchcard import customers` reads it; at most 8 MB' }),
  points_currency: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the loyalty currency of the points column (public id or name); needed when the program has several' })),
});

export const ImportIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ImportProblemsQuery = Type.Object({
  language: Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('es')], { description: 'the language of the `problem` column (default en)' })),
});

const ReportedRowSchema = Type.Object({
  line: Type.Integer({ description: 'the file’s line the row starts on (the header is line 1)' }),
  outcome: Type.Union([Type.Literal('refused'), Type.Literal('skipped')]),
  reason: Type.String({ description: 'stable reason code (README, “Importing members”): no_contact, invalid_email, … or already_member' }),
  field: Nullable(Type.String()),
  message: Type.String({ description: 'the node’s words (English), with the row’s own values' }),
  customer_id: Type.Optional(Type.Integer({ description: 'skipped: the member the row found' })),
});

export const ImportReportSchema = Type.Object({
  imported: Type.Integer({ description: 'a dry run: would be imported' }),
  already_members: Type.Integer(),
  refused: Type.Integer(),
  refused_by_reason: Type.Record(Type.String(), Type.Integer()),
  points: Type.Integer({ description: 'opening points the imported rows brought, every loyalty currency added up' }),
  points_by_currency: Type.Array(
    Type.Object({ currency: Type.String({ description: 'the loyalty currency’s id (curr_…)' }), name: Type.String(), points: Type.Integer() }),
    { description: 'the opening points of each loyalty currency the file brings (the points column’s, and each read from its points:<name> column), in the program’s order' },
  ),
  quick_pay: Type.Integer({ description: 'opening quick pay, minor units' }),
  quick_pay_currency: Nullable(Type.String()),
  problems: Type.Array(ReportedRowSchema, { description: 'every row not imported, in file order' }),
});

export const ImportJobSchema = Type.Object({
  id: Type.String(),
  file_name: Type.String(),
  dry_run: Type.Boolean({ description: 'true: the preview (every row checked as for real, nothing kept)' }),
  status: Type.Union([Type.Literal('running'), Type.Literal('finished'), Type.Literal('failed')]),
  rows: Type.Integer({ description: 'rows in the file' }),
  done: Type.Integer({ description: 'rows done so far' }),
  ignored_columns: Type.Array(Type.String(), { description: 'header names the import does not read' }),
  staff_email: Type.String({ description: 'who started it' }),
  date_created: Type.String(),
  date_finished: Nullable(Type.String()),
  confirmed_as: Nullable(Type.String({ description: 'a preview: the id of the import confirmed from it' })),
  preview_id: Nullable(Type.String({ description: 'an import: the preview it was confirmed from' })),
  /** Once finished (null in the list: read one import for its report). A failed import's committed batches are in the audit log. */
  report: Nullable(ImportReportSchema),
  /** A failed job: why. */
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
});

/** The program's last imports (the running one and the last five finished), newest first, each without its report. */
export const ImportJobListSchema = Type.Object({ items: Type.Array(ImportJobSchema) });
