import pino, { type Logger } from 'pino';

/**
 * Query parameters that carry credentials, customer secrets or who a customer is; their values never
 * reach a log (an erasure cannot reach a log: `?phone=` of an SMS activation stayed there). Searches
 * (`q`, `query`) carry emails, phones and card numbers.
 */
const SECRET_PARAMS = new Set([
  'api_key', 'session_key', 'session_identifier', 'token', 'pin', 'client_secret', 'code', 'password', 'number', 'cvv',
  'email', 'email_address', 'phone', 'phone_number', 'mobile', 'card_number', 'cedula', 'passport_number',
  'q', 'query', 'first_name', 'last_name', 'name', 'birthdate', 'zip_code', 'postal_code',
]);
/** Any parameter named like a credential, whatever else it is called. */
const SECRET_NAME = /token|secret|password|key|pin|cvv/;

/** The parameter's name as the query parser reads it: any case, without a bracket suffix (`api_key[]`, `phone_number[number]`). */
function baseName(key: string): string {
  const bracket = key.indexOf('[');
  return (bracket < 0 ? key : key.slice(0, bracket)).toLowerCase();
}

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...new Set(params.keys())]) {
    const name = baseName(key);
    if (SECRET_PARAMS.has(name) || SECRET_NAME.test(name)) params.set(key, '[redacted]');
  }
  return `${url.slice(0, q)}?${params.toString()}`;
}

export interface LoggerOptions {
  level?: string;
  /** Append JSON lines to this file instead of standard output. */
  file?: string;
}

/** A pino logger whose request lines carry no secrets (query credentials, Authorization headers). */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.file ? pino.destination({ dest: options.file, mkdir: true, sync: false, mode: 0o600 }) : pino.destination(1);
  return pino(
    {
      level: options.level ?? 'info',
      serializers: {
        req: (request: { method: string; url: string; ip?: string }) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
      },
      redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}
