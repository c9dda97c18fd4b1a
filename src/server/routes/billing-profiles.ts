import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { addBillingProfile, deleteBillingProfile, listBillingProfiles, setDefaultBillingProfile } from '../../core/payments/billing-profiles/manage-billing-profiles';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import { AddBillingProfileBody, BillingProfileListSchema, BillingProfileSchema, ProfileIdBody, SessionOnlyQuery } from '../../shared/schemas/payments';
import { customerOf, requireSession } from '../auth/session';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule } from '../http/rate-limits';
import { namingProfileField, profileNumberOf } from './billing-profile-field';
import { billingProfileWire } from './payments-wire';

const tags = ['Billing profiles'];
const config = { style: 'legacy' as const };

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
    async (request) => {
      const profile = profileNumberOf(request.body, 'user_billingProfile_id');
      return billingProfileWire(await namingProfileField(profile.field, setDefaultBillingProfile(engine, customerOf(request), profile.id)));
    },
  );

  app.delete(
    '/user/billing-profile',
    { config, preValidation: session, schema: { tags, querystring: SessionOnlyQuery, body: ProfileIdBody, response: { 200: EmptyObjectSchema } } },
    async (request) => {
      const profile = profileNumberOf(request.body, 'user_billingProfile_id');
      await namingProfileField(profile.field, deleteBillingProfile(engine, customerOf(request), profile.id));
      return {};
    },
  );
};
