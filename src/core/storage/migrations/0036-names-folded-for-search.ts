import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect';
import { foldedNameSql } from '../folded-names';

// The back office's name search compares names folded (lowercased, accents off: folded-names.ts)
// on both databases; it used lower(), which on SQLite folds ASCII letters only ("áng" found Ángela
// on central and nobody on a store) and nowhere takes accents off ("nunez" found no Núñez). The
// lowercased-name indexes of 0018 give way to indexes on the folded names.
export const namesFoldedForSearch: Migration = {
  async up(db: Kysely<unknown>) {
    const dialect = dialectOf(db);
    await sql`drop index if exists users_first_name_lower`.execute(db);
    await sql`drop index if exists users_last_name_lower`.execute(db);
    for (const column of ['first_name', 'last_name']) {
      await sql`create index ${sql.raw(`users_${column}_folded`)} on users ((${foldedNameSql(dialect, column)}))`.execute(db);
    }
  },
};
