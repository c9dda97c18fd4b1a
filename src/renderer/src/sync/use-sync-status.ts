import { useEffect, useState } from 'react';
import { useSession } from '../session/session-store';

/** A store node's GET /sync/status (public, like /health); null until it answered. */
export interface SyncStatus {
  paired: boolean;
  central: string | null;
  link: 'up' | 'down';
  pending: number;
  oldest_pending_at: string | null;
  rejected: number;
  last_push_at: string | null;
  last_pull_at: string | null;
  cursor_lag: number;
  first_sync: { done: boolean; progress: number; rows: number; eta_seconds: number | null };
  last_error: string | null;
}

const POLL_MS = 3_000;

/** Polls the node's sync status while the screen is open (badges, Settings). */
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
    const timer = setInterval(() => void load(), POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [baseUrl]);
  return status;
}
