import { ServiceError } from '../../shared/errors';
import type { CustomerSession } from '../customers/sessions';
import { type Engine, transact } from '../engine';
import { RATING_WINDOW_MS, secondsLeft } from './feedback-windows';
import { feedbackTarget } from './feedback-target';

export interface Rating {
  transactionId: number;
  /** 1 to 5. */
  value: number;
  comment?: string | null | undefined;
}

const MAX_COMMENT = 1000;

/**
 * POST /user/transaction/rate: the customer rates one of their own store purchases, 1 to 5 with
 * an optional comment, within RATING_WINDOW_MS of it; a later rating in the window replaces it.
 */
export function rateTransaction(engine: Engine, session: CustomerSession, rating: Rating): Promise<void> {
  if (!Number.isInteger(rating.value) || rating.value < 1 || rating.value > 5) {
    throw new ServiceError('validation_failed', 'rating must be a whole number from 1 to 5.', 'rating');
  }
  const comment = rating.comment?.trim() || null;
  if (comment && comment.length > MAX_COMMENT) throw new ServiceError('validation_failed', `comment must be ${MAX_COMMENT} characters at most.`, 'comment');
  return transact(engine, async (trx) => {
    const target = await feedbackTarget(trx, session, rating.transactionId);
    const now = engine.clock.now();
    if (secondsLeft(target.occurred_at, RATING_WINDOW_MS, now) === 0) throw new ServiceError('rating_window_closed', undefined, 'transaction');
    await trx.updateTable('transactions').set({ rating_value: rating.value, rating_comment: comment, rated_at: now }).where('id', '=', target.id).execute();
  });
}
