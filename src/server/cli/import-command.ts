import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { importFromCommandLine, ImportRunStopped } from '../../core/import/import-jobs';
import { type ImportReport, importMembers } from '../../core/import/import-members';
import { memberFileText, readMemberFile } from '../../core/import/member-file';
import { toMajorUnits } from '../../shared/money';
import { SettingError } from '../node/setting-error';
import { importReportToWire } from '../routes/import-report-wire';
import { DATA_FOLDER_HELP, openFolderEngine } from './folder-checks';
import { parseVendorId } from './store-command';
import { vendorOfNode } from './stores-command';

interface ImportOptions {
  data: string;
  file: string;
  vendor?: number;
  pointsCurrency?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** A run stopped before its end (a person in the file left the program meanwhile): not a bad file (1). */
export const STOPPED_EXIT_CODE = 3;

/** Rows listed in the text summary; --json lists every one. */
const LISTED_ROWS = 20;

/**
 * `punchcard import customers`: a merchant's members from their old loyalty system (a CSV export)
 * into the program, on opening day. The use case is core/import; this reads the file, prints.
 */
export function registerImportCommand(program: Command): void {
  const imports = program.command('import').description('Bring data from another system into a program.');
  imports
    .command('customers')
    .description("Import members from the old loyalty system's CSV export: each row a customer with a membership, their card linked, their points and quick-pay balances as opening entries. Rows whose email, phone or card is a member's already are skipped, so a second run adds nothing.")
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .requiredOption('--file <csv>', 'the members file: a header, then one member a line (columns: first_name, last_name or name, email, phone, card, points, quick_pay, birthdate, marketing, sms_marketing, language, points_expire_on; points:<name> and points_expire_on:<name> for each other loyalty currency)')
    .option('--vendor <id>', 'vendor id (default: the only one)', parseVendorId)
    .option('--points-currency <id|name>', 'the loyalty currency of the points column (default: the program’s only one)')
    .option('--dry-run', 'check every row as the import would, and write nothing')
    .option('--json', 'print {"imported", "already_members", "refused", "refused_by_reason", "problems": […], …}')
    .action(async (options: ImportOptions) => {
      const file = readMemberFile(memberFileText(readFile(options.file)));
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const vendorId = await vendorOfNode(engine, options.vendor);
        const started = performance.now();
        const progress = process.stderr.isTTY && !options.json;
        const onProgress = progress ? (done: number, total: number) => process.stderr.write(`\r${done.toLocaleString('en')} of ${total.toLocaleString('en')} rows`) : undefined;
        const fileName = basename(options.file);
        let report: ImportReport;
        try {
          // A dry run writes nothing, so nobody it names can come back: no job. A real run is one
          // (its rows kept while it runs), so an erasure meanwhile stops it (importFromCommandLine).
          report = options.dryRun
            ? await importMembers(engine, { vendorId, fileName, records: file.records, decimalMark: file.decimalMark, dryRun: true, pointsCurrency: options.pointsCurrency, onProgress })
            : await importFromCommandLine(engine, { vendorId, fileName, file, pointsCurrency: options.pointsCurrency, onProgress });
        } catch (error) {
          if (!(error instanceof ImportRunStopped)) throw error;
          if (progress) process.stderr.write('\n');
          console.error(`punchcard: the import stopped (${error.failure.code}) after ${error.done.toLocaleString('en')} of ${error.rows.toLocaleString('en')} rows (the members written by then stay). ${stoppedAdvice(error.failure.code)}`);
          process.exitCode = STOPPED_EXIT_CODE;
          return;
        }
        if (progress) process.stderr.write('\n');
        const seconds = Math.round((performance.now() - started) / 100) / 10;
        const ignoredColumns = [...file.ignoredColumns, ...report.columnsNotRead];
        if (options.json) process.stdout.write(`${JSON.stringify(reportWire(report, { vendorId, file: options.file, ignoredColumns, seconds }))}\n`);
        else process.stdout.write(reportText(report, { file: options.file, ignoredColumns, seconds }));
      } finally {
        await engine.close();
      }
    });
}

/** What the operator does next: the screen's words are for uploading; these are for running the command. */
function stoppedAdvice(code: string): string {
  if (code === 'member_left') return 'A member in this file left the program or asked to be erased while it ran: take them out of the file before running it again, or they come back.';
  return 'Run the same file again to complete it: the members imported so far are skipped then.';
}

function readFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SettingError(`--file ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : (error as Error).message}.`);
  }
}

function reportWire(report: ImportReport, run: { vendorId: number; file: string; ignoredColumns: string[]; seconds: number }) {
  return {
    dry_run: report.dryRun,
    file: run.file,
    vendor_id: run.vendorId,
    rows: report.rows,
    ...importReportToWire(report),
    ignored_columns: run.ignoredColumns,
    seconds: run.seconds,
  };
}

/** "120 points", or each loyalty currency's where the file brings several ("120 Points, 7 Stamps"). */
function openingPoints(report: ImportReport): string {
  const n = (value: number) => value.toLocaleString('en');
  return report.pointsByCurrency.length > 1 ? report.pointsByCurrency.map((c) => `${n(c.points)} ${c.name}`).join(', ') : `${n(report.points)} points`;
}

function reportText(report: ImportReport, run: { file: string; ignoredColumns: string[]; seconds: number }): string {
  const n = (value: number) => value.toLocaleString('en');
  const money = report.quickPayCurrency;
  const quickPay = money ? `${toMajorUnits(report.quickPay, money.digits).toLocaleString('en', { minimumFractionDigits: money.digits, maximumFractionDigits: money.digits })} ${money.code}` : '0';
  const lines = [
    `${run.file}: ${n(report.rows)} rows in ${run.seconds} s${report.dryRun ? ' (dry run: nothing was written)' : ''}`,
    `  ${(report.dryRun ? 'would import' : 'imported').padEnd(16)} ${n(report.imported)} (opening balances: ${openingPoints(report)}, ${quickPay} quick pay)`,
    `  ${'already members'.padEnd(16)} ${n(report.alreadyMembers)} (skipped, left as they are)`,
    `  ${'refused'.padEnd(16)} ${n(report.refused)}`,
    ...Object.entries(report.refusedByReason)
      .sort((a, b) => b[1] - a[1])
      .map(([reason, count]) => `    ${reason.padEnd(22)} ${n(count)}`),
  ];
  if (run.ignoredColumns.length > 0) lines.push(`  columns not read: ${run.ignoredColumns.join(', ')}`);
  const refused = report.reported.filter((r) => r.outcome === 'refused');
  if (refused.length > 0) {
    lines.push('Refused rows (line: reason, why):');
    for (const row of refused.slice(0, LISTED_ROWS)) lines.push(`  line ${row.line}: ${row.reason}, ${row.message}`);
    if (refused.length > LISTED_ROWS) lines.push(`  … ${n(refused.length - LISTED_ROWS)} more: --json lists every row.`);
    if (!report.dryRun) lines.push('Fix them in the file and run the same command again: the members imported now are skipped then.');
  }
  return `${lines.join('\n')}\n`;
}
