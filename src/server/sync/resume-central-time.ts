import type { FastifyBaseLogger } from 'fastify';
import type { Engine } from '../../core/engine';
import { getMeta } from '../../core/storage/node-meta';
import { toIso } from '../../shared/time';
import type { CentralAlignedClock } from './central-aligned-clock';

/**
 * A paired store starting: its last sync with central (dated by the aligned clock, after central's
 * reply was measured) is a moment central's time has reached. A computer whose clock says earlier
 * — its CMOS battery dead, restarted while central is out of reach — would date sales years back
 * until central answers; the store dates from that moment on instead, and says so.
 */
export async function resumeFromLastSync(engine: Engine, clock: CentralAlignedClock, logger?: FastifyBaseLogger): Promise<void> {
  const synced = await Promise.all(['sync_last_pull_at', 'sync_last_push_at'].map((key) => getMeta(engine.db, key)));
  const lastSync = Math.max(0, ...synced.map(Number).filter(Number.isFinite));
  if (lastSync === 0) return;
  const lagMs = clock.resumeFrom(lastSync);
  if (lagMs === null) return;
  logger?.warn(
    { clock_behind_seconds: Math.round(lagMs / 1000), dating_from: toIso(lastSync) },
    "this computer's clock is behind the store's last sync with central: until central answers, the store dates what it sells from that sync's time on; set the date, time and time zone right",
  );
}
