import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { acceptInvitation } from '../../core/staff/accept-invitation';
import { setFirstStaffPassword } from '../../core/staff/first-password';
import { type StaffSignIn, signInStaff, signInWithLink } from '../../core/staff/sign-in';
import { toStaffMember, type StaffMember } from '../../core/staff/staff-accounts';
import { applyStaffPasswordReset, requestStaffPasswordReset } from '../../core/staff/staff-password-reset';
import { endAllStaffSessions, endStaffSession } from '../../core/staff/staff-sessions';
import type { PendingInvitation } from '../../core/staff/staff-tokens';
import { EmailBody, PasswordBody, SignInBody, SignOutEverywhereSchema, StaffSchema, StaffSessionSchema, TokenBody, TokenPasswordBody } from '../../shared/schemas/backoffice';
import { EmptyObjectSchema } from '../../shared/schemas/common';
import { toIso } from '../../shared/time';
import { backOfficeLinkBase, requireStaff, staffOf } from '../auth/staff';
import { rateLimited } from '../http/rate-limit';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings, rateRule, validatedField } from '../http/rate-limits';
import { clientKey } from '../http/client-address';

const tags = ['Back office'];
const config = { style: 'resource' as const };

/** A staff member on the wire; `invitation` only where the caller looked it up (the staff list, an invitation). */
export function staffToWire(staff: StaffMember & { invitation?: PendingInvitation | null }) {
  return {
    id: staff.id,
    email: staff.email,
    name: staff.name,
    role: staff.role,
    store_id: staff.storeId,
    status: staff.status,
    date_created: toIso(staff.createdAt),
    date_updated: toIso(staff.updatedAt),
    ...(staff.invitation !== undefined ? { invitation: staff.invitation && { expires_at: toIso(staff.invitation.expiresAt), expired: staff.invitation.expired } } : {}),
  };
}

const sessionToWire = (signIn: StaffSignIn) => ({ token: signIn.token, expires_at: toIso(signIn.expiresAt), staff: staffToWire(signIn.staff) });

/**
 * Staff sign-in, sign-out (here or everywhere), invitations and password resets. `rateLimits`:
 * the node's limits (absent: the defaults).
 */
export const backOfficeAuthRoutes: FastifyPluginAsyncTypebox<{ engine: Engine; rateLimits?: RateLimitSettings }> = async (app, { engine, rateLimits = DEFAULT_RATE_LIMITS }) => {
  // Each request emails the address: limited per client and per email like a customer's reset,
  // on the validated value (preHandler), with its own counter.
  const resetLimit = rateLimited('staff-password-reset', rateRule(engine, rateLimits.passwordReset, validatedField('body', 'email')));
  // The lockout covers one account; this counts per client too, so one password tried across many
  // staff emails (spraying) is limited as well. After validation, like the reset.
  const signInLimit = rateLimited('staff-sign-in', rateRule(engine, rateLimits.staffSignIn, validatedField('body', 'email')));

  app.post('/backoffice/sign-in', { config, preHandler: signInLimit, schema: { tags, body: SignInBody, response: { 200: StaffSessionSchema } } }, async (request) =>
    sessionToWire(await signInStaff(engine, { ...request.body, client: clientKey(request.ip) })),
  );

  app.post('/backoffice/sign-in/link', { config, schema: { tags, body: TokenBody, response: { 200: StaffSessionSchema } } }, async (request) =>
    sessionToWire(await signInWithLink(engine, request.body.token)),
  );

  app.post('/backoffice/invitations/accept', { config, schema: { tags, body: TokenPasswordBody, response: { 200: StaffSessionSchema } } }, async (request) =>
    sessionToWire(await acceptInvitation(engine, request.body)),
  );

  app.post('/backoffice/password-reset', { config, preHandler: resetLimit, schema: { tags, body: EmailBody, response: { 202: EmptyObjectSchema } } }, async (request, reply) => {
    await requestStaffPasswordReset(engine, { email: request.body.email, linkBase: backOfficeLinkBase(request) });
    return reply.code(202).send({});
  });

  app.post('/backoffice/password-reset/confirm', { config, schema: { tags, body: TokenPasswordBody, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await applyStaffPasswordReset(engine, request.body);
    return {};
  });

  const signedIn = requireStaff(engine);

  app.get('/backoffice/me', { config, preValidation: signedIn, schema: { tags, response: { 200: StaffSchema } } }, async (request) => {
    const staff = staffOf(request);
    const row = await engine.db.selectFrom('staff_accounts').selectAll().where('id', '=', staff.staffId).executeTakeFirstOrThrow();
    return { ...staffToWire(toStaffMember(row)), has_password: row.password_hash !== null };
  });

  // The first password of an owner signed in by a one-time link; the session goes on.
  app.post('/backoffice/me/password', { config, preValidation: signedIn, schema: { tags, body: PasswordBody, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await setFirstStaffPassword(engine, { staffId: staffOf(request).staffId, password: request.body.password });
    return {};
  });

  app.post('/backoffice/sign-out', { config, preValidation: signedIn, schema: { tags, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await endStaffSession(engine.db, engine, staffOf(request).sessionId);
    return {};
  });

  app.post('/backoffice/sign-out-everywhere', { config, preValidation: signedIn, schema: { tags, response: { 200: SignOutEverywhereSchema } } }, async (request) => ({
    sessions_ended: await endAllStaffSessions(engine.db, engine, staffOf(request).staffId),
  }));
};
