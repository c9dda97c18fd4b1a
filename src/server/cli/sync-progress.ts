import type { StoreSync } from '../sync/store-sync';

/** Draws the first sync's progress on stderr (a bar on a terminal, lines otherwise) until it is done. */
export async function showFirstSyncProgress(sync: StoreSync, out: NodeJS.WriteStream = process.stderr): Promise<void> {
  let last = '';
  // A node whose first sync was done before this start has nothing to show.
  if (((await sync.status()) as { first_sync: { done: boolean } }).first_sync.done) return;
  for (;;) {
    const status = (await sync.status()) as { first_sync: { done: boolean; ready?: boolean; progress: number; rows: number; eta_seconds: number | null }; link: string };
    const { done, ready, progress, rows, eta_seconds: eta } = status.first_sync;
    const width = 30;
    const filled = Math.round((progress / 100) * width);
    const line = `first sync [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${progress.toFixed(1)}% ${rows} rows${eta !== null ? `, about ${eta}s left` : ''}${ready && !done ? ', check-in open' : ''}${status.link === 'down' ? ' (central unreachable, retrying)' : ''}`;
    if (line !== last) {
      out.write(out.isTTY ? `\r${line}` : `${line}\n`);
      last = line;
    }
    if (done) {
      out.write(out.isTTY ? '\nfirst sync done\n' : 'first sync done\n');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
