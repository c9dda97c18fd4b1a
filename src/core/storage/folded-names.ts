import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from './dialect';

// A name as the back office's search compares it: lowercased, with the accents of the letters
// Spanish, Portuguese, French and German names carry taken off (Ángela Núñez → angela nunez), so
// whoever types "nunez" finds Núñez. One table serves JavaScript (the typed text) and SQL (the
// indexes of migration 0036 and the search), so every node finds the same customers. Changing it
// changes what those indexes hold: it needs a migration that builds them again.
const ACCENTED = 'áàâãäåéèêëíìîïóòôõöúùûüñçýÿ';
const PLAIN = 'aaaaaaeeeeiiiiooooouuuuncyy';

const PLAIN_OF = new Map([...ACCENTED].map((letter, i) => [letter, PLAIN[i]!]));

/** The typed text as the folded-name indexes hold names. */
export function foldName(text: string): string {
  let folded = '';
  for (const letter of text.toLowerCase()) folded += PLAIN_OF.get(letter) ?? letter;
  return folded;
}

// Capitals too, after lower(): a connection with SQLite's own lower(), which leaves Á as it is (the
// sqlite3 shell; the node's own connections lower every letter), still folds these letters alike.
const FROM = ACCENTED + ACCENTED.toUpperCase();
const TO = PLAIN + PLAIN;

/**
 * SQL folding `column` as foldName does. Constants are written out, not bound: an index on an
 * expression serves only a query that writes the same expression. SQLite has no translate(): a
 * replace() per letter, only for a name with a letter beyond ASCII (the chain costs ~7 µs a
 * customer written, the check ~1).
 */
export function foldedNameSql(dialect: Dialect, column: string): RawBuilder<string> {
  if (!/^[a-z_.]+$/.test(column)) throw new Error(`not a column: ${column}`);
  if (dialect === 'postgres') return sql.raw(`translate(lower(${column}), '${FROM}', '${TO}')`);
  let replaced = `lower(${column})`;
  [...FROM].forEach((letter, i) => (replaced = `replace(${replaced}, '${letter}', '${TO[i]}')`));
  return sql.raw(`(case when ${column} glob '*[^ -~]*' then ${replaced} else lower(${column}) end)`);
}
