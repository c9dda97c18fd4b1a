import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The CSP of every page the node serves: the screens (`/`, `/admin`), the join page (`/join`) and
 * the API docs (`/docs`). Scripts only from the node's own files (the built screens and Swagger UI
 * have no inline script); Mantine writes its CSS variables in a <style> element and the join page
 * carries its own <style>, so styles allow 'unsafe-inline' (a style cannot run code); images are the
 * node's own and data: URIs (the screens' favicon); fetch and the event streams go to the node's own
 * origin; forms post back to it (join); no page of ours may be framed (clickjacking the screens'
 * buttons).
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Security headers on every reply, written here rather than with @fastify/helmet (not a
 * dependency): `X-Content-Type-Options: nosniff` on all (a JSON reply is never sniffed into HTML);
 * on HTML pages also the CSP above, `X-Frame-Options: DENY` for browsers without frame-ancestors,
 * and `Referrer-Policy: same-origin` (no-referrer would turn the join form's Origin into "null").
 * CORS headers are untouched. Registered on the root instance before the routes, so every route,
 * the 404/405 handler and the error handler pass through it.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    reply.header('x-content-type-options', 'nosniff');
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      reply.header('content-security-policy', PAGE_CSP);
      reply.header('x-frame-options', 'DENY');
      reply.header('referrer-policy', 'same-origin');
    }
    done(null, payload);
  });
}
