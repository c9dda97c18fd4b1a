import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateSession } from '../../core/customers/sessions';
import type { Engine } from '../../core/engine';
import { maskedCard } from '../../core/payments/billing-profiles/billing-profile';
import { claimEgift, type ClaimedEgift } from '../../core/payments/egifts/claim-egift';
import type { EgiftRecord } from '../../core/payments/egifts/egift';
import { sendEgift } from '../../core/payments/egifts/send-egift';
import { parseInstant } from '../../core/rules/rule-fields';
import { ServiceError } from '../../shared/errors';
import { EgiftBody, EgiftClaimBody, EgiftClaimSchema, EgiftParams, EgiftQuery, EgiftSchema } from '../../shared/schemas/egifts';
import { SessionQuery } from '../../shared/schemas/users';
import { toUnixSeconds } from '../../shared/time';
import { customerOf, requireSession } from '../auth/session';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule } from '../http/rate-limits';
import { amountWire, currencyRefWire } from './balances';
import { namingProfileField } from './billing-profile-field';

const tags = ['eGifts'];
const config = { style: 'legacy' as const };

/** How a gift's purchase stands, as reloads say it (`transaction_status`). */
const STATUS = {
  pending: { status: 'Pending', transaction: { id: 2, name: 'Pending' } },
  scheduled: { status: 'Scheduled', transaction: { id: 1, name: 'Complete' } },
  sent: { status: 'Sent', transaction: { id: 1, name: 'Complete' } },
  claimed: { status: 'Claimed', transaction: { id: 1, name: 'Complete' } },
  declined: { status: 'Declined', transaction: { id: 3, name: 'Declined' } },
} as const;

export function egiftWire(gift: EgiftRecord) {
  const state = STATUS[gift.status];
  return {
    object: 'egift' as const,
    id: gift.id,
    vendor: { id: gift.vendor.id, name: gift.vendor.name, object: 'vendor' as const },
    amount: amountWire(gift.amount, gift.currency),
    currency: currencyRefWire(gift.currency),
    buyer: gift.buyer,
    recipient: gift.recipient,
    message: gift.message,
    image_url: gift.imageUrl,
    billing: { card: maskedCard(gift.card.last4), type: gift.card.brand, user_billingprofile: gift.billingProfileId },
    status: state.status,
    transaction: Number(gift.chargeId),
    transaction_status: state.transaction,
    created: toUnixSeconds(gift.createdAt),
    sent: gift.sentAt === null ? null : toUnixSeconds(gift.sentAt),
    claimed: gift.claimedAt === null ? null : toUnixSeconds(gift.claimedAt),
    send_date: gift.sendAt === null ? null : toUnixSeconds(gift.sendAt),
  };
}

const SEND_DATE = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * `send_date` as clients send it (Unix seconds, digits, ISO 8601 date or time; empty = now) in epoch
 * ms, or null. A date or time without a zone is UTC, like every time of the interface (Date.parse
 * read a zoneless time in the host's zone, so a node in Madrid sent the gift an hour before one in
 * UTC); an impossible date (30 February) is refused, not moved to March.
 */
function sendDateOf(value: number | string | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  const text = String(value).trim();
  if (text === '') return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const refuse = () => new ServiceError('validation_failed', 'send_date must be Unix seconds or an ISO 8601 date.', 'send_date');
  const parts = SEND_DATE.exec(text);
  if (!parts) throw refuse();
  const [, day, time = '00:00', zone = 'Z'] = parts;
  try {
    return parseInstant(`${day}T${time}${zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')}`, 'send_date') ?? null;
  } catch {
    throw refuse();
  }
}

export function egiftClaimWire(claim: ClaimedEgift) {
  return {
    object: 'egift_claim' as const,
    egift: {
      id: claim.egiftId,
      vendor: { id: claim.vendor.id, name: claim.vendor.name, object: 'vendor' as const },
      amount: amountWire(claim.amount, claim.currency),
      currency: currencyRefWire(claim.currency),
      from: claim.from,
      message: claim.message,
      image_url: claim.imageUrl,
      status: 'Claimed' as const,
      claimed: toUnixSeconds(claim.claimedAt),
    },
    transaction_id: claim.transactionId,
    quick_pay: { amount: amountWire(claim.balanceAfter, claim.currency), currency: currencyRefWire(claim.currency) },
  };
}

/** The Idempotency-Key header: 1-200 visible characters, or absent. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  if (key.length < 1 || key.length > 200 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ServiceError('validation_failed', 'The Idempotency-Key header must be 1 to 200 visible characters.', 'Idempotency-Key');
  }
  return key;
}

/**
 * eGifts: buying one for someone (a guest's card, or with session_key a billing profile of the
 * buyer), and claiming one into the logged-in customer's quick-pay balance with the emailed code.
 */
export const egiftRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits: RateLimitSettings }> = async (app, { engine, rateLimits }) => {
  const session = requireSession(engine);
  const bySession = (request: FastifyRequest) => (request.customer ? String(request.customer.userId) : undefined);
  const codeEntry = rateLimited('egift-claim', rateRule(engine, rateLimits.codeEntry, bySession));
  // A guest's card typed into this public call counts against the code-entry limit per IP, like
  // POST /user/billing-profile/add: no one can test stolen numbers against the gateway through it.
  const guestCardLimit = rateLimited('egift-card-entry', rateRule(engine, rateLimits.codeEntry, () => undefined));
  const guestCardEntry = async (request: FastifyRequest, reply: FastifyReply) => {
    const billing = (request.body as { billing?: unknown } | undefined)?.billing;
    if (billing !== undefined && !(typeof billing === 'object' && billing !== null && 'id' in billing && !('number' in billing))) await guestCardLimit(request, reply);
  };

  app.post(
    '/vendor/:vendor_id/egift',
    { config, preValidation: guestCardEntry, schema: { tags, params: EgiftParams, querystring: EgiftQuery, body: EgiftBody, response: { 200: EgiftSchema } } },
    async (request) => {
      const b = request.body;
      const key = request.query.session_key;
      const buyerSession = key === undefined || key === '' ? null : await authenticateSession(engine, key);
      if (b.vendor !== undefined && b.vendor !== request.params.vendor_id) {
        throw new ServiceError('validation_failed', 'vendor in the body must be the vendor_id of the path.', 'vendor');
      }
      const card = b.billing && 'number' in b.billing ? b.billing : undefined;
      const savedCard = b.billing && 'id' in b.billing ? b.billing.id : undefined;
      // An unknown profile is refused under the name the request gave it.
      const profileField = b.user_billingprofile !== undefined ? 'user_billingprofile' : b.user_billingProfile_id !== undefined ? 'user_billingProfile_id' : 'billing.id';
      const gift = await namingProfileField(profileField, sendEgift(engine, {
        vendorId: request.params.vendor_id,
        amount: b.amount,
        buyer: b.buyer,
        recipient: b.recipient,
        message: b.message,
        imageUrl: b.image_url,
        billing: card && { name: card.name, number: card.number, expiry: card.expiry, cvv: card.cvv, zipCode: card.zip_code },
        billingProfileId: b.user_billingprofile ?? b.user_billingProfile_id ?? savedCard,
        sendAt: sendDateOf(b.send_date),
        session: buyerSession,
        idempotencyKey: idempotencyKeyOf(request),
      }));
      return egiftWire(gift);
    },
  );

  app.post(
    '/user/egift/claim',
    { config, preValidation: [session, codeEntry], schema: { tags, querystring: SessionQuery, body: EgiftClaimBody, response: { 200: EgiftClaimSchema } } },
    async (request) => egiftClaimWire(await claimEgift(engine, customerOf(request), request.body.code)),
  );
};
