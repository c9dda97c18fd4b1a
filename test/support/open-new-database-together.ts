// One of several processes that open the same not-yet-existing database at once
// (test/storage/fresh-database-built-aside-processes): it waits for the go file, opens and migrates
// the database through the project's opener, writes a row of its own, and says how its link went.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const [file, goFile] = process.argv.slice(2) as [string, string];

// Watches (does not change) the hard link that moves a finished build into place: 'won' if it
// made the name, 'lost' if another process's file was there first, 'none' if it never built.
let link: 'won' | 'lost' | 'none' = 'none';
const linkSync = fs.linkSync;
fs.linkSync = (existing, made) => {
  try {
    linkSync(existing, made);
    link = 'won';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') link = 'lost';
    throw error;
  }
};
syncBuiltinESMExports();

const { migrateToLatest, openSqlite } = await import('../../src/core/storage/database');
console.log('ready');
while (!fs.existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 1));

const database = openSqlite(file);
await migrateToLatest(database.db);
await database.db.insertInto('node_meta').values({ key: `writer-${process.pid}`, value: 'written' }).execute();
await database.close();
console.log(JSON.stringify({ link, ino: fs.statSync(file).ino }));
