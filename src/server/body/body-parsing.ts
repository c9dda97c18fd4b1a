import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from '../../shared/errors';
import { isUtf8 } from 'node:buffer';
import { isJsonMediaType, requireReadableMediaType } from './accepted-media-types';
import { decodeBody } from './decode-body';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * One parser for every content type, on every method. Fastify does not read bodies of GET
 * requests, so a hook reads those itself; for GET, body fields fill in query parameters that the
 * query string did not carry (legacy clients put lookups in either place).
 */
export function registerBodyParsing(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    try {
      done(null, decodeBody(readableText(request, utf8Text(body as Buffer)), { rows: request.url.startsWith('/sync/push'), json: isJsonMediaType(request.headers['content-type']) }));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // A callback hook, not an async one: every request passes here, and only a GET with a body waits.
  app.addHook('preValidation', (request, _reply, done) => {
    // No body at all reads as {}, so validation names the missing field rather than "body".
    if (request.method !== 'GET') {
      request.body ??= {};
      done();
    } else if (!hasBody(request)) done();
    else readGetBody(request).then(() => done(), done);
  });
}

async function readGetBody(request: FastifyRequest): Promise<void> {
  const body = decodeBody(readableText(request, await readRaw(request)), { json: isJsonMediaType(request.headers['content-type']) });
  request.body = body;
  if (isPlainObject(body)) request.query = { ...body, ...(request.query as Record<string, unknown>) };
}

/** The body's text, once its content type is one the node reads (an empty body of any type reads as {}). */
function readableText(request: FastifyRequest, text: string): string {
  // A test for any non-space character stops at the first one; trim() copied every body.
  if (/\S/.test(text)) {
    requireReadableMediaType(request.headers['content-type']);
    requireIdentityEncoding(request.headers['content-encoding']);
  }
  return text;
}

/** The node decodes no compressed body: one marked gzip (or an unknown `zz`) was read as if plain. */
function requireIdentityEncoding(encoding: string | undefined): void {
  if (encoding === undefined || encoding.trim() === '' || encoding.trim().toLowerCase() === 'identity') return;
  throw new ServiceError('unsupported_media_type', 'The request body must not be compressed (Content-Encoding): send it as plain JSON or form fields.');
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

async function readRaw(request: FastifyRequest): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT_BYTES) throw new ServiceError('body_too_large');
    chunks.push(chunk as Buffer);
  }
  return utf8Text(Buffer.concat(chunks));
}

/** A body's text; bytes that are not UTF-8 are refused (decoded, they became "�" in the stored names). */
function utf8Text(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new ServiceError('invalid_request', 'The request body is not UTF-8 text.');
  return bytes.toString('utf8');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
