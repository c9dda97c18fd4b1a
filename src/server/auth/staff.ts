import { tagCredential } from './credential';
import type { FastifyRequest } from 'fastify';
import type { Engine } from '../../core/engine';
import { requirePermission } from '../../core/staff/authorize';
import { authenticateStaffSession, type StaffPrincipal } from '../../core/staff/staff-sessions';
import { BACKGROUND_REQUEST_HEADER, BACKGROUND_REQUEST_VALUE } from '../../shared/background-request';
import { ServiceError } from '../../shared/errors';
import type { StaffPermission } from '../../shared/staff-roles';
import { reachedOrigin } from '../http/request-origin';

declare module 'fastify' {
  interface FastifyRequest {
    staff: StaffPrincipal | null;
  }
}

/**
 * preHandler for the back office: `Authorization: Bearer <staff session token>`, then the role's
 * permission for the call (the node enforces roles; the screens only follow). A call marked
 * `Punchcard-Activity: background` (a screen refreshing by itself) does not move the idle end.
 */
export function requireStaff(engine: Engine, permission?: StaffPermission) {
  return tagCredential(
    async (request: FastifyRequest) => {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!match?.[1]) throw new ServiceError('missing_credentials', 'Sign in to the back office first (Authorization: Bearer <session token>).');
      const staff = await authenticateStaffSession(engine, match[1], { activity: request.headers[BACKGROUND_REQUEST_HEADER] !== BACKGROUND_REQUEST_VALUE });
      if (permission) requirePermission(staff, permission);
      request.staff = staff;
    },
    permission ? { kind: 'staff', permission } : { kind: 'staff' },
  );
}

export function staffOf(request: FastifyRequest): StaffPrincipal {
  if (!request.staff) throw new ServiceError('missing_credentials');
  return request.staff;
}

/**
 * Where emailed links point: the back office at the node's configured public URL (--public-url),
 * else at the address this request reached, never at its Host header. Anyone can ask for a reset
 * with `Host: attacker.example`; a link built from it would hand the emailed token to that host.
 */
export function backOfficeLinkBase(request: FastifyRequest): string {
  return `${request.server.publicUrl ?? reachedOrigin(request)}/admin`;
}

/** Where this node serves the screens (a cashier or kiosk key signs in there), as the node knows its address. */
export function screensUrl(request: FastifyRequest): string {
  return `${request.server.publicUrl ?? reachedOrigin(request)}/`;
}
