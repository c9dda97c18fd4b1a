// The payment gateway port: what the engine needs from a card processor. Adapters: the built-in
// test gateway (test-gateway.ts, the default) and Stripe (stripe-gateway.ts). The engine hands a
// card number and CVV to `tokenize` only; it stores the token and the card's public facts, never
// the number or the CVV, and charges tokens afterwards.

/** Why a gateway refused a card or a charge (Stripe's decline codes). */
export const DECLINE_REASONS = [
  'generic_decline',
  'insufficient_funds',
  'lost_card',
  'stolen_card',
  'expired_card',
  'incorrect_cvc',
  'processing_error',
] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

export function isDeclineReason(value: unknown): value is DeclineReason {
  return typeof value === 'string' && (DECLINE_REASONS as readonly string[]).includes(value);
}

/** Why card input was refused before any processor looked at it. */
export type InvalidCardReason = 'invalid_number' | 'invalid_expiry' | 'invalid_cvv';

/** A card as the customer typed it. Lives only in memory for the length of one call. */
export interface CardDetails {
  /** Digits, spaces and dashes allowed. */
  number: string;
  /** 1-12 (two digits usually: "04"). */
  expiryMonth: string;
  /** Four digits ("2030"); two are read as 20xx. */
  expiryYear: string;
  cvv: string;
  /** Cardholder name. */
  name?: string | null;
  postalCode?: string | null;
}

/** What a profile keeps of a card: the gateway's token and the card's public facts. */
export interface TokenizedCard {
  token: string;
  /** Display name of the brand: "Visa", "Mastercard", "American Express"… */
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
  postalCode: string | null;
}

export type TokenizeResult =
  | { status: 'ok'; card: TokenizedCard }
  | { status: 'invalid'; reason: InvalidCardReason; field: 'number' | 'expiry_month' | 'expiry_year' | 'cvv' }
  | { status: 'declined'; reason: DeclineReason };

export type ChargeStatus = 'succeeded' | 'pending' | 'declined';

export interface ChargeRequest {
  token: string;
  /** Integer minor units of `currency`, > 0. */
  amountMinor: number;
  /** ISO 4217 code. */
  currency: string;
  /** The same key twice is the same charge: the gateway answers the first charge again. */
  idempotencyKey: string;
  description?: string;
}

export interface ChargeResult {
  chargeId: string;
  status: ChargeStatus;
  /** Set when status is 'declined'. */
  declineReason?: DeclineReason;
}

/** Part of a charge to give back: minor units of the charge's currency (a multiple of cardAmountStep). */
export interface RefundPart {
  amountMinor: number;
  currency: string;
}

export interface RefundResult {
  refundId: string;
  status: 'succeeded' | 'pending' | 'failed';
}

/** The processor could not be reached or answered nonsense: nothing is known about the outcome. */
export class PaymentGatewayError extends Error {
  constructor(
    message: string,
    readonly retryable = true,
  ) {
    super(message);
    this.name = 'PaymentGatewayError';
  }
}

export interface PaymentGateway {
  /** The adapter's name, stored with each token ('test', 'stripe'). */
  readonly name: string;
  /** Checks the card (card-validator) and asks the processor for a reusable token. */
  tokenize(card: CardDetails, now: number): Promise<TokenizeResult>;
  charge(request: ChargeRequest): Promise<ChargeResult>;
  /** The charge's current state; a pending charge may have completed since. */
  getCharge(chargeId: string): Promise<ChargeResult>;
  /**
   * The charge made under this idempotency key, as it stands now, or null when the processor has
   * none (the request never reached it). How a charge whose answer was lost (the node never learned
   * the processor's charge id) is reconciled without charging again.
   */
  findCharge(idempotencyKey: string): Promise<ChargeResult | null>;
  /**
   * Gives the charge's money back to its card: all of it, or `part` of it (several partial refunds
   * of one charge add up to at most its amount). The same key twice is the same refund. 'failed':
   * the processor refused (nothing was given back); a PaymentGatewayError: the outcome is unknown.
   */
  refund(chargeId: string, idempotencyKey: string, part?: RefundPart): Promise<RefundResult>;
  /**
   * Removes a saved card (a token from tokenize) at the processor, so it can never be charged
   * again: when the customer is erased. A token the processor no longer knows counts as detached;
   * a PaymentGatewayError when it cannot be reached (asked again later).
   */
  detach(token: string): Promise<void>;
}
