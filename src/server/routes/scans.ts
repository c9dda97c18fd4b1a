import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { CheckInQuery, ScanBody, ScanReplySchema } from '../../shared/schemas/onscreen';
import { requireApiKey, storeOf } from '../auth/api-key';
import { checkInScanLine } from '../node/scan-check-in';
import { checkInWire } from './onscreen-wire';

/**
 * POST /app/scans?api_key {line}: a scan captured at a counter or kiosk (a keyboard-wedge line, a
 * card swipe) checks the customer in at the key's store; screens learn of it from the event
 * stream. The raw line is decoded here and never stored or logged: only the identification it
 * yields is used, and the reply shows it masked. Scanners read by the node itself go through the
 * same checkInScan (src/server/node/scanners.ts).
 */
export const scanRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.post(
    '/app/scans',
    { config: { style: 'legacy' }, preValidation: requireApiKey(engine), schema: { tags: ['OnScreen'], querystring: CheckInQuery, body: ScanBody, response: { 201: ScanReplySchema } } },
    async (request, reply) => {
      const scope = storeOf(request);
      const { result, scan, masked } = await checkInScanLine(engine, scope, request.body.line, request.query.screen);
      return reply.code(201).send({
        ...checkInWire(result, scope),
        scan: { kind: scan.kind, symbology: scan.symbology ?? null, masked },
      });
    },
  );
};
