import { createHash } from 'node:crypto';
import { ServiceError } from '../../../shared/errors';
import { cleanEmail, cleanName, emailKey } from '../../customers/contact';
import { refuseBlockedPayer } from '../../customer-care/blocked';
import { loadUser, loadVendor } from '../../customers/customer-store';
import type { CustomerSession } from '../../customers/sessions';
import { type Engine, transact } from '../../engine';
import { minorWithin, paymentLimitsOf } from '../../rules/settings/payment-limits';
import { isUniqueViolation } from '../../storage/errors';
import { findBillingProfile } from '../billing-profiles/billing-profile';
import { type ChargeRow, refreshCharge, requestCharge } from '../charges/payment-charges';
import { refuseRefundedCharge } from '../exceptions/payout-guard';
import { refuseUnchargeableAmount } from '../gateway/card-amounts';
import { declineError, invalidCardError } from '../gateway/payment-errors';
import { isDeclineReason, PaymentGatewayError } from '../gateway/payment-gateway';
import { quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';
import { type EgiftRecord, loadEgift } from './egift';
import { type EgiftDetails, egiftSettlement, insertGift } from './egift-settlement';

/** How far ahead a buyer may schedule a gift (send_date). */
export const EGIFT_MAX_SCHEDULE_MS = 366 * 24 * 3_600_000;

/** Smallest eGift, in major units of the quick-pay currency; the largest is the program's (payment-limits.ts). */
export const EGIFT_MIN_AMOUNT = 1;
const MESSAGE_MAX = 500;
/** The gateway's card fields as this call names them. */
const BILLING_FIELDS = { number: 'billing.number', expiry_month: 'billing.expiry.month', expiry_year: 'billing.expiry.year', cvv: 'billing.cvv' } as const;
/** A card's postal code: letters, digits, spaces and dashes. */
const POSTAL_CODE = /^[A-Za-z0-9][A-Za-z0-9 -]{0,19}$/;

/** A card typed by a guest buyer; lives only in memory for this call. */
export interface GuestCard {
  name?: string | undefined;
  number: string;
  expiry: { month: string; year: string };
  cvv: string;
  zipCode?: string | undefined;
}

export interface SendEgiftInput {
  vendorId: number;
  /** Major units, as sent. */
  amount: number;
  buyer?: { name?: string | undefined; email?: string | undefined } | undefined;
  recipient: { name?: string | undefined; email?: string | undefined };
  message?: string | null | undefined;
  imageUrl?: string | null | undefined;
  /** A guest eGift: the card to charge. */
  billing?: GuestCard | undefined;
  /** An authenticated eGift: the session's billing profile to charge. */
  billingProfileId?: number | undefined;
  session: CustomerSession | null;
  /** The Idempotency-Key header: the same key and request never charge twice. */
  idempotencyKey?: string | undefined;
  /** When to send it (epoch ms); absent or not in the future: when paid. The card is charged now either way. */
  sendAt?: number | null | undefined;
}

/**
 * POST /vendor/{vendor_id}/egift: charges the amount (a guest's card, tokenized and charged once,
 * or the logged-in buyer's billing profile), records the gift and emails the recipient a claim code
 * (only its digest is kept). A card the gateway declines changes nothing and answers why (422); a
 * card that reports late answers the gift as Pending: retrying the same request with the same
 * Idempotency-Key asks the gateway again, and the node's job does too; the email goes out when the
 * charge succeeds. The same key for another request is 409 idempotency_key_reused.
 */
export async function sendEgift(engine: Engine, input: SendEgiftInput): Promise<EgiftRecord> {
  const vendor = await loadVendor(engine.db, input.vendorId);
  const currency = await quickPayCurrencyOf(engine.db, vendor.id);
  const amountMinor = cleanAmount(input.amount, currency, (await paymentLimitsOf(engine, vendor.id)).egiftMax);
  refuseUnchargeableAmount(amountMinor, currency, 'amount');
  const recipient = {
    name: cleanName(input.recipient.name ?? '', 'recipient.name'),
    email: cleanEmail(input.recipient.email ?? '', 'recipient.email'),
  };
  const message = cleanMessage(input.message);
  const imageUrl = cleanImageUrl(input.imageUrl);
  const sendAt = cleanSendAt(input.sendAt, engine.clock.now());
  if (input.session && input.session.vendorId !== vendor.id) throw new ServiceError('forbidden', 'This session belongs to another program.');
  // A logged-in buyer the program blocked pays with no card, saved or typed (a guest has no account to block).
  if (input.session) await refuseBlockedPayer(engine.db, vendor.id, input.session.userId);
  if (input.billing && input.billingProfileId !== undefined) {
    throw new ServiceError('validation_failed', 'Send either billing (card details) or user_billingprofile, not both.', 'billing');
  }

  let charge: { token: string; userId: number | null; billingProfileId: number | null; card: EgiftDetails['card']; buyer: EgiftDetails['buyer']; scope: string };
  if (input.billingProfileId !== undefined) {
    const session = input.session;
    if (!session) throw new ServiceError('missing_credentials', 'An eGift paid with a billing profile needs the session_key of its owner.');
    const profile = await findBillingProfile(engine.db, { vendorId: vendor.id, userId: session.userId }, input.billingProfileId);
    if (profile.gateway !== engine.payments.name) throw new ServiceError('card_processing_error', 'This saved card belongs to another payment service. Please add it again.', 'user_billingprofile');
    const user = await loadUser(engine.db, session.userId);
    const buyer = {
      name: cleanName(input.buyer?.name ?? `${user.first_name} ${user.last_name}`, 'buyer.name'),
      email: cleanEmail(input.buyer?.email ?? user.email ?? '', 'buyer.email'),
    };
    charge = { token: profile.token, userId: session.userId, billingProfileId: profile.id, card: { brand: profile.brand, last4: profile.last4 }, buyer, scope: `egift:user:${session.userId}` };
  } else if (input.billing) {
    const buyer = { name: cleanName(input.buyer?.name ?? '', 'buyer.name'), email: cleanEmail(input.buyer?.email ?? '', 'buyer.email') };
    const card = input.billing;
    const zip = card.zipCode?.trim() ?? '';
    if (zip !== '' && !POSTAL_CODE.test(zip)) throw new ServiceError('invalid_postal_code', 'The postal code of the card is not valid.', 'billing.zip_code');
    let tokenized;
    try {
      tokenized = await engine.payments.tokenize(
        { number: card.number, expiryMonth: card.expiry.month, expiryYear: card.expiry.year, cvv: card.cvv, name: card.name?.trim() || null, postalCode: zip || null },
        engine.clock.now(),
      );
    } catch (error) {
      if (error instanceof PaymentGatewayError) throw new ServiceError('payment_gateway_unavailable');
      throw error;
    }
    if (tokenized.status === 'invalid') throw invalidCardError(tokenized.reason, BILLING_FIELDS[tokenized.field]);
    if (tokenized.status === 'declined') throw declineError(tokenized.reason, 'billing');
    charge = {
      token: tokenized.card.token,
      userId: input.session?.userId ?? null,
      billingProfileId: null,
      card: { brand: tokenized.card.brand, last4: tokenized.card.last4 },
      buyer,
      scope: input.session ? `egift:user:${input.session.userId}` : 'egift:guest',
    };
  } else {
    throw new ServiceError('validation_failed', 'Send billing (card details) or, with a session_key, user_billingprofile.', 'billing');
  }

  const details: EgiftDetails = {
    vendorId: vendor.id,
    currencyId: currency.id,
    amountMinor,
    buyerUserId: charge.userId,
    billingProfileId: charge.billingProfileId,
    buyer: charge.buyer,
    recipient,
    message,
    imageUrl,
    card: charge.card,
    sendAt,
  };
  const key = input.idempotencyKey?.trim();
  const scopedKey = key ? `${charge.scope}:${key}` : null;
  const settlement = egiftSettlement(engine, details);
  const retried =
    scopedKey === null
      ? undefined
      : await engine.db.selectFrom('payment_charges').select('status').where('vendor_id', '=', vendor.id).where('idempotency_key', '=', scopedKey).executeTakeFirst();
  let row = await requestCharge(
    engine,
    {
      vendorId: vendor.id,
      userId: charge.userId,
      billingProfileId: charge.billingProfileId,
      token: charge.token,
      purpose: 'egift',
      amountMinor,
      currency: currency.code,
      currencyId: currency.id,
      idempotencyKey: scopedKey,
      fingerprint: fingerprintOf(details),
      // A guest has no account to reach them by: staff find the buyer here if the gift never comes of it.
      guestBuyer: charge.userId === null ? charge.buyer : null,
    },
    settlement,
  );
  // A retry of a gift that was still pending: ask the gateway again.
  if (retried?.status === 'pending' && row.status === 'pending') row = await refreshCharge(engine, row, charge.token, settlement);
  return outcomeOf(engine, row, details, charge.billingProfileId === null ? 'billing' : 'user_billingprofile');
}

async function outcomeOf(engine: Engine, row: ChargeRow, details: EgiftDetails, field: string): Promise<EgiftRecord> {
  // Paid without a gift and refunded by staff since: no gift comes of it.
  refuseRefundedCharge(row);
  // `failed`: the gateway never saw the charge and the reconciliation job gave up on it.
  if (row.status === 'declined' || row.status === 'failed') throw declineError(isDeclineReason(row.decline_reason) ? row.decline_reason : 'generic_decline', field);
  // A pending charge got its gift row in the transaction that recorded it (the settlement's
  // `pending` step); a charge an older version left pending without one gets it on this retry.
  if (row.status === 'pending') await recordPendingGift(engine, row, details);
  // A charge whose answer was lost (503, no gift row) and that the reconciliation job found paid:
  // this retry of the same request records the gift and sends it, once.
  if (row.status === 'succeeded') await recordPaidGift(engine, row, details);
  const gift = await engine.db.selectFrom('egifts').select('id').where('charge_id', '=', row.id).executeTakeFirst();
  // `created`: the gateway was never reached (503 already thrown), so there is no gift yet.
  if (!gift) throw new ServiceError('payment_gateway_unavailable');
  return loadEgift(engine.db, gift.id);
}

/** The gift of a paid charge that has none yet (see outcomeOf): recorded and sent, once. */
async function recordPaidGift(engine: Engine, row: ChargeRow, details: EgiftDetails): Promise<void> {
  const existing = await engine.db.selectFrom('egifts').select('id').where('charge_id', '=', row.id).executeTakeFirst();
  if (existing) return;
  try {
    await transact(engine, (trx) => egiftSettlement(engine, details).succeeded!(trx, row));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

/** The gift row of a pending charge, when it has none yet (no code, no email until it settles). */
async function recordPendingGift(engine: Engine, row: ChargeRow, details: EgiftDetails): Promise<void> {
  const existing = await engine.db.selectFrom('egifts').select('id').where('charge_id', '=', row.id).executeTakeFirst();
  if (existing) return;
  try {
    await transact(engine, async (trx) => {
      const again = await trx.selectFrom('egifts').select('id').where('charge_id', '=', row.id).executeTakeFirst();
      if (!again) await insertGift(trx, engine, row, details);
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

function cleanAmount(amount: number, currency: { code: string; digits: number }, maxMinor: number): number {
  if (!Number.isFinite(amount) || amount < EGIFT_MIN_AMOUNT) throw new ServiceError('validation_failed', `amount must be at least ${EGIFT_MIN_AMOUNT}.`, 'amount');
  return minorWithin(amount, currency, maxMinor, 'amount');
}

function cleanSendAt(sendAt: number | null | undefined, now: number): number | null {
  if (sendAt === null || sendAt === undefined || sendAt <= now) return null;
  if (sendAt > now + EGIFT_MAX_SCHEDULE_MS) throw new ServiceError('validation_failed', 'send_date can be at most a year ahead.', 'send_date');
  return sendAt;
}

function cleanMessage(message: string | null | undefined): string | null {
  const text = (message ?? '').trim();
  if (text.length > MESSAGE_MAX) throw new ServiceError('validation_failed', `message must be ${MESSAGE_MAX} characters at most.`, 'message');
  return text === '' ? null : text;
}

function cleanImageUrl(url: string | null | undefined): string | null {
  const text = (url ?? '').trim();
  if (text === '') return null;
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) throw new ServiceError('validation_failed', 'image_url must be an http(s) URL.', 'image_url');
  return text;
}

/** What the request asked for, without anything secret: a key reused for another gift is a 409. */
function fingerprintOf(d: EgiftDetails): string {
  const what = ['egift', d.amountMinor, emailKey(d.recipient.email), d.recipient.name, emailKey(d.buyer.email), d.billingProfileId ?? `${d.card.brand}:${d.card.last4}`, d.message ?? ''];
  // Appended only when set, so keys of gifts sent at once keep their fingerprint.
  if (d.sendAt !== null) what.push(d.sendAt);
  return createHash('sha256').update(JSON.stringify(what)).digest('hex');
}
