// A process that starts building a new database (test/storage/fresh-database-built-aside) and
// stops half-way: its twentieth migration says "midway" and waits, to be killed with SIGKILL there.
import { migrateToLatest, openSqlite } from '../../src/core/storage/database';
import { migrations } from '../../src/core/storage/migrations/index';

migrations['0020-snapshot'] = {
  up: async () => {
    console.log('midway');
    await new Promise(() => setInterval(() => {}, 1000));
  },
};
const database = openSqlite(process.argv[2]!);
await migrateToLatest(database.db);
