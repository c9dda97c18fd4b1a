import { Type } from 'typebox';
import { DEFAULT_PAGE_LIMIT, FlagSchema, MAX_PAGE_LIMIT, Nullable } from './common';

// The customer inbox (legacy style, Unix seconds) and the program's admin call that fills it
// (resource style).

export const InboxListQuery = Type.Object({
  session_key: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'page number, the first page is 1' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, description: `1-${MAX_PAGE_LIMIT}, default ${DEFAULT_PAGE_LIMIT}` })),
});

export const InboxMessageSchema = Type.Object({
  object: Type.Literal('message'),
  id: Type.Integer(),
  kind: Type.String({ description: 'program (sent by the vendor), welcome, tier, reward or egift' }),
  title: Type.String(),
  body: Type.String({ description: 'plain text' }),
  created: Type.Integer({ description: 'Unix seconds' }),
  read: Type.Boolean(),
  read_at: Nullable(Type.Integer({ description: 'Unix seconds' })),
});

export const InboxListSchema = Type.Object({
  object: Type.Literal('collection'),
  count: Type.Integer({ description: 'messages in the whole inbox' }),
  unread: Type.Integer({ description: 'unread messages in the whole inbox' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_pages: Type.Integer(),
  next_page_url: Nullable(Type.String()),
  previous_page_url: Nullable(Type.String()),
  data: Type.Array(InboxMessageSchema, { description: 'newest first' }),
});

export const InboxUpdateBody = Type.Object({
  message: Type.Union([Type.Integer({ minimum: 1 }), Type.Object({ id: Type.Integer({ minimum: 1 }) })], { description: 'the message id (or {id})' }),
  read: Type.Optional(Type.Union(FlagSchema.anyOf, { description: 'true (or 1): mark read; false (or 0): unread again' })),
  deleted: Type.Optional(Type.Union(FlagSchema.anyOf, { description: 'true (or 1): delete it from the inbox' })),
});

export const SendMessageBody = Type.Object({
  title: Type.String({ maxLength: 200 }),
  body: Type.String({ maxLength: 5000, description: 'plain text' }),
  user: Type.Optional(Type.Integer({ minimum: 1, description: 'one customer (user id); or send to: "all"' })),
  to: Type.Optional(Type.Literal('all', { description: 'every member of the program' })),
});

export const SendMessageSchema = Type.Object({
  object: Type.Literal('message_send'),
  recipients: Type.Integer({ description: 'inboxes that got the message' }),
  date_created: Type.String({ format: 'date-time' }),
});
