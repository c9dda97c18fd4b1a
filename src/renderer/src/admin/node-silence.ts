import type { ChainHealth } from './admin-api';
import type { useAdminStrings } from './strings';

type StoreNode = ChainHealth['nodes'][number];

/** How long a store's /health waits before it calls its own sync behind: a node central has not heard from for longer is worth a look. */
export const NODE_SILENT_AFTER_MS = 15 * 60_000;

/**
 * How long central has not heard from a paired node past that (null: heard lately, never seen, or
 * unpaired). A running store syncs every few seconds, so a till that is off, offline or replaced
 * stands out. By this browser's clock.
 */
export function nodeSilentMs(node: StoreNode, now = Date.now()): number | null {
  if (node.revoked_at !== null || node.last_seen_at === null) return null;
  const silent = now - Date.parse(node.last_seen_at);
  return silent >= NODE_SILENT_AFTER_MS ? silent : null;
}

/** "45 min", "3 h", "2 days". */
export function durationWords(t: ReturnType<typeof useAdminStrings>, ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 120) return t.durationMinutes(minutes);
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return t.durationHours(hours);
  return t.durationDays(Math.floor(hours / 24));
}
