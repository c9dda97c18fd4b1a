import { ERROR_CODES, type ErrorCode } from '../../shared/errors';
import type { ApiStyle } from '../errors/envelopes';
import OPERATION_ERRORS from './operation-errors.generated.json';

// The error replies of /openapi.json. Every failure leaves through sendError (errors/error-handler.ts)
// in one of two envelopes, by the route's style: each is one component schema here, and every
// operation's error responses reference the one of its style.

const CODE_DESCRIPTION = 'Stable machine code to branch on (the error table of the document’s description).';

export const ERROR_SCHEMAS = {
  ResourceError: {
    type: 'object' as const,
    description: 'Error reply of the resource-style operations (bearer tokens, back office, sync, /oauth).',
    required: ['internal_code', 'message', 'code'],
    properties: {
      internal_code: { type: 'string' as const, nullable: true, description: 'Reference id of the request on a 5xx (for the operator’s log); null otherwise.' },
      message: { type: 'string' as const, description: 'Safe to show a person.' },
      code: { type: 'string' as const, description: CODE_DESCRIPTION },
      field: { type: 'string' as const, description: 'The request field at fault, when there is one.' },
    },
  },
  LegacyError: {
    type: 'object' as const,
    description: 'Error reply of the legacy-style operations (api_key, session_key, /user, /onscreen, /vendor).',
    required: ['error', 'object'],
    properties: {
      error: {
        type: 'object' as const,
        required: ['code', 'reference_id', 'more_info', 'errors'],
        properties: {
          code: { type: 'integer' as const, description: 'The HTTP status again.' },
          reference_id: { type: 'string' as const, nullable: true, description: 'Reference id of the request (for the operator’s log).' },
          more_info: { type: 'string' as const, nullable: true },
          errors: {
            type: 'array' as const,
            items: {
              type: 'object' as const,
              required: ['reason', 'message'],
              properties: {
                reason: { type: 'string' as const, description: CODE_DESCRIPTION },
                message: { type: 'string' as const, description: 'Safe to show a person.' },
                field: { type: 'string' as const, description: 'The request field at fault, when there is one.' },
              },
            },
          },
        },
      },
      object: { type: 'string' as const, enum: ['error'] },
    },
  },
};

const SCHEMA_OF_STYLE: Record<ApiStyle, keyof typeof ERROR_SCHEMAS> = { resource: 'ResourceError', legacy: 'LegacyError' };

const MEANING: Record<number, string> = {
  409: 'A conflict with what is stored (taken, already done, not in a state to do it, or managed by central at a paired store).',
  415: 'The body is not JSON or form fields (unsupported_media_type: XML, multipart, compressed).',
  422: 'Refused by a rule of the program or of the object (not enough points, a card declined, a window closed…): the request was valid, nothing changed.',
  503: 'Not now: try again later (Retry-After when the node knows how long).',
  400: 'The request is not valid: a parameter or body field missing or wrong (validation_failed names it in `field`), or a refusal of the input.',
  401: 'No credential, or one that is unknown, revoked or expired (missing_credentials, invalid_token, invalid_api_key, invalid_session, …).',
  403: 'A valid credential that may not make this call (forbidden: a key’s role or a staff member’s permission), or a refusal of the account.',
  404: 'Nothing with that id for this caller (another program’s objects are not found either).',
  429: 'Too many tries (rate_limited): wait the seconds of the Retry-After header.',
};

export interface ErrorFacts {
  style: ApiStyle;
  /** It takes parameters or a body. */
  hasInput: boolean;
  /** It takes a path parameter (an id). */
  hasPathId: boolean;
  authenticates: boolean;
  rateLimited: boolean;
  /** The 409, 422 and 503 codes the code it runs can answer (operationAnswers). */
  codes: readonly string[];
  /** The largest body it reads, in bytes (the route's own bodyLimit, else the node's). */
  bodyLimit: number;
}

/** The statuses an operation documents besides its success: what every operation of its kind can answer. */
export function errorStatuses(facts: Omit<ErrorFacts, 'style'>): number[] {
  const statuses = new Set(facts.codes.map((code) => ERROR_CODES[code as ErrorCode].status));
  return [
    ...(facts.hasInput ? [400] : []),
    ...(facts.authenticates ? [401, 403] : []),
    ...(facts.hasPathId ? [404] : []),
    ...(statuses.has(409) ? [409] : []),
    // Every route's body goes through one parser, on every method, GET included (body-parsing.ts).
    413,
    415,
    ...(statuses.has(422) ? [422] : []),
    ...(facts.rateLimited ? [429] : []),
    ...(statuses.has(503) ? [503] : []),
  ];
}

/**
 * The 409, 422 and 503 codes of `METHOD /path`: those the route's code answers (read from it by
 * scripts/generate-operation-errors.ts), and at a paired store central_unreachable on the calls
 * forwarded to central (forward-to-central.ts).
 */
export function operationAnswers(key: string, forwardedToCentral: boolean): string[] {
  const found = (OPERATION_ERRORS as Record<string, string[]>)[key] ?? [];
  return forwardedToCentral ? [...new Set([...found, 'central_unreachable'])].sort() : found;
}

function meaning(status: number, { codes, bodyLimit }: ErrorFacts): string {
  if (status === 413) return `The body is over ${bodyLimit / (1024 * 1024)} MiB (body_too_large).`;
  const own = codes.filter((code) => ERROR_CODES[code as ErrorCode].status === status);
  return own.length === 0 ? MEANING[status]! : `${MEANING[status]} Codes: ${own.map((code) => `\`${code}\``).join(', ')}.`;
}

/** The error responses of an operation, each a reference to its style's envelope. */
export function errorResponses(facts: ErrorFacts): Record<string, unknown> {
  const schema = { $ref: `#/components/schemas/${SCHEMA_OF_STYLE[facts.style]}` };
  return Object.fromEntries(
    errorStatuses(facts).map((status) => [
      String(status),
      {
        description: meaning(status, facts),
        ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' as const } } } } : {}),
        content: { 'application/json': { schema } },
      },
    ]),
  );
}
