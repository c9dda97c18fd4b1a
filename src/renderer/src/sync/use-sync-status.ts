import { useEffect, useState } from 'react';
import { eventStream } from '../events/event-stream';
import { useSession } from '../session/session-store';

/** A store node's GET /sync/status (public, like /health); null until it answered. */
export interface SyncStatus {
  paired: boolean;
  central: string | null;
  link: 'up' | 'down' | 'none';
  pending: number;
  oldest_pending_at: string | null;
  rejected: number;
  last_push_at: string | null;
  last_pull_at: string | null;
  cursor_lag: number;
  first_sync: { done: boolean; progress: number; rows: number; eta_seconds: number | null };
  last_error: string | null;
  /** Seconds this node's clock is ahead of central's (negative: behind); null before central answered, absent from older nodes. */
  clock_offset_seconds?: number | null;
}

/**
 * The node's sync status while the screen is open (badges, Settings): read once, then again on each
 * `sync.changed` event and on every reconnection of the event stream — no polling.
 */
export function useSyncStatus(): SyncStatus | null {
  const baseUrl = useSession((s) => s.baseUrl);
  const [status, setStatus] = useState<SyncStatus | null>(null);
  useEffect(() => {
    if (!baseUrl) return;
    let stopped = false;
    const load = async () => {
      try {
        const reply = await fetch(`${baseUrl}/sync/status`);
        if (reply.ok && !stopped) setStatus((await reply.json()) as SyncStatus);
      } catch {
        // The node itself is unreachable: the connection badge says so.
      }
    };
    void load();
    const stream = eventStream();
    const stopEvents = stream.subscribe((event) => {
      if (event.type === 'sync.changed') void load();
    });
    const stopResync = stream.onResync(() => void load());
    return () => {
      stopped = true;
      stopEvents();
      stopResync();
    };
  }, [baseUrl]);
  return status;
}
