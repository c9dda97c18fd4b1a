import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from './dialect';

// A name as the back office's search compares it: lowercased, with the accents of the letters
// Spanish, Portuguese, French and German names carry taken off (Ángela Núñez → angela nunez), so
// whoever types "nunez" finds Núñez; also the final sigma (ς as σ: "ΚΩΣΤΑΣ" and "Κωστας" alike)
// and the Turkish dotless ı. One table serves JavaScript (the typed text) and SQL (the indexes of
// migration 0036 and the search), so every node finds the same customers. Changing it changes what
// those indexes hold: it needs a migration that builds them again.
const ACCENTED = 'áàâãäåéèêëíìîïóòôõöúùûüñçýÿςı';
const PLAIN = 'aaaaaaeeeeiiiiooooouuuuncyyσi';

/** [accented, plain] letter by letter. */
const PLAIN_LETTERS = [...PLAIN];
const PAIRS = [...ACCENTED].map((letter, i) => [letter, PLAIN_LETTERS[i]!] as const);
const PLAIN_OF = new Map(PAIRS);

/**
 * Lowercase as PostgreSQL's lower() does, letter by letter: JavaScript's toLowerCase of a whole
 * string writes a word-final Σ as ς and İ as i + a combining dot; PostgreSQL writes σ and i. The
 * node's SQLite connections lower with it too (storage/database.ts).
 */
export function lowerAsPostgres(text: string): string {
  let lowered = '';
  for (const letter of text) lowered += letter === 'İ' ? 'i' : letter.toLowerCase();
  return lowered;
}

/** The typed text as the folded-name indexes hold names (composed first: names are stored so, cleanName). */
export function foldName(text: string): string {
  let folded = '';
  for (const letter of lowerAsPostgres(text.normalize('NFC'))) folded += PLAIN_OF.get(letter) ?? letter;
  return folded;
}

// Capitals too, after lower(): a connection with SQLite's own lower(), which leaves Á as it is (the
// sqlite3 shell; the node's own connections lower every letter), still folds these letters alike.
const SQL_PAIRS = [...PAIRS, ...PAIRS.map(([letter, plain]) => [letter.toUpperCase(), plain] as const)];
if (SQL_PAIRS.some(([letter]) => [...letter].length !== 1)) throw new Error('the fold table pairs one letter with one letter');

const foldedSql = new Map<string, RawBuilder<string>>();

/**
 * SQL folding `column` as foldName does (built once per dialect and column). Constants are written
 * out, not bound: an index on an expression serves only a query that writes the same expression.
 * SQLite has no translate(): a replace() per letter, only for a name with a letter beyond ASCII (the
 * chain costs ~7 µs a customer written, the check ~1).
 */
export function foldedNameSql(dialect: Dialect, column: string): RawBuilder<string> {
  const key = `${dialect} ${column}`;
  let folded = foldedSql.get(key);
  if (!folded) {
    if (!/^[a-z_.]+$/.test(column)) throw new Error(`not a column: ${column}`);
    folded = sql.raw(dialect === 'postgres' ? postgresFold(column) : sqliteFold(column));
    foldedSql.set(key, folded);
  }
  return folded;
}

function postgresFold(column: string): string {
  const from = SQL_PAIRS.map(([letter]) => letter).join('');
  const to = SQL_PAIRS.map(([, plain]) => plain).join('');
  return `translate(lower(${column}), '${from}', '${to}')`;
}

function sqliteFold(column: string): string {
  const replaced = SQL_PAIRS.reduce((expression, [letter, plain]) => `replace(${expression}, '${letter}', '${plain}')`, `lower(${column})`);
  return `(case when ${column} glob '*[^ -~]*' then ${replaced} else lower(${column}) end)`;
}
