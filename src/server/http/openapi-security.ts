import type { RouteOptions } from 'fastify';
import { roleAllows, STAFF_ROLES, type StaffPermission, type StaffRole } from '../../shared/staff-roles';
import { credentialOfRoute, type RouteCredential } from '../auth/credential';

// The credentials of /openapi.json, read from the checks each route runs (credentialOfRoute, the
// same reading the authorization matrix test holds to reality), never from a hand list.

export const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'Resource style: an access token of the program from POST /oauth/access_token (client_credentials).',
  },
  api_key: {
    type: 'apiKey',
    in: 'query',
    name: 'api_key',
    description: 'In-store calls: the API key of a store (cashier, kiosk or integration role; an operation lists the roles it takes in x-api-key-roles).',
  },
  session_key: {
    type: 'apiKey',
    in: 'query',
    name: 'session_key',
    description: 'End-customer calls: the `session_identifier` of POST /user/authenticate (also accepted as `session_identifier`).',
  },
  staff: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'staff session',
    description:
      'Back office: the session token of POST /backoffice/sign-in; the staff member’s role decides which calls it may make (403 forbidden): an operation lists the roles it takes in x-staff-roles (and the permission in x-staff-permission). A store manager’s calls about stores, keys, check-ins and the dashboard are limited to their own store.',
  },
  node: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'pcn_…',
    description: 'Central’s sync endpoints: the credential a store node received when it paired (docs/sync.md).',
  },
} as const;

type SchemeName = keyof typeof SECURITY_SCHEMES;
export type SecurityRequirement = Array<Partial<Record<SchemeName, []>>>;

/** The operation's `security`: `[]` for a public one (open to all), else the schemes any one of which lets the caller in. */
export function securityOf(credential: RouteCredential): SecurityRequirement {
  switch (credential.kind) {
    case 'public':
      return [];
    case 'bearer':
      return [{ bearer: [] }];
    case 'api_key':
      return [{ api_key: [] }];
    case 'session':
      return [{ session_key: [] }];
    case 'session_or_api_key':
      return [{ session_key: [] }, { api_key: [] }];
    case 'staff':
      return [{ staff: [] }];
    case 'node':
      return [{ node: [] }];
  }
}

export interface RouteSecurity {
  security: SecurityRequirement;
  'x-api-key-roles'?: string[];
  /** The staff roles whose permissions include the one the route checks (every role when it checks none). */
  'x-staff-roles'?: StaffRole[];
  'x-staff-permission'?: StaffPermission;
}

/** `security` of a route, plus the API key or staff roles it takes (OpenAPI 3.0 gives apiKey and http schemes no scopes to say it). */
export function routeSecurity(route: Pick<RouteOptions, 'preValidation' | 'preHandler'>): RouteSecurity {
  const credential = credentialOfRoute(route);
  if (credential.kind === 'api_key' || credential.kind === 'session_or_api_key') return { security: securityOf(credential), 'x-api-key-roles': [...credential.roles] };
  if (credential.kind === 'staff') {
    const { permission } = credential;
    const roles = STAFF_ROLES.filter((role) => !permission || roleAllows(role, permission));
    return { security: securityOf(credential), 'x-staff-roles': roles, ...(permission ? { 'x-staff-permission': permission } : {}) };
  }
  return { security: securityOf(credential) };
}

const ROLE_WORDS: Record<StaffRole, string> = { owner: 'owners', manager: 'managers', store_manager: 'store managers' };

/** The sentence /docs adds to a back-office operation's description: who may call it. */
export function staffRolesSentence(security: RouteSecurity): string | null {
  const roles = security['x-staff-roles'];
  if (!roles) return null;
  const words = roles.map((role) => ROLE_WORDS[role]);
  const list = words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : words[0];
  const permission = security['x-staff-permission'];
  return permission ? `Staff: ${list} (permission \`${permission}\`); others get 403 forbidden.` : `Staff: ${list}.`;
}
