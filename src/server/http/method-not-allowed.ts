import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The methods the routes are declared with (HEAD comes with every GET); OPTIONS is CORS's, on every path. */
const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The methods the request's path answers to, for a request no route matched: empty for a path
 * nobody serves (a 404), else the path exists under other methods (a 405 with this as `Allow`).
 * OPTIONS is added to a path that exists: the CORS plugin answers it everywhere, so it is not asked.
 * Runs only for unmatched requests: a router lookup per method.
 */
export function allowedMethods(app: FastifyInstance, request: FastifyRequest): string[] {
  const url = request.url;
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const allowed: string[] = ROUTE_METHODS.filter((method) => method !== request.method && app.findRoute({ method, url: path }) !== null);
  return allowed.length === 0 ? allowed : [...allowed, 'OPTIONS'];
}
