import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { ServiceError } from '../../shared/errors';
import { type Database, openDatabaseUrl } from '../../core/storage/database';
import { migrateUnlessOlderNodeRuns } from './folder-checks';
import { summariseOutbox } from '../../core/sync/outbox/pending-events';
import { getMeta } from '../../core/storage/node-meta';
import { firstSyncShare, readRecordedLink } from '../../core/sync/store/sync-client';
import { dataDirAt, refuseCentralsFolder, runningNodeOf } from '../node/data-dir';
import { SettingError } from '../node/setting-error';
import { readPairing } from '../sync/pairing-file';
import { NOT_PAIRED_STATUS } from '../sync/store-sync';
import { lostPairingProblem, pairingLost } from '../node/lost-pairing';

const iso = (ms: string | number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

function printStatus(status: Record<string, unknown>, json: boolean | undefined): void {
  if (json) process.stdout.write(`${JSON.stringify(status)}\n`);
  else {
    for (const [key, value] of Object.entries(status)) process.stdout.write(`${key.padEnd(18)} ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}\n`);
  }
}

/**
 * The cursor, how far central's log is ahead of it (as the running node last heard, node_meta
 * `sync_head`) and the first sync's state, as GET /sync/status shows them; a folder cannot time a
 * rate, so no ETA.
 */
async function cursorAndFirstSync(db: Database['db']) {
  const cursor = Number((await getMeta(db, 'sync_cursor')) ?? 0);
  const head = Math.max(cursor, Number((await getMeta(db, 'sync_head')) ?? 0));
  const done = (await getMeta(db, 'sync_first_sync_done')) !== null;
  const ready = done || (await getMeta(db, 'sync_first_sync_ready')) !== null;
  const saved = await getMeta(db, 'sync_snapshot');
  const snapshot = saved === null ? null : (JSON.parse(saved) as { rows: number; estimate: number; done: boolean });
  const share = firstSyncShare({ done, snapshot, cursor, head });
  return {
    cursor,
    cursor_lag: head - cursor,
    first_sync: { done, ready, progress: Math.round(share * 1000) / 10, rows: snapshot?.rows ?? 0, eta_seconds: null },
  };
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
      // A mistyped folder, or central's own, would read as "not paired": say what it is instead.
      if (!existsSync(dir.root)) throw new SettingError(`There is no data folder at ${dir.root}.`);
      refuseCentralsFolder(dir, 'sync status', "Central lists its stores' nodes at GET /sync/nodes and in the back office.");
      const pairing = readPairing(dir);
      // A chain's data whose central.json was lost is paired, as `store` (which refuses it) and
      // `unpair` take it: said so, with the ways out, rather than "not paired".
      const lost = pairing === null && (await pairingLost(dir));
      // Nothing syncs there (a standalone or unpaired node): the facts GET /sync/status gives,
      // and no database made.
      if (pairing === null && !lost) {
        printStatus(NOT_PAIRED_STATUS, options.json);
        return;
      }
      if (!existsSync(dir.database)) throw new ServiceError('store_not_paired', `${dir.root} holds a pairing (central.json) but no database: nothing syncs there.`);
      const database = openDatabaseUrl(dir.database);
      try {
        await migrateUnlessOlderNodeRuns(database.db, dir);
        const outbox = await summariseOutbox(database.db);
        // The link is the running node's (it records each change); with none running nothing talks to central.
        const recorded = await readRecordedLink(database.db);
        const running = runningNodeOf(dir) !== null;
        const nodeId = pairing?.node_id ?? Number(await getMeta(database.db, 'node_id'));
        // Central revoked the node (it heard 401 node_revoked): it sells nothing until paired again, stopped or not.
        const revokedAt = await getMeta(database.db, 'sync_unpaired_at_central');
        const revoked = revokedAt === null ? null : `central unpaired this store node (${iso(revokedAt)}): it takes no check-ins or sales; stop it, run \`punchcard unpair --data ${dir.root}\`, then pair it with a new code`;
        const status = {
          paired: true,
          ...(pairing === null ? { pairing_lost: true } : {}),
          ...(revokedAt === null ? {} : { unpaired_at_central: iso(revokedAt) }),
          central: pairing?.central ?? null,
          node_id: nodeId,
          store: pairing?.store_id ?? null,
          store_name: pairing?.store_name ?? null,
          link: running && pairing ? (recorded?.link ?? 'down') : 'down',
          pending: outbox.pending,
          oldest_pending_at: iso(outbox.oldestPendingAt),
          rejected: outbox.rejected,
          last_push_at: iso(await getMeta(database.db, 'sync_last_push_at')),
          last_pull_at: iso(await getMeta(database.db, 'sync_last_pull_at')),
          ...(await cursorAndFirstSync(database.db)),
          last_error: pairing === null ? lostPairingProblem(dir, nodeId) : revoked ?? (running ? (recorded?.lastError ?? null) : 'no store node is running on this folder'),
        };
        printStatus(status, options.json);
      } finally {
        await database.close();
      }
    });
}
