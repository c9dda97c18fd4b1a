import { type ErrorCode, ServiceError } from '../../../shared/errors';
import { type DeclineReason, type InvalidCardReason, isDeclineReason } from './payment-gateway';

// Gateway outcomes as the service's errors: one stable machine code per decline reason.

export const DECLINE_ERROR_CODES: Readonly<Record<DeclineReason, ErrorCode>> = {
  generic_decline: 'card_declined',
  insufficient_funds: 'insufficient_funds',
  lost_card: 'card_lost',
  stolen_card: 'card_stolen',
  expired_card: 'card_expired',
  incorrect_cvc: 'incorrect_cvc',
  processing_error: 'card_processing_error',
};

const INVALID_CARD_CODES: Readonly<Record<InvalidCardReason, ErrorCode>> = {
  invalid_number: 'invalid_payment_card',
  invalid_expiry: 'invalid_card_expiry',
  invalid_cvv: 'invalid_card_cvv',
};

/**
 * The machine code clients see for a declined charge's stored reason (`generic_decline` is
 * `card_declined`): the reload reply, the history's receipts and the reload webhooks say the same.
 */
export function declineCode(reason: string | null): ErrorCode {
  return DECLINE_ERROR_CODES[isDeclineReason(reason) ? reason : 'generic_decline'];
}

/** A 422 naming why the card was declined (card_declined, insufficient_funds, card_lost…). */
export function declineError(reason: DeclineReason, field?: string): ServiceError {
  return new ServiceError(DECLINE_ERROR_CODES[reason] ?? 'card_declined', undefined, field);
}

/** A 400 naming the card field at fault (the number, the expiry or the CVV). */
export function invalidCardError(reason: InvalidCardReason, field: string): ServiceError {
  return new ServiceError(INVALID_CARD_CODES[reason], undefined, field);
}
