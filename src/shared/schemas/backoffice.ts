import { type TSchema, Type } from 'typebox';
import { IsoTimestamp, Nullable } from './common';

// Wire shapes of the back office (/backoffice/*): the screens at /admin and scripts of the staff use them.

export const StaffRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('store_manager')]);

export const StaffSchema = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: StaffRoleSchema,
  store_id: Nullable(Type.Integer()),
  status: Type.Union([Type.Literal('invited'), Type.Literal('active'), Type.Literal('disabled')]),
  date_created: IsoTimestamp,
  date_updated: IsoTimestamp,
});

export const StaffSessionSchema = Type.Object({
  token: Type.String({ description: 'send as Authorization: Bearer <token> to /backoffice/*' }),
  expires_at: IsoTimestamp,
  staff: StaffSchema,
});

export const SignInBody = Type.Object({ email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: 256 }) });
export const TokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
export const TokenPasswordBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Type.String({ maxLength: 256 }) });
export const EmailBody = Type.Object({ email: Type.String({ maxLength: 254 }) });

export const InviteBody = Type.Object({
  email: Type.String({ maxLength: 254 }),
  name: Type.String({ maxLength: 200 }),
  role: Type.String({ maxLength: 20, description: 'owner, manager or store_manager' }),
  store_id: Type.Optional(Nullable(Type.Integer())),
});

export const StaffUpdateBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  role: Type.Optional(Type.String({ maxLength: 20 })),
  store_id: Type.Optional(Nullable(Type.Integer())),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])),
});

export const NumericIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export const SignOutEverywhereSchema = Type.Object({ sessions_ended: Type.Integer() });

export const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  staff_id: Nullable(Type.Integer()),
  actor: Type.String(),
  action: Type.String(),
  object_type: Type.String(),
  object_id: Type.String(),
  before: Type.Unknown(),
  after: Type.Unknown(),
  date_created: IsoTimestamp,
});

const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1-100, default 25' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'items to skip, default 0' })),
};

export const OffsetPageQuery = Type.Object(paging);

export const AuditQuery = Type.Object({ ...paging, object_type: Type.Optional(Type.String({ maxLength: 40 })) });

export const offsetPageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });
