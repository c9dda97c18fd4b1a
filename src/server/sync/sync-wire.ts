import type { SyncExceptionRecord } from '../../core/sync/central/sync-exceptions';
import { toIso } from '../../shared/time';

export const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

/** A sync exception as central's API and the back office show it. */
export const syncExceptionWire = (e: SyncExceptionRecord) => ({
  id: e.id,
  store: e.storeId,
  node: e.nodeId,
  kind: e.kind,
  subject: e.subject,
  message: e.message,
  created_at: toIso(e.createdAt),
  resolved_at: isoOrNull(e.resolvedAt),
});
