import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { addBillingProfile, deleteBillingProfile, listBillingProfiles, setDefaultBillingProfile } from '../../core/payments/billing-profiles/manage-billing-profiles';
import { ServiceError } from '../../shared/errors';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import { AddBillingProfileBody, BillingProfileListSchema, BillingProfileSchema, ProfileIdBody, SessionOnlyQuery } from '../../shared/schemas/payments';
import { customerOf, requireSession } from '../auth/session';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule } from '../http/rate-limits';
import { billingProfileWire } from './payments-wire';

const tags = ['Billing profiles'];
const config = { style: 'legacy' as const };

/** The profile number of a body: `user_billingProfile_id` (the contract's name) or `user_billingprofile`. */
export function profileIdOf(body: { user_billingProfile_id?: number | undefined; user_billingprofile?: number | undefined }): number {
  const id = body.user_billingProfile_id ?? body.user_billingprofile;
  if (id === undefined) throw new ServiceError('validation_failed', 'user_billingProfile_id is required.', 'user_billingProfile_id');
  return id;
}

/**
 * A customer's cards (billing profiles): add (tokenized by the payment gateway; the number and
 * CVV are never stored), list, set default, delete. Every call takes the customer's session_key.
 * Adding a card is limited like typing a code (codeEntry: per IP and per account), so a session
 * cannot be used to test stolen card numbers against the gateway.
 */
export const billingProfileRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const session = requireSession(engine);
  const cardEntry = rateLimited('card-entry', rateRule(engine, rateLimits.codeEntry, (request) => (request.customer ? String(request.customer.userId) : undefined)));

  app.post(
    '/user/billing-profile/add',
    { config, preValidation: [session, cardEntry], schema: { tags, querystring: SessionOnlyQuery, body: AddBillingProfileBody, response: { 200: BillingProfileSchema } } },
    async (request) => {
      const b = request.body;
      const profile = await addBillingProfile(engine, customerOf(request), {
        number: b.number,
        expiryMonth: b.expiry_month,
        expiryYear: b.expiry_year,
        cvv: b.cvv,
        name: b.name,
        description: b.description,
        zipCode: b.zip_code,
      });
      return billingProfileWire(profile);
    },
  );

  app.get(
    '/user/billing-profile/list',
    { config, preValidation: session, schema: { tags, querystring: SessionOnlyQuery, response: { 200: BillingProfileListSchema } } },
    async (request) => {
      const profiles = await listBillingProfiles(engine, customerOf(request));
      return { object: 'collection' as const, count: profiles.length, data: profiles.map(billingProfileWire), next_page_url: null };
    },
  );

  app.post(
    '/user/billing-profile/default',
    { config, preValidation: session, schema: { tags, querystring: SessionOnlyQuery, body: ProfileIdBody, response: { 200: BillingProfileSchema } } },
    async (request) => billingProfileWire(await setDefaultBillingProfile(engine, customerOf(request), profileIdOf(request.body))),
  );

  app.delete(
    '/user/billing-profile',
    { config, preValidation: session, schema: { tags, querystring: SessionOnlyQuery, body: ProfileIdBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      await deleteBillingProfile(engine, customerOf(request), profileIdOf(request.body));
      return {};
    },
  );
};
