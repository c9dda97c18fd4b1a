import { ServiceError } from '../../shared/errors';
import type { DecimalMark } from './opening-amount';
import { unguardedField } from '../../shared/csv-field';

// The old system's export as the import reads it: a CSV file with a header row. Spreadsheets write
// it with commas, or with semicolons where the comma is the decimal mark (Spain, Latin America);
// fields may be quoted ("López, Ana"), quotes doubled inside them, and a quoted field may span
// lines. Each record keeps the line it starts on, which is what a merchant finds in their editor.

/** The columns the import reads, by the header's name (letter case and spaces ignored). */
export const MEMBER_COLUMNS = ['first_name', 'last_name', 'name', 'email', 'phone', 'card', 'points', 'quick_pay', 'birthdate', 'marketing', 'sms_marketing', 'language', 'points_expire_on'] as const;
export type MemberColumn = (typeof MEMBER_COLUMNS)[number];

/** Other names old systems (and Spanish spreadsheets) give those columns, read as the column. */
const COLUMN_ALIASES: Readonly<Record<string, MemberColumn>> = {
  birthday: 'birthdate',
  date_of_birth: 'birthdate',
  dob: 'birthdate',
  fecha_nacimiento: 'birthdate',
  fecha_de_nacimiento: 'birthdate',
  cumpleaños: 'birthdate',
  newsletter: 'marketing',
  consent: 'marketing',
  marketing_consent: 'marketing',
  email_marketing: 'marketing',
  email_consent: 'marketing',
  accepts_marketing: 'marketing',
  sms_consent: 'sms_marketing',
  idioma: 'language',
  lang: 'language',
  points_expiry_date: 'points_expire_on',
  vencimiento_puntos: 'points_expire_on',
};

/**
 * A column of one loyalty currency, as the members export writes them: `points:<name>` and
 * `points_expire_on:<name>` (`<name> (<public id>)` when two names read alike). Which currency it
 * is depends on the program (currency-columns.ts).
 */
const CURRENCY_COLUMN = /^(points|points_expire_on):(.+)$/;

/** A header name as the import compares it: letter case, spaces and hyphens ignored. */
export const columnKey = (name: string): string => name.trim().toLowerCase().replace(/[\s-]+/g, '_');

/** A per-currency column's kind and the currency it names (columnKey'd), or null for any other column. */
export function currencyColumnOf(key: string): { kind: 'points' | 'points_expire_on'; label: string } | null {
  const match = CURRENCY_COLUMN.exec(key);
  return match ? { kind: match[1] as 'points' | 'points_expire_on', label: match[2]! } : null;
}

export interface MemberRecord {
  /** The file's line the record starts on (the header is line 1). */
  line: number;
  /** The record's value of each column the header named ('' when the record is short). */
  fields: Partial<Record<MemberColumn, string>>;
  /** The record's value of each per-currency column (by its columnKey'd header); absent when the header has none. */
  byCurrency?: Record<string, string>;
}

export interface MemberFile {
  records: MemberRecord[];
  /** Header names the import does not read (kept out, and said in the summary); per-currency columns are the program's to read or not (currency-columns.ts). */
  ignoredColumns: string[];
  /** Before the decimals of its amounts: a comma in a file of semicolons (12,50), else a dot. */
  decimalMark: DecimalMark;
}

/** The export's bytes as text: UTF-8 only (a BOM is dropped); another encoding would turn "López" into mojibake in 20,000 names. */
export function memberFileText(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ServiceError('validation_failed', 'The file is not UTF-8 text: save it from the spreadsheet as "CSV UTF-8" and run the import again.', 'file');
  }
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/** Reads the header and the records; a header without email or phone is refused (every member needs one). */
export function readMemberFile(text: string): MemberFile {
  const delimiter = delimiterOf(text);
  const rows = csvRows(text, delimiter);
  const header = rows.shift();
  if (!header || header.cells.every((cell) => cell.trim() === '')) throw new ServiceError('validation_failed', 'The file is empty: its first line must name the columns (for example first_name,last_name,email,phone,card,points,quick_pay).', 'file');
  const headerNames = header.cells.map(columnKey);
  const names = headerNames.map((name) => COLUMN_ALIASES[name] ?? name);
  const known = new Set<string>(MEMBER_COLUMNS);
  const perCurrency = names.filter((name) => currencyColumnOf(name) !== null);
  const repeated = names.findIndex((name, i) => (known.has(name) || currencyColumnOf(name) !== null) && names.indexOf(name) !== i);
  if (repeated !== -1) {
    const twice = headerNames.filter((_, i) => names[i] === names[repeated]);
    const as = twice.every((name) => name === twice[0]) ? '' : ` (as ${twice.join(' and ')})`;
    throw new ServiceError('validation_failed', `The column ${names[repeated]} appears twice in the header${as}.`, 'file');
  }
  if (!names.includes('email') && !names.includes('phone')) {
    throw new ServiceError('validation_failed', `The header names no email or phone column (it has: ${headerNames.join(', ')}): the import reads ${MEMBER_COLUMNS.join(', ')}.`, 'file');
  }
  const records: MemberRecord[] = [];
  for (const row of rows) {
    if (row.cells.every((cell) => cell.trim() === '')) continue;
    const fields: Partial<Record<MemberColumn, string>> = {};
    names.forEach((name, i) => {
      // A value guarded against spreadsheets (our own exports and problem rows) read as it was.
      if (known.has(name)) fields[name as MemberColumn] = unguardedField((row.cells[i] ?? '').trim());
    });
    const byCurrency = Object.fromEntries(perCurrency.map((name) => [name, unguardedField((row.cells[names.indexOf(name)] ?? '').trim())]));
    records.push({ line: row.line, fields, ...(perCurrency.length > 0 ? { byCurrency } : {}) });
  }
  return { records, ignoredColumns: headerNames.filter((name, i) => !known.has(names[i]!) && currencyColumnOf(names[i]!) === null && name !== ''), decimalMark: delimiter === ';' ? ',' : '.' };
}

/** Semicolons when the header has them and no comma; commas otherwise. */
function delimiterOf(text: string): ',' | ';' {
  const end = text.search(/\r?\n/);
  const header = end === -1 ? text : text.slice(0, end);
  return header.includes(';') && !header.includes(',') ? ';' : ',';
}

/** RFC 4180 records with the line each starts on. */
function csvRows(text: string, delimiter: string): Array<{ line: number; cells: string[] }> {
  const rows: Array<{ line: number; cells: string[] }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let startLine = 1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line += 1;
        cell += c;
      }
    } else if (c === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (c === delimiter) {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      cells.push(cell);
      rows.push({ line: startLine, cells });
      cells = [];
      cell = '';
      line += 1;
      startLine = line;
    } else cell += c;
  }
  if (cell !== '' || cells.length > 0) {
    cells.push(cell);
    rows.push({ line: startLine, cells });
  }
  return rows;
}
