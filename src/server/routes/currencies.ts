import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createCurrency } from '../../core/currencies/create-currency';
import type { CurrencyRecord } from '../../core/currencies/currency';
import { deleteCurrency } from '../../core/currencies/delete-currency';
import { getCurrency } from '../../core/currencies/get-currency';
import { listCurrencies } from '../../core/currencies/list-currencies';
import { updateCurrency } from '../../core/currencies/update-currency';
import type { Engine } from '../../core/engine';
import { EmptyObjectSchema, IdParamsSchema, ListQuerySchema, pageOf } from '../../shared/schemas/common';
import { type Currency, CreateCurrencyBody, CurrencySchema, UpdateCurrencyBody } from '../../shared/schemas/currencies';
import { toIso } from '../../shared/time';
import { requireBearer, vendorOf } from '../auth/bearer';
import { requireOnEveryRoute } from '../auth/credential';
import { pageLinks } from '../http/page-links';

const tags = ['Currencies'];
const security = [{ bearer: [] }];

export function currencyToWire(currency: CurrencyRecord): Currency {
  return {
    id: currency.publicId,
    code: currency.code,
    name: currency.name,
    date_created: toIso(currency.createdAt),
    date_updated: toIso(currency.updatedAt),
    status: currency.status,
  };
}

export const currencyRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  requireOnEveryRoute(app, requireBearer(engine));
  const config = { style: 'resource' as const };

  app.get('/currencies', { config, schema: { tags, security, querystring: ListQuerySchema, response: { 200: pageOf(CurrencySchema) } } }, async (request) => {
    const page = await listCurrencies(engine, vendorOf(request), request.query);
    return { items: page.items.map(currencyToWire), ...pageLinks(request, page) };
  });

  app.get('/currencies/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: CurrencySchema } } }, async (request) =>
    currencyToWire(await getCurrency(engine, vendorOf(request), request.params.id)),
  );

  app.post('/currencies', { config, schema: { tags, security, body: CreateCurrencyBody, response: { 201: CurrencySchema } } }, async (request, reply) => {
    const currency = await createCurrency(engine, vendorOf(request), request.body);
    return reply.code(201).send(currencyToWire(currency));
  });

  app.put(
    '/currencies/:id',
    { config, schema: { tags, security, params: IdParamsSchema, body: UpdateCurrencyBody, response: { 200: CurrencySchema } } },
    async (request) => currencyToWire(await updateCurrency(engine, vendorOf(request), request.params.id, request.body ?? {})),
  );

  app.delete('/currencies/:id', { config, schema: { tags, security, params: IdParamsSchema, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await deleteCurrency(engine, vendorOf(request), request.params.id);
    return {};
  });
};
