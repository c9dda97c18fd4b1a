import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ScannerStation } from '../../../shared/schemas/scanners';
import { createScannersApi, type ScannerList } from '../api/scanners-api';
import type { TerminalApi } from '../api/terminal-api';
import { errorMessage } from '../api/client';

export interface ScannersView {
  phase: 'loading' | 'ready' | 'error';
  list: ScannerList | null;
  error: string | null;
  /** The node's message when the last station assignment failed. */
  assignError: string | null;
}

/** Scanners change rarely and the stream does not announce them: Settings re-reads them this often. */
export const SCANNERS_REFRESH_MS = 15_000;

/** The node's scanners while Settings is open: read at once, then every SCANNERS_REFRESH_MS. */
export function useScanners(api: TerminalApi): ScannersView & { refresh(): void; assign(scanner: string, station: ScannerStation | null): Promise<void> } {
  const scanners = useMemo(() => createScannersApi(api), [api]);
  const [view, setView] = useState<ScannersView>({ phase: 'loading', list: null, error: null, assignError: null });
  const inFlight = useRef<AbortController | null>(null);

  const refresh = useCallback(() => {
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setView((v) => ({ ...v, phase: 'loading' }));
    scanners.list(controller.signal).then(
      (list) => {
        if (!controller.signal.aborted) setView((v) => ({ ...v, phase: 'ready', list, error: null }));
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setView((v) => ({ ...v, phase: 'error', error: errorMessage(error) }));
      },
    );
  }, [scanners]);

  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, SCANNERS_REFRESH_MS);
    return () => {
      clearInterval(timer);
      inFlight.current?.abort();
    };
  }, [refresh]);

  /** Assigns a scanner to a station (null: not assigned); the row shows it once the node has kept it. */
  const assign = useCallback(
    async (scanner: string, station: ScannerStation | null) => {
      setView((v) => ({ ...v, assignError: null }));
      try {
        await scanners.assign(scanner, station);
      } catch (error) {
        setView((v) => ({ ...v, assignError: errorMessage(error) }));
        return;
      }
      setView((v) => {
        const list = v.list?.available ? { ...v.list, scanners: v.list.scanners.map((s) => (s.id === scanner ? { ...s, station } : s)) } : v.list;
        return { ...v, list };
      });
    },
    [scanners],
  );

  return { ...view, refresh, assign };
}
