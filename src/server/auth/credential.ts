import type { FastifyInstance, RouteOptions } from 'fastify';
import { ServiceError } from '../../shared/errors';
import type { ApiKeyRole } from '../../shared/roles';
import type { StaffPermission } from '../../shared/staff-roles';

/**
 * Which credential a route takes, read from the checks it runs (each check is tagged with what it
 * checks). The authorization matrix test walks every route by this, so a new route is covered the
 * day it is added, and a route without any check shows up as public.
 */
export type RouteCredential =
  | { kind: 'public' }
  | { kind: 'bearer' }
  | { kind: 'api_key'; roles: readonly ApiKeyRole[] }
  | { kind: 'session' }
  | { kind: 'session_or_api_key'; roles: readonly ApiKeyRole[] }
  /** A back-office staff session (Authorization: Bearer of /backoffice sign-in); the permission its role needs, when one is checked. */
  | { kind: 'staff'; permission?: StaffPermission }
  /** A paired store node's credential (Authorization: Bearer pcn_…), on central's sync endpoints. */
  | { kind: 'node' };

const CREDENTIAL = Symbol('credential');

type Tagged = { [CREDENTIAL]?: RouteCredential };

export function tagCredential<F extends (...args: never[]) => unknown>(check: F, credential: RouteCredential): F {
  (check as Tagged)[CREDENTIAL] = credential;
  return check;
}

export function credentialOfRoute(route: Pick<RouteOptions, 'preValidation' | 'preHandler'>): RouteCredential {
  const hooks = [route.preValidation, route.preHandler].flatMap((hook) => (Array.isArray(hook) ? hook : hook ? [hook] : []));
  for (const hook of hooks) {
    const credential = (hook as Tagged)[CREDENTIAL];
    if (credential) return credential;
  }
  return { kind: 'public' };
}

/** Runs `check` before validation on every route of the plugin `app` (a whole section behind one credential). */
export function requireOnEveryRoute(app: FastifyInstance, check: NonNullable<RouteOptions['preValidation']>): void {
  app.addHook('onRoute', (route) => {
    const own = route.preValidation ? (Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation]) : [];
    route.preValidation = [check as never, ...own];
  });
}

export interface CatalogRoute {
  method: string;
  url: string;
  credential: RouteCredential;
}

/**
 * Records every route as it is added. Credentials are read when listed, after every plugin's own
 * onRoute hooks (which run after this one) have added theirs.
 */
export function recordRoutes(app: FastifyInstance): () => CatalogRoute[] {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(route);
  });
  return () =>
    routes.flatMap((route) =>
      (Array.isArray(route.method) ? route.method : [route.method]).filter((method) => method !== 'HEAD').map((method) => ({ method, url: route.url, credential: credentialOfRoute(route) })),
    );
}

/** A credential named twice in the query string: which one to use is not ours to guess. */
export function givenTwice(name: string): ServiceError {
  return new ServiceError('validation_failed', `${name} is given more than once.`, name);
}
