import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Engine } from '../../core/engine';
import { flagSvg } from '../../core/geo/flags';
import { listCountries, listRegions } from '../../core/geo/vendor-countries';
import { ServiceError } from '../../shared/errors';
import { type Country, CountryListQuery, CountryParams, CountrySchema, FlagParams, RegionSchema } from '../../shared/schemas/countries';
import { callerBase } from '../http/request-origin';

const tags = ['Countries'];

/** Flags change only with the country-flag-icons package: clients may keep them for 30 days. */
const FLAG_CACHE_CONTROL = 'public, max-age=2592000';

/**
 * GET /countries, GET /countries/{country_id}/regions and the flag images they point to. No
 * credential needed (as in the reference); `vendor` or `api_key` narrows the list to the countries
 * that vendor serves.
 */
export const countryRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const config = { style: 'legacy' as const };

  app.get(
    '/countries',
    { config, schema: { tags, querystring: CountryListQuery, response: { 200: Type.Array(CountrySchema) } } },
    async (request): Promise<Country[]> => {
      const { vendor, api_key: apiKey, language } = request.query;
      const listing = await listCountries(engine, { vendorId: vendor, apiKey, language });
      const origin = callerBase(request);
      return listing.countries.map(({ country, name }) => ({
        country_id: country.id,
        code: country.code,
        name,
        phone_code: country.phoneCode,
        zip_validate: country.zipPattern,
        phone_validate: country.phonePattern,
        flag_url: `${origin}/flags/${country.code}.svg`,
      }));
    },
  );

  app.get(
    '/countries/:country_id/regions',
    { config, schema: { tags, params: CountryParams, querystring: CountryListQuery, response: { 200: Type.Array(RegionSchema) } } },
    async (request) => {
      const { vendor, api_key: apiKey, language } = request.query;
      const regions = await listRegions(engine, request.params.country_id, { vendorId: vendor, apiKey, language });
      return regions.map((region) => ({ region_id: region.id, code: region.code, name: region.name }));
    },
  );

  app.get('/flags/:file', { config, schema: { tags, params: FlagParams } }, async (request, reply) => {
    const code = /^([A-Za-z]{2})\.svg$/.exec(request.params.file)?.[1];
    const svg = code === undefined ? undefined : flagSvg(code);
    if (svg === undefined) throw new ServiceError('route_not_found', `There is no flag ${request.params.file}.`);
    return reply.type('image/svg+xml').header('cache-control', FLAG_CACHE_CONTROL).header('x-content-type-options', 'nosniff').send(svg);
  });
};
