import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addCustomerEmail } from '../../core/customer-care/add-customer-email';
import { adjustBalance } from '../../core/customer-care/adjust-balance';
import { type BlockState, setCustomerBlocked } from '../../core/customer-care/block-customer';
import { BlockBody, BlockStateSchema, CustomerEmailBody, CustomerEmailSchema, RemovedMemberSchema, RemoveMemberBody } from '../../shared/schemas/backoffice-screens';
import { customerProfile } from '../../core/customer-care/customer-profile';
import { removeMemberOnRequest } from '../../core/customer-care/remove-member';
import { searchCustomers } from '../../core/customer-care/search-customers';
import type { Engine } from '../../core/engine';
import { storeLimit } from '../../core/staff/authorize';
import { AdjustmentBody, AdjustmentSchema, CustomerHitSchema, CustomerProfileSchema, CustomerSearchQuery, NumericIdParams } from '../../shared/schemas/backoffice';
import { toIso } from '../../shared/time';
import { requireStaff, staffOf } from '../auth/staff';

const tags = ['Back office'];
const config = { style: 'resource' as const };

/** Customers in the back office: search by any identifier, profile with balances and ledger, adjustments, blocks, an email for one without, removal at their request. */
export const backOfficeCustomerRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const readers = requireStaff(engine, 'customers.read');

  app.get('/backoffice/customers', { config, preValidation: readers, schema: { tags, querystring: CustomerSearchQuery, response: { 200: Type.Object({ items: Type.Array(CustomerHitSchema) }) } } }, async (request) => {
    const staff = staffOf(request);
    const hits = await searchCustomers(engine, staff.vendorId, storeLimit(staff), request.query.q, request.query.limit ?? 25);
    return { items: hits.map((h) => ({ id: h.id, first_name: h.firstName, last_name: h.lastName, email: h.email, phone: h.phone, matched_by: h.matchedBy })) };
  });

  app.get('/backoffice/customers/:id', { config, preValidation: readers, schema: { tags, params: NumericIdParams, response: { 200: CustomerProfileSchema } } }, async (request) => {
    const staff = staffOf(request);
    const p = await customerProfile(engine, staff.vendorId, storeLimit(staff), request.params.id);
    return {
      id: p.id,
      first_name: p.firstName,
      last_name: p.lastName,
      email: p.email,
      phone: p.phone,
      cedula: p.cedula,
      // The day as stored (its UTC midnight), so it reads the same in every time zone.
      birthdate: p.birthdate === null ? null : toIso(p.birthdate).slice(0, 10),
      status: p.status,
      contact_consent: p.contactConsent,
      language: p.language,
      member_since: toIso(p.memberSince),
      counter_enrolled: p.counterEnrolled,
      flagged: p.flagged,
      blocked: p.blocked,
      blocked_reason: p.blockedReason,
      time_zone: p.timeZone,
      balances: p.balances.map((b) => ({ currency: b.currencyId, name: b.currencyName, code: b.code, balance: b.balance, expiring: b.expiring.map((e) => ({ date: toIso(e.at), amount: e.amount })) })),
      cards: p.cards,
      billing_profiles: p.billingProfiles.map((b) => ({ brand: b.brand, last4: b.last4, expiry_month: b.expiryMonth, expiry_year: b.expiryYear, default: b.isDefault })),
      ledger: p.entries.map((e) => ({
        id: e.id,
        currency: e.currencyId,
        amount: e.amount,
        kind: e.kind,
        reference_type: e.referenceType,
        reference_id: e.referenceId,
        date_created: toIso(e.createdAt),
        store: e.storeId,
        store_name: e.storeName,
        receipt_number: e.receiptNumber,
        reverses: e.reversesId,
      })),
    };
  });

  app.post(
    '/backoffice/customers/:id/adjustments',
    { config, preValidation: requireStaff(engine, 'customers.write'), schema: { tags, params: NumericIdParams, body: AdjustmentBody, response: { 201: AdjustmentSchema } } },
    async (request, reply) => {
      const made = await adjustBalance(engine, staffOf(request), request.params.id, request.body);
      return reply.code(201).send({ ledger_entry: made.entryId, balance: made.balance });
    },
  );

  const blockToWire = (b: BlockState) => ({ blocked: b.blocked, blocked_reason: b.reason, blocked_at: b.blockedAt === null ? null : toIso(b.blockedAt) });
  const writers = requireStaff(engine, 'customers.write');
  app.post('/backoffice/customers/:id/block', { config, preValidation: writers, schema: { tags, params: NumericIdParams, body: BlockBody, response: { 200: BlockStateSchema } } }, async (request) =>
    blockToWire(await setCustomerBlocked(engine, staffOf(request), request.params.id, { blocked: true, reason: request.body.reason })),
  );
  app.post('/backoffice/customers/:id/unblock', { config, preValidation: writers, schema: { tags, params: NumericIdParams, response: { 200: BlockStateSchema } } }, async (request) =>
    blockToWire(await setCustomerBlocked(engine, staffOf(request), request.params.id, { blocked: false })),
  );
  app.put('/backoffice/customers/:id/email', { config, preValidation: writers, schema: { tags, params: NumericIdParams, body: CustomerEmailBody, response: { 200: CustomerEmailSchema } } }, async (request) =>
    addCustomerEmail(engine, staffOf(request), request.params.id, request.body),
  );
  app.post('/backoffice/customers/:id/remove', { config, preValidation: writers, schema: { tags, params: NumericIdParams, body: RemoveMemberBody, response: { 200: RemovedMemberSchema } } }, async (request) => {
    const { erased } = await removeMemberOnRequest(engine, staffOf(request), request.params.id, { reason: request.body.reason, forfeitBalances: request.body.forfeit_balances ?? false });
    return { removed: true as const, erased };
  });
};
