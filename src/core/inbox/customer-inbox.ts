import { ServiceError } from '../../shared/errors';
import type { CustomerSession } from '../customers/sessions';
import { type Engine, transact } from '../engine';
import { type HistoryPageRequest, planHistoryPage } from '../history/history-page';

export interface InboxMessage {
  id: number;
  kind: string;
  title: string;
  body: string;
  createdAt: number;
  readAt: number | null;
}

export interface InboxPage {
  items: InboxMessage[];
  /** Messages in the whole inbox (deleted ones excluded). */
  count: number;
  unread: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** GET /user/message/list: the customer's inbox with this vendor, newest first, one page, with the unread count. */
export async function listInbox(engine: Engine, session: CustomerSession, request: HistoryPageRequest): Promise<InboxPage> {
  const plan = planHistoryPage(request);
  const base = engine.db.selectFrom('inbox_messages').where('user_id', '=', session.userId).where('vendor_id', '=', session.vendorId).where('deleted_at', 'is', null);
  const [totals, rows] = await Promise.all([
    base
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.count<number>('read_at').as('read')])
      .executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(plan.limit).offset(plan.offset).execute(),
  ]);
  const count = Number(totals.count);
  return {
    items: rows.map((row) => ({ id: row.id, kind: row.kind, title: row.title, body: row.body, createdAt: row.created_at, readAt: row.read_at })),
    count,
    unread: count - Number(totals.read),
    page: plan.page,
    limit: plan.limit,
    totalPages: Math.ceil(count / plan.limit),
  };
}

/**
 * PUT /user/message: marks one of the customer's messages read (or unread again), or deletes it
 * (it leaves the list for good). Another customer's message is a 404 like one that never existed.
 */
export function updateInboxMessage(engine: Engine, session: CustomerSession, change: { messageId: number; read?: boolean | undefined; deleted?: boolean | undefined }): Promise<void> {
  if (change.read === undefined && change.deleted !== true) throw new ServiceError('validation_failed', 'Send read (true or false) or deleted: true.', 'read');
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    const set = change.deleted === true ? { deleted_at: now } : { read_at: change.read ? now : null };
    const done = await trx
      .updateTable('inbox_messages')
      .set(set)
      .where('id', '=', change.messageId)
      .where('user_id', '=', session.userId)
      .where('vendor_id', '=', session.vendorId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw new ServiceError('message_not_found', undefined, 'message');
  });
}
