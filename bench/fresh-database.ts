// Times opening and migrating a new SQLite database (docs/decisions.md, twelfth round: a new
// database built aside). `npx tsx bench/fresh-database.ts <file> [in-place]`:
// with `in-place`, an empty file is made first, so it is migrated where it is (the way before).
import { closeSync, openSync } from 'node:fs';
import { migrateToLatest, openSqlite } from '../src/core/storage/database';

const [file, how] = process.argv.slice(2);
if (how === 'in-place') closeSync(openSync(file!, 'w', 0o600));
const started = performance.now();
const database = openSqlite(file!);
await migrateToLatest(database.db);
await database.close();
console.log(`${how ?? 'aside'}: ${(performance.now() - started).toFixed(0)} ms`);
