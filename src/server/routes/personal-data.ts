import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Engine } from '../../core/engine';
import { exportCustomerData } from '../../core/personal-data/export-customer-data';
import { exportOwnData } from '../../core/personal-data/export-own-data';
import type { PersonalData } from '../../core/personal-data/personal-data-document';
import { NumericIdParams } from '../../shared/schemas/backoffice';
import { PersonalDataSchema } from '../../shared/schemas/personal-data';
import { SessionQuery } from '../../shared/schemas/users';
import { customerOf, requireSession } from '../auth/session';
import { requireStaff, staffOf } from '../auth/staff';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule } from '../http/rate-limits';

/**
 * The document as a file to save (the back office's download; an app may show it instead),
 * serialised here rather than by the response schema's serializer: its many nullable fields cost
 * seconds of the node's one thread for a regular of many years (100,000 entries: ~9 s against 0.4 s).
 */
function asFile(reply: FastifyReply, document: PersonalData): FastifyReply {
  return reply
    .header('content-disposition', `attachment; filename="personal-data-${document.person.id}-${document.generated_at.slice(0, 10)}.json"`)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(document));
}

/**
 * A copy of the data the program holds about a person (GDPR Art. 15 and 20), in one versioned JSON
 * shape (shared/schemas/personal-data.ts): staff download a member's, a logged-in customer their own.
 */
export const personalDataRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const perStaff = rateLimited('staff-personal-data', rateRule(engine, rateLimits.staffPersonalData, (r) => (r.staff ? String(r.staff.staffId) : undefined)));
  app.get(
    '/backoffice/customers/:id/personal-data',
    { config: { style: 'resource' as const }, preValidation: [requireStaff(engine, 'customers.export'), perStaff], schema: { tags: ['Back office'], params: NumericIdParams, response: { 200: PersonalDataSchema } } },
    async (request, reply) => asFile(reply, await exportCustomerData(engine, staffOf(request), request.params.id)),
  );

  const perAccount = rateLimited('personal-data', rateRule(engine, rateLimits.personalData, (r) => (r.customer ? String(r.customer.userId) : undefined)));
  app.get(
    '/user/personal-data',
    { config: { style: 'legacy' as const }, preValidation: [requireSession(engine), perAccount], schema: { tags: ['Users'], querystring: SessionQuery, response: { 200: PersonalDataSchema } } },
    async (request, reply) => asFile(reply, await exportOwnData(engine, customerOf(request))),
  );
};
