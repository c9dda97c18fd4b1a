import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { CustomerSession } from '../customers/sessions';
import type { DB } from '../storage/schema';
import { RATEABLE_KINDS } from './feedback-windows';

/**
 * The history record a customer rates or tips: theirs, with this vendor (another customer's or
 * vendor's is a 404 like one that never existed), a completed store purchase.
 */
export async function feedbackTarget(db: Kysely<DB>, session: CustomerSession, transactionId: number) {
  const row = await db
    .selectFrom('transactions')
    .select(['id', 'kind', 'status', 'occurred_at', 'total', 'tip_amount'])
    .where('id', '=', transactionId)
    .where('user_id', '=', session.userId)
    .where('vendor_id', '=', session.vendorId)
    .executeTakeFirst();
  if (!row) throw new ServiceError('transaction_not_found', undefined, 'transaction');
  if (!RATEABLE_KINDS.includes(row.kind) || row.status !== 'Complete') throw new ServiceError('not_rateable', undefined, 'transaction');
  return row;
}
