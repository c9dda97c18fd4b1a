import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { ServiceError } from '../../shared/errors';
import { openDatabaseUrl, migrateToLatest } from '../../core/storage/database';
import { summariseOutbox } from '../../core/sync/outbox/pending-events';
import { getMeta } from '../../core/storage/node-meta';
import { readRecordedLink } from '../../core/sync/store/sync-client';
import { dataDirAt, runningNodeOf } from '../node/data-dir';
import { readPairing } from '../sync/pairing-file';

const iso = (ms: string | number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** A folder with no pairing, in the fields of a paired one (link `none`, as GET /sync/status says). */
const NOT_PAIRED = {
  paired: false,
  central: null,
  node_id: null,
  store: null,
  store_name: null,
  link: 'none',
  pending: 0,
  oldest_pending_at: null,
  rejected: 0,
  last_push_at: null,
  last_pull_at: null,
  cursor: 0,
  first_sync: { done: false },
  last_error: null,
};

function printStatus(status: Record<string, unknown>, json: boolean | undefined): void {
  if (json) process.stdout.write(`${JSON.stringify(status)}\n`);
  else {
    for (const [key, value] of Object.entries(status)) process.stdout.write(`${key.padEnd(18)} ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}\n`);
  }
}

/** `punchcard sync status`: a store's sync state read from its data folder (works while the node runs). */
export function registerSyncCommand(program: Command): void {
  const sync = program.command('sync').description("A store node's sync with its central node.");
  sync
    .command('status')
    .description('Paired or not, link to central and its last error, pending events and the oldest, last push and pull, first-sync state.')
    .requiredOption('--data <dir>', 'data folder of the store node')
    .option('--json', 'print JSON')
    .action(async (options: { data: string; json?: boolean }) => {
      const dir = dataDirAt(options.data);
      const pairing = readPairing(dir);
      // Nothing syncs there (a central's folder, a standalone or unpaired node): the facts GET
      // /sync/status gives, and no database made.
      if (pairing === null) {
        printStatus(NOT_PAIRED, options.json);
        return;
      }
      if (!existsSync(dir.database)) throw new ServiceError('store_not_paired', `${dir.root} holds a pairing (central.json) but no database: nothing syncs there.`);
      const database = openDatabaseUrl(dir.database);
      try {
        await migrateToLatest(database.db);
        const outbox = await summariseOutbox(database.db);
        // The link is the running node's (it records each change); with none running nothing talks to central.
        const recorded = await readRecordedLink(database.db);
        const running = runningNodeOf(dir) !== null;
        const status = {
          paired: true,
          central: pairing.central,
          node_id: pairing.node_id,
          store: pairing.store_id,
          store_name: pairing.store_name ?? null,
          link: running ? (recorded?.link ?? 'down') : 'down',
          pending: outbox.pending,
          oldest_pending_at: iso(outbox.oldestPendingAt),
          rejected: outbox.rejected,
          last_push_at: iso(await getMeta(database.db, 'sync_last_push_at')),
          last_pull_at: iso(await getMeta(database.db, 'sync_last_pull_at')),
          cursor: Number((await getMeta(database.db, 'sync_cursor')) ?? 0),
          first_sync: { done: (await getMeta(database.db, 'sync_first_sync_done')) !== null },
          last_error: running ? (recorded?.lastError ?? null) : 'no store node is running on this folder',
        };
        printStatus(status, options.json);
      } finally {
        await database.close();
      }
    });
}
