import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ContentPage } from '../../core/content/content-page';
import { getVendorContent } from '../../core/content/get-content';
import { setVendorContent } from '../../core/content/set-content';
import type { Engine } from '../../core/engine';
import { ContentParams, ContentQuery, PutContentBody, VendorContentAdminSchema, VendorContentSchema } from '../../shared/schemas/consumer';
import { toIso, toUnixSeconds } from '../../shared/time';
import { requireBearer, vendorOf } from '../auth/bearer';

const tags = ['Vendor content'];

/**
 * GET /vendor/content/{terms-of-service,privacy-policy,faq}?vendor (no credential, legacy style) and
 * PUT /vendor/content/{slug} for the vendor's admin (bearer token, resource style). The content is
 * the merchant's own HTML, trusted and served as written.
 */
export const contentRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get(
    '/vendor/content/:slug',
    { config: { style: 'legacy' }, schema: { tags, params: ContentParams, querystring: ContentQuery, response: { 200: VendorContentSchema } } },
    async (request) => {
      const page = await getVendorContent(engine, { vendorId: request.query.vendor, slug: request.params.slug, language: request.query.language });
      return { ...pageWire(page), updated: page.updatedAt === null ? null : toUnixSeconds(page.updatedAt) };
    },
  );

  app.put(
    '/vendor/content/:slug',
    {
      config: { style: 'resource' },
      preValidation: requireBearer(engine),
      schema: { tags, security: [{ bearer: [] }], params: ContentParams, body: PutContentBody, response: { 200: VendorContentAdminSchema } },
    },
    async (request) => {
      const page = await setVendorContent(engine, vendorOf(request), { slug: request.params.slug, ...request.body });
      return { ...pageWire(page), date_updated: toIso(page.updatedAt ?? engine.clock.now()) };
    },
  );
};

function pageWire(page: ContentPage) {
  return { object: 'vendor_content' as const, slug: page.slug, language: page.language, title: page.title, content: page.content, version: page.version };
}
