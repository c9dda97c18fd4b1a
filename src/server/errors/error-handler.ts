import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isTransientFailure } from '../../core/storage/errors';
import { isServiceError, ServiceError } from '../../shared/errors';
import { type ApiStyle, legacyEnvelope, resourceEnvelope, styleOfPath } from './envelopes';
import { BUSY_RETRY_SECONDS, unavailableDatabaseReply } from './unavailable';
import { describeValidation } from './validation-message';
import { allowedMethods } from '../http/method-not-allowed';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error envelope of the route; defaults from the path. */
    style?: ApiStyle;
  }
}

/**
 * Every failure leaves through here: a ServiceError keeps its code and status; a validation
 * failure becomes 400 validation_failed naming the field (and so does a character of the request
 * the database cannot store); a database out of reach or a disk that cannot be written is 503
 * database_unavailable or storage_unavailable with Retry-After (unavailable.ts); another failure
 * of the moment (a deadlock that outlived its retries, a timeout, the database busy) is 503
 * service_unavailable, to be tried again, logged with its stack; anything unexpected is logged
 * with its stack and answered as a bare 500 with a reference id, never the stack.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // The database out of reach or its disk unwritable: 503 to try again, logged once for the operator.
    const unavailable = isServiceError(error) ? null : unavailableDatabaseReply(error, request);
    if (unavailable) return sendError(request, reply, unavailable);
    const serviceError = toServiceError(error, request);
    // A refusal the engine makes on purpose (central unreachable, a first sync under way) is a
    // warning without a stack; anything else at 500 and above is a failure to look into.
    if (serviceError.status >= 500 && isServiceError(error)) request.log.warn({ code: error.code }, error.message);
    else if (serviceError.status >= 500) request.log.error({ err: error }, 'request failed');
    else if (isUnstorableText(error)) request.log.warn({ err: error }, 'the database refused a character of the request');
    return sendError(request, reply, serviceError);
  });
  app.setNotFoundHandler((request, reply) => {
    // A path served under other methods is 405 with Allow (method-not-allowed.ts); an unknown one stays 404.
    const allowed = allowedMethods(app, request);
    if (allowed.length === 0) return sendError(request, reply, new ServiceError('route_not_found', `There is no ${request.method} ${request.url.split('?')[0]} endpoint.`));
    reply.header('allow', allowed.join(', '));
    return sendError(request, reply, new ServiceError('method_not_allowed', `${request.url.split('?')[0]} does not take ${request.method}: it takes ${allowed.join(', ')}.`));
  });
}

/** Errors the router raises before any route runs (bad percent-encoding, over-long path parts). */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A part of the URL is too long.' : 'The URL is not valid.';
  return sendError(request, reply, new ServiceError('invalid_request', message));
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ServiceError) {
  const style = request.routeOptions?.config?.style ?? styleOfPath(request.url);
  const referenceId = String(request.id);
  const body = style === 'resource' ? resourceEnvelope(error, referenceId) : legacyEnvelope(error, referenceId);
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(error.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
}

function toServiceError(error: FastifyError, request: FastifyRequest): ServiceError {
  if (isServiceError(error)) return error;
  if (error.validation) return fromValidation(error, request);
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ServiceError('body_too_large');
  if (isUnstorableText(error)) return new ServiceError('validation_failed', 'A field of the request holds a character that cannot be stored.');
  if (isTransientFailure(error)) return Object.assign(new ServiceError('service_unavailable', 'The service is busy right now. Please try again in a moment.'), { retryAfterSeconds: BUSY_RETRY_SECONDS });
  const status = error.statusCode ?? 500;
  if (status === 415) return new ServiceError('unsupported_media_type');
  if (status >= 400 && status < 500) return new ServiceError('invalid_request');
  return new ServiceError('internal_error');
}

/**
 * PostgreSQL refused a character of the text it was given: NUL (22021) or a \u0000 escape (22P05).
 * The input checks refuse NUL before any route runs; this backstop keeps a path they miss a 400.
 */
function isUnstorableText(error: FastifyError): boolean {
  return error.code === '22021' || error.code === '22P05';
}

function fromValidation(error: FastifyError, request: FastifyRequest): ServiceError {
  const failure = describeValidation(error.validation, error.validationContext);
  if (!failure) return new ServiceError('validation_failed');
  // A body field sent in the query string instead (DELETE /onscreen?pos_session_hash=…): say where it belongs.
  const missing = error.validation?.[0]?.keyword === 'required' ? error.validation[0].params['missingProperty'] : undefined;
  if (error.validationContext === 'body' && typeof missing === 'string' && missing === failure.field && Object.hasOwn((request.query as object | undefined) ?? {}, missing)) {
    return new ServiceError('validation_failed', `${missing} is required in the request body (it was sent in the query string).`, failure.field);
  }
  return new ServiceError('validation_failed', failure.message, failure.field);
}
