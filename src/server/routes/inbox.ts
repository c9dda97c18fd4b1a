import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { type InboxMessage, listInbox, updateInboxMessage } from '../../core/inbox/customer-inbox';
import { sendProgramMessage } from '../../core/inbox/send-program-message';
import { EmptyObjectSchema, toFlag } from '../../shared/schemas/common';
import { InboxListQuery, InboxListSchema, InboxUpdateBody, SendMessageBody, SendMessageSchema } from '../../shared/schemas/inbox';
import { SessionQuery } from '../../shared/schemas/users';
import { toIso, toUnixSeconds } from '../../shared/time';
import { requireBearer, vendorOf } from '../auth/bearer';
import { customerOf, requireSession } from '../auth/session';
import { pageLinks } from '../http/page-links';

const tags = ['Inbox'];

function messageWire(message: InboxMessage) {
  return {
    object: 'message' as const,
    id: message.id,
    kind: message.kind,
    title: message.title,
    body: message.body,
    created: toUnixSeconds(message.createdAt),
    read: message.readAt !== null,
    read_at: message.readAt === null ? null : toUnixSeconds(message.readAt),
  };
}

/**
 * The customer inbox (GET /user/message/list, PUT /user/message) and the program's call that
 * sends to it (POST /messages, bearer): messages the vendor writes, and the program's own
 * (welcome, tier reached, reward ready, eGift received; core/inbox/announce.ts).
 */
export const inboxRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const session = requireSession(engine);
  const legacy = { style: 'legacy' as const };

  app.get('/user/message/list', { config: legacy, preValidation: session, schema: { tags, querystring: InboxListQuery, response: { 200: InboxListSchema } } }, async (request) => {
    const page = await listInbox(engine, customerOf(request), { page: request.query.page, limit: request.query.limit });
    const links = pageLinks(request, { items: page.items, page: page.page, limit: page.limit, hasMore: page.page < page.totalPages });
    return {
      object: 'collection' as const,
      count: page.count,
      unread: page.unread,
      page: page.page,
      page_size: page.limit,
      total_pages: page.totalPages,
      next_page_url: links.next,
      previous_page_url: links.prev,
      data: page.items.map(messageWire),
    };
  });

  app.put('/user/message', { config: legacy, preValidation: session, schema: { tags, querystring: SessionQuery, body: InboxUpdateBody, response: { 200: EmptyObjectSchema } } }, async (request) => {
    const { message, read, deleted } = request.body;
    await updateInboxMessage(engine, customerOf(request), { messageId: typeof message === 'number' ? message : message.id, read: toFlag(read), deleted: toFlag(deleted) });
    return {};
  });

  app.post(
    '/messages',
    {
      config: { style: 'resource' as const },
      preValidation: requireBearer(engine),
      schema: { tags, security: [{ bearer: [] }], body: SendMessageBody, response: { 201: SendMessageSchema } },
    },
    async (request, reply) => {
      const { title, body, user, to } = request.body;
      const sent = await sendProgramMessage(engine, vendorOf(request), { title, body, userId: user, toAll: to === 'all' });
      return reply.code(201).send({ object: 'message_send' as const, recipients: sent.recipients, date_created: toIso(engine.clock.now()) });
    },
  );
};
