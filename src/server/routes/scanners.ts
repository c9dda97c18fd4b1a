import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { StoreScope } from '../../core/credentials/authenticate';
import type { Engine } from '../../core/engine';
import { ServiceError } from '../../shared/errors';
import { ApiKeyQuery } from '../../shared/schemas/onscreen';
import { ScannersReplySchema, ScannerStationBody, ScannerStationReplySchema } from '../../shared/schemas/scanners';
import { requireApiKey, storeOf } from '../auth/api-key';
import type { ScannerAssignment, ScannerDirectory } from '../node/scanners';

/** Keys that may assign scanners to stations: staff at the counter and integrations, not a kiosk. */
const ASSIGNING_ROLES = ['cashier', 'integration'] as const;

function scannerWire(s: ScannerAssignment) {
  return { id: s.id, device: s.device, name: s.name, kind: s.kind, mode: s.mode, connected: s.connected, last_scan_at: s.lastScanAt, station: s.station };
}

/** The node's scanners when the key's store is the one they check in at, else null. */
async function scannersOf(scanners: ScannerDirectory | null, scope: StoreScope): Promise<ScannerDirectory | null> {
  const served = scanners ? await scanners.storeScope() : null;
  return served && served.storeId === scope.storeId && served.vendorId === scope.vendorId ? scanners : null;
}

/**
 * GET /app/scanners?api_key: the scanners and card readers this node reads, for the Settings screen,
 * each with its station. A node's scanners check in at one store, so only that store's keys see them;
 * every other key (and a node that reads no scanners) gets an empty list.
 * PUT /app/scanners/station?api_key {scanner, station}: assigns one to the counter or the kiosk.
 */
export const scannerRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; scanners: ScannerDirectory | null }> = async (app, { engine, scanners }) => {
  app.get(
    '/app/scanners',
    { config: { style: 'legacy' }, preValidation: requireApiKey(engine), schema: { tags: ['OnScreen'], querystring: ApiKeyQuery, response: { 200: ScannersReplySchema } } },
    async (request) => {
      const served = await scannersOf(scanners, storeOf(request));
      return { scanners: served ? (await served.assignments()).map(scannerWire) : [] };
    },
  );

  app.put(
    '/app/scanners/station',
    {
      config: { style: 'legacy' },
      preValidation: requireApiKey(engine, ASSIGNING_ROLES),
      schema: { tags: ['OnScreen'], querystring: ApiKeyQuery, body: ScannerStationBody, response: { 200: ScannerStationReplySchema } },
    },
    async (request) => {
      const served = await scannersOf(scanners, storeOf(request));
      if (!served) throw new ServiceError('scanner_not_found', undefined, 'scanner');
      return { scanner: scannerWire(await served.assignStation(request.body.scanner, request.body.station)) };
    },
  );
};
