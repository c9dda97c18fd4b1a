import type { Static } from 'typebox';
import type { ScannerSchema, ScannerStation } from '../../../shared/schemas/scanners';
import { NodeApiError } from './client';
import type { TerminalApi } from './terminal-api';

export type NodeScanner = Static<typeof ScannerSchema>;

/**
 * What the node says about its scanners. `available: false` when the node has no scanner endpoint
 * (an older node answers 404): Settings then says so instead of showing an error.
 */
export type ScannerList = { available: true; scanners: NodeScanner[] } | { available: false };

const KINDS = new Set(['barcode', 'card']);
const MODES = new Set(['hid-pos', 'keyboard-emulation', 'scripted']);

/** Epoch ms from what a node sent: ms, Unix seconds, or an ISO date; null when absent or unreadable. */
function toEpochMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value < 1e12 ? value * 1000 : value;
  if (typeof value === 'string' && value) {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? null : parsed;
  }
  return null;
}

/**
 * Reads GET /app/scanners leniently: entries that are not objects are skipped, an unknown kind or mode
 * is kept as sent (a newer node may know more), a missing list is an empty one.
 */
export function parseScannerList(body: unknown): NodeScanner[] {
  const list = body && typeof body === 'object' ? (body as { scanners?: unknown }).scanners : undefined;
  if (!Array.isArray(list)) return [];
  const scanners: NodeScanner[] = [];
  for (const entry of list) {
    if (!entry || typeof entry !== 'object') continue;
    const e = entry as Record<string, unknown>;
    const id = typeof e.id === 'string' || typeof e.id === 'number' ? String(e.id) : null;
    if (id === null) continue;
    scanners.push({
      id,
      device: typeof e.device === 'string' && e.device ? e.device : id,
      name: typeof e.name === 'string' && e.name ? e.name : id,
      kind: (typeof e.kind === 'string' && KINDS.has(e.kind) ? e.kind : String(e.kind ?? 'barcode')) as NodeScanner['kind'],
      mode: (typeof e.mode === 'string' && MODES.has(e.mode) ? e.mode : String(e.mode ?? 'hid-pos')) as NodeScanner['mode'],
      connected: e.connected === true,
      last_scan_at: toEpochMs(e.last_scan_at),
      // An older node knows no stations: every scanner is then "not assigned".
      station: e.station === 'counter' || e.station === 'kiosk' ? e.station : null,
    });
  }
  return scanners;
}

/**
 * GET /app/scanners?api_key: the scanners and card readers the node reads for this store;
 * PUT /app/scanners/station: assigns one to the counter or the kiosk (null: not assigned).
 */
export function createScannersApi(api: Pick<TerminalApi, 'request' | 'apiKey'>) {
  return {
    async assign(scanner: string, station: ScannerStation | null): Promise<void> {
      await api.request('/app/scanners/station', { method: 'PUT', query: { api_key: api.apiKey }, body: { scanner, station } });
    },
    async list(signal?: AbortSignal): Promise<ScannerList> {
      try {
        const body = await api.request('/app/scanners', { query: { api_key: api.apiKey }, signal });
        return { available: true, scanners: parseScannerList(body) };
      } catch (error) {
        if (error instanceof NodeApiError && error.status === 404) return { available: false };
        throw error;
      }
    },
  };
}
