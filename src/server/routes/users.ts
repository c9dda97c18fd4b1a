import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateCustomer } from '../../core/customers/authenticate-customer';
import { requestBarcodeToken } from '../../core/customers/barcode-token';
import { cedulaExists, emailExists, mobileAvailable, mobileLookupKey } from '../../core/customers/exists-checks';
import { normaliseNationalId } from '../../core/customers/national-id';
import { logOut } from '../../core/customers/log-out';
import { autoReloadBillingProfile } from '../../core/payments/billing-profiles/billing-profile';
import { loadMembership } from '../../core/customers/membership';
import { applyPasswordReset, requestPasswordReset } from '../../core/customers/password-reset';
import { getProfile, updateProfile } from '../../core/customers/profile';
import { registerCustomer } from '../../core/customers/register-customer';
import { activateAccount, sendEmailVerification, sendSmsVerification, verificationStatus } from '../../core/customers/verification';
import type { Engine } from '../../core/engine';
import { EmptyObjectSchema, toFlag } from '../../shared/schemas/common';
import {
  ActivateQuery,
  AuthenticateBody,
  BarcodeTokenSchema,
  CedulaExistsQuery,
  CedulaExistsSchema,
  EmailExistsQuery,
  EmailExistsSchema,
  LoginSessionSchema,
  MobileExistsQuery,
  MobileExistsSchema,
  ProfileSchema,
  ProfileUpdateBody,
  RegisterBody,
  ResendQuery,
  ResetApplyBody,
  ResetRequestBody,
  SessionQuery,
  TokenRequestBody,
  UserSchema,
  VerificationStatusSchema,
} from '../../shared/schemas/users';
import { toUnixSeconds } from '../../shared/time';
import { customerOf, requireSession } from '../auth/session';
import { barcodeDataUri } from '../http/barcode';
import { requestOrigin } from '../http/request-origin';
import { rateLimited } from '../http/rate-limit';
import { type RateLimitSettings, rateRule, validatedField } from '../http/rate-limits';
import { profileWire, userVendorWire, userWire } from './users-wire';
import { clientKey } from '../http/client-address';

const tags = ['Users'];
const config = { style: 'legacy' as const };

export interface UserRouteOptions {
  engine: Engine;
  rateLimits: RateLimitSettings;
}

/**
 * Keys an exists check's per-value limit on the validated value as the node reads it, so the same
 * number typed another way (+593… or 099…, a cedula with dots) is no fresh count.
 */
function lookedUp(field: 'mobile' | 'cedula', normalise: (value: string, vendorId: number) => string | Promise<string>) {
  return (request: FastifyRequest) => {
    const value = validatedField('query', field)(request);
    return value === undefined ? undefined : normalise(value, (request.query as { vendor: number }).vendor);
  };
}

/** The "Users (legacy style)" section of the interface. */
export const userRoutes: FastifyPluginAsyncTypebox<UserRouteOptions> = async (app, { engine, rateLimits }) => {
  const session = requireSession(engine);
  // Limits keyed on an email, phone or cedula run as preHandler, on the validated value (validatedField).
  const bySession = (request: { customer: { userId: number } | null }) => (request.customer ? String(request.customer.userId) : undefined);
  const limit = {
    login: rateLimited('login', rateRule(engine, rateLimits.login, validatedField('body', 'email_address'))),
    reset: rateLimited('password-reset', rateRule(engine, rateLimits.passwordReset, validatedField('body', 'email_address'))),
    resetApply: rateLimited('reset-apply', rateRule(engine, rateLimits.codeEntry, () => undefined)),
    activate: rateLimited('activate', rateRule(engine, rateLimits.codeEntry, bySession)),
    send: rateLimited('verification-send', rateRule(engine, rateLimits.messageSend, bySession)),
    email: rateLimited('email-exists', rateRule(engine, rateLimits.lookup, validatedField('query', 'email'))),
    mobile: rateLimited('mobile-exists', rateRule(engine, rateLimits.lookup, lookedUp('mobile', (mobile, vendorId) => mobileLookupKey(engine, { mobile, vendorId })))),
    cedula: rateLimited('cedula-exists', rateRule(engine, rateLimits.lookup, lookedUp('cedula', normaliseNationalId))),
    register: rateLimited('register', rateRule(engine, rateLimits.register, validatedField('body', 'email_address'))),
  };
  // A profile change with current_password is a password guess like PUT /user/password: the same counters (account.ts).
  const passwordCheck = rateLimited('password-check', rateRule(engine, rateLimits.login, bySession));
  const profilePasswordCheck = async (request: FastifyRequest, reply: FastifyReply) => {
    if ((request.body as { current_password?: unknown } | undefined)?.current_password !== undefined) await passwordCheck(request, reply);
  };

  app.post('/user/register', { config, preHandler: limit.register, schema: { tags, body: RegisterBody, response: { 200: UserSchema } } }, async (request) => {
    const b = request.body;
    const { user } = await registerCustomer(engine, {
      vendorId: b.vendor,
      firstName: b.first_name,
      lastName: b.last_name,
      email: b.email_address,
      password: b.password,
      terms: toFlag(b.terms) === true,
      anonymous: toFlag(b.anonymous),
      birthdate: b.birthdate,
      language: b.language,
      cedula: b.cedula,
      contactConsent: b.contact_consent,
      phone: b.phone_number,
    });
    return userWire(user);
  });

  app.post(
    '/user/authenticate',
    { config, preHandler: limit.login, schema: { tags, body: AuthenticateBody, response: { 200: LoginSessionSchema } } },
    async (request) => {
      const login = await authenticateCustomer(engine, { email: request.body.email_address, password: request.body.password, vendorId: request.body.vendor, client: clientKey(request.ip) });
      const membership = await loadMembership(engine.db, login.user.id, request.body.vendor);
      return {
        object: 'user_session' as const,
        first_login: login.firstLogin,
        online_order_token: login.onlineOrderToken,
        session_identifier: login.sessionKey,
        vendor_user: null,
        user_vendor: userVendorWire(membership, await autoReloadBillingProfile(engine.db, membership.link)),
      };
    },
  );

  // Real clients log out with GET as well as the contract's POST.
  const logout = { config, preValidation: session, schema: { tags, querystring: SessionQuery, response: { 200: EmptyObjectSchema } } };
  const endLogin = async (request: FastifyRequest) => {
    await logOut(engine, customerOf(request));
    return {};
  };
  app.post('/user/logout', logout, endLogin);
  app.get('/user/logout', logout, endLogin);

  app.post('/user/password-reset/reset', { config, preHandler: limit.reset, schema: { tags, body: ResetRequestBody, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await requestPasswordReset(engine, { email: request.body.email_address, vendorId: request.body.vendor });
    return {};
  });

  app.post('/user/password-reset/apply', { config, preValidation: limit.resetApply, schema: { tags, body: ResetApplyBody, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await applyPasswordReset(engine, request.body);
    return {};
  });

  app.get('/user/profile', { config, preValidation: session, schema: { tags, querystring: SessionQuery, response: { 200: ProfileSchema } } }, async (request) => {
    const profile = await getProfile(engine, customerOf(request));
    // A referral link is shared with others: the node's public address when it has one.
    return profileWire(profile, app.publicUrl ?? requestOrigin(request), await autoReloadBillingProfile(engine.db, profile.link));
  });

  app.put('/user/profile', { config, preValidation: session, preHandler: profilePasswordCheck, schema: { tags, querystring: SessionQuery, body: ProfileUpdateBody, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await updateProfile(engine, customerOf(request), request.body);
    return {};
  });

  app.get('/user/isValidated', { config, preValidation: session, schema: { tags, querystring: SessionQuery, response: { 200: VerificationStatusSchema } } }, async (request) => {
    const status = await verificationStatus(engine, customerOf(request));
    return { isValidated: status.isValidated, phone_number: status.phone, methods: status.methods, status: status.status };
  });

  app.get('/user/activate', { config, preValidation: [session, limit.activate], schema: { tags, querystring: ActivateQuery, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await activateAccount(engine, customerOf(request), request.query.token);
    return {};
  });

  app.get('/user/activate/email', { config, preValidation: [session, limit.send], schema: { tags, querystring: ResendQuery, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await sendEmailVerification(engine, customerOf(request));
    return {};
  });

  app.get('/user/activate/sms', { config, preValidation: [session, limit.send], schema: { tags, querystring: ResendQuery, response: { 200: EmptyObjectSchema } } }, async (request) => {
    await sendSmsVerification(engine, customerOf(request), { phone: request.query.phone, country: request.query.country });
    return {};
  });

  app.get('/user/email/exists', { config, preHandler: limit.email, schema: { tags, querystring: EmailExistsQuery, response: { 200: EmailExistsSchema } } }, async (request) =>
    emailExists(engine, { email: request.query.email, vendorId: request.query.vendor }),
  );

  app.get('/user/mobile/exists', { config, preHandler: limit.mobile, schema: { tags, querystring: MobileExistsQuery, response: { 200: MobileExistsSchema } } }, async (request) =>
    mobileAvailable(engine, { mobile: request.query.mobile, vendorId: request.query.vendor }),
  );

  app.get('/user/cedula/exists', { config, preHandler: limit.cedula, schema: { tags, querystring: CedulaExistsQuery, response: { 200: CedulaExistsSchema } } }, async (request) =>
    cedulaExists(engine, { cedula: request.query.cedula, vendorId: request.query.vendor }),
  );

  app.post(
    '/user/token/request',
    { config, preValidation: session, schema: { tags, querystring: SessionQuery, body: TokenRequestBody, response: { 200: BarcodeTokenSchema } } },
    async (request) => {
      const token = await requestBarcodeToken(engine, customerOf(request), request.body.token_type);
      return {
        id: String(token.id),
        token: token.token,
        barcode: await barcodeDataUri(token.token),
        created: toUnixSeconds(token.createdAt),
        updated: toUnixSeconds(token.createdAt),
        expiry: toUnixSeconds(token.expiresAt),
        status: {},
        type: {},
        user: {},
        vendor: {},
      };
    },
  );
};
