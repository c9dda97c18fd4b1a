import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { postInboxMessage } from './post-message';

const TITLE_MAX = 200;
const BODY_MAX = 5000;

/**
 * POST /messages (admin): a message of the program to one member (`userId`) or to every member
 * (`toAll`), copied into each inbox at once. A customer who is not a member is a 404 (another
 * vendor's customers are invisible). Returns how many inboxes got it.
 */
export async function sendProgramMessage(
  engine: Engine,
  scope: VendorScope,
  message: { title: string; body: string; userId?: number | undefined; toAll?: boolean | undefined },
): Promise<{ recipients: number }> {
  const title = message.title.trim();
  const body = message.body.trim();
  if (title === '' || title.length > TITLE_MAX) throw new ServiceError('validation_failed', `title must be 1 to ${TITLE_MAX} characters.`, 'title');
  if (body === '' || body.length > BODY_MAX) throw new ServiceError('validation_failed', `body must be 1 to ${BODY_MAX} characters.`, 'body');
  if ((message.userId === undefined) === (message.toAll !== true)) throw new ServiceError('validation_failed', 'Send either user (one customer) or to: "all".', 'user');
  return transact(engine, async (trx) => {
    let members = trx.selectFrom('user_vendors as uv').innerJoin('users as u', 'u.id', 'uv.user_id').select('uv.user_id').where('uv.vendor_id', '=', scope.vendorId).where('uv.removed_at', 'is', null).where('u.status', '!=', 'deleted');
    if (message.userId !== undefined) members = members.where('uv.user_id', '=', message.userId);
    const rows = await members.execute();
    if (message.userId !== undefined && rows.length === 0) throw new ServiceError('user_not_found', undefined, 'user');
    for (const row of rows) await postInboxMessage(trx, engine, { vendorId: scope.vendorId, userId: row.user_id, kind: 'program', title, body });
    return { recipients: rows.length };
  });
}
