// A process whose last work is closing a database with background checkpoints (run by
// test/storage/background-checkpoints): it must end with code 0 once the close is done.
import { sql } from 'kysely';
import { openSqlite } from '../../src/core/storage/database';

const database = openSqlite(process.argv[2]!, { backgroundCheckpoints: true });
await database.db.transaction().execute((trx) => sql`create table written (id integer primary key)`.execute(trx));
await database.close();
console.log('closed');
