import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { ApiKeyQuery } from '../../shared/schemas/onscreen';
import { ScannersReplySchema } from '../../shared/schemas/scanners';
import { requireApiKey, storeOf } from '../auth/api-key';
import type { ScannerDirectory } from '../node/scanners';

/**
 * GET /app/scanners?api_key: the scanners and card readers this node reads, for the Settings screen.
 * A node's scanners check in at one store, so only that store's keys see them; every other key (and
 * a node that reads no scanners) gets an empty list.
 */
export const scannerRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; scanners: ScannerDirectory | null }> = async (app, { engine, scanners }) => {
  app.get(
    '/app/scanners',
    { config: { style: 'legacy' }, preValidation: requireApiKey(engine), schema: { tags: ['OnScreen'], querystring: ApiKeyQuery, response: { 200: ScannersReplySchema } } },
    async (request) => {
      const scope = storeOf(request);
      const served = scanners ? await scanners.storeScope() : null;
      if (!scanners || !served || served.storeId !== scope.storeId || served.vendorId !== scope.vendorId) return { scanners: [] };
      return {
        scanners: scanners.list().map((s) => ({ id: s.id, name: s.name, kind: s.kind, mode: s.mode, connected: s.connected, last_scan_at: s.lastScanAt })),
      };
    },
  );
};
