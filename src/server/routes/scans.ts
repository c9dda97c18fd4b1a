import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { checkIn } from '../../core/onscreen/check-in';
import { scanFromKeyboardLine } from '../../devices/decoders';
import { ServiceError } from '../../shared/errors';
import { ApiKeyQuery, ScanBody, ScanReplySchema } from '../../shared/schemas/onscreen';
import { requireApiKey, storeOf } from '../auth/api-key';
import { checkInWire } from './onscreen-wire';

/**
 * POST /app/scans?api_key {line}: a scan captured at a counter or kiosk (a keyboard-wedge line, a
 * card swipe) checks the customer in at the key's store; screens learn of it from the event
 * stream. The raw line is decoded here and never stored or logged: only the identification it
 * yields is used, and the reply shows it masked.
 */
export const scanRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.post(
    '/app/scans',
    { config: { style: 'legacy' }, preHandler: requireApiKey(engine), schema: { tags: ['OnScreen'], querystring: ApiKeyQuery, body: ScanBody, response: { 201: ScanReplySchema } } },
    async (request, reply) => {
      const decoded = scanFromKeyboardLine(request.body.line);
      if (!decoded.ok) throw new ServiceError('unreadable_scan', `The scan could not be read (${decoded.reason}). Please scan again.`, 'line');
      const scope = storeOf(request);
      const result = await checkIn(engine, scope, { identification: decoded.scan.value });
      return reply.code(201).send({
        ...checkInWire(result, scope),
        scan: { kind: decoded.scan.kind, symbology: decoded.scan.symbology ?? null, masked: decoded.masked },
      });
    },
  );
};
