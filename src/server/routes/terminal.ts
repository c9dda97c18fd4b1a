import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { describeTerminal } from '../../core/stores/describe-terminal';
import { ApiKeyQuery } from '../../shared/schemas/onscreen';
import { TerminalSchema } from '../../shared/schemas/terminal';
import { requireApiKey, storeOf } from '../auth/api-key';

/** GET /app/terminal?api_key: the key's role, vendor and store (the screens' login check). */
export const terminalRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get(
    '/app/terminal',
    { config: { style: 'legacy' }, preValidation: requireApiKey(engine), schema: { tags: ['OnScreen'], querystring: ApiKeyQuery, response: { 200: TerminalSchema } } },
    async (request) => {
      const terminal = await describeTerminal(engine, storeOf(request));
      return {
        object: 'terminal' as const,
        role: terminal.role,
        vendor: terminal.vendor,
        store: terminal.store,
        point_of_sale: terminal.pointOfSale,
        quick_pay_currency: terminal.quickPayCurrencyCode,
        language: terminal.language,
        country: terminal.country,
      };
    },
  );
};
