import { csvField } from '../../shared/csv-field';
import { importReasonWords, type ImportLanguage } from '../../shared/import-reason-words';
import type { ImportReport } from './import-members';
import { currencyHeaders } from './currency-columns';
import { MEMBER_COLUMNS, type MemberFile } from './member-file';

// The refused rows of an import handed back as a file to fix and upload again: the columns the
// import read (its per-currency ones among them), as the merchant's file had them (same separator, so "12,50" stays a comma amount in
// a file of semicolons), then where each row was and why. The three last columns are not read on
// the next upload (the preview says so). UTF-8 with a byte-order mark, as the period statement's
// file: Excel reads one without it in the computer's legacy code page.

const PROBLEM_COLUMNS = ['problem_line', 'problem_reason', 'problem'] as const;

export function problemRowsCsv(file: MemberFile, report: ImportReport, language: ImportLanguage): string {
  const separator = file.decimalMark === ',' ? ';' : ',';
  const named = MEMBER_COLUMNS.filter((column) => file.records.some((record) => record.fields[column] !== undefined));
  const perCurrency = currencyHeaders(file.records);
  const byLine = new Map(file.records.map((record) => [record.line, record]));
  const cell = (value: string) => csvField(value, separator);
  const lines = [[...named, ...perCurrency, ...PROBLEM_COLUMNS].join(separator)];
  for (const row of report.reported) {
    if (row.outcome !== 'refused') continue;
    const record = byLine.get(row.line);
    const values = [...named.map((column) => record?.fields[column] ?? ''), ...perCurrency.map((column) => record?.byCurrency?.[column] ?? '')];
    lines.push([...values, String(row.line), row.reason, importReasonWords(row.reason, language, row.message)].map(cell).join(separator));
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

/** The file's name: the upload's, with `-problems` before its extension. */
export function problemRowsFileName(fileName: string): string {
  const base = fileName.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9._-]+/g, '_') || 'members';
  return `${base}-problems.csv`;
}
