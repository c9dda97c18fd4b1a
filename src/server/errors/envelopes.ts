import { ServiceError } from '../../shared/errors';

/** Which reply style a path belongs to: resource style for the bearer-token resources and /oauth. */
export type ApiStyle = 'resource' | 'legacy';

const RESOURCE_PREFIXES = ['/currencies', '/cards', '/earning-rules', '/rewards', '/tiers', '/program', '/oauth', '/openapi', '/docs', '/health', '/sync', '/backoffice', '/stores'];

export function styleOfPath(url: string): ApiStyle {
  const path = url.split('?')[0] ?? '';
  return RESOURCE_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`) || path.startsWith(`${p}.`)) ? 'resource' : 'legacy';
}

export function resourceEnvelope(error: ServiceError, referenceId: string | null) {
  return {
    internal_code: error.status >= 500 ? referenceId : null,
    message: error.message,
    code: error.code,
    ...(error.field !== undefined ? { field: error.field } : {}),
  };
}

export function legacyEnvelope(error: ServiceError, referenceId: string | null) {
  return {
    error: {
      code: error.status,
      reference_id: referenceId,
      more_info: null,
      errors: [{ reason: error.code, message: error.message, ...(error.field !== undefined ? { field: error.field } : {}) }],
    },
    object: 'error' as const,
  };
}
