import pino, { type Logger } from 'pino';

/**
 * Query parameters that carry credentials, customer secrets or who a customer is; their values never
 * reach a log (an erasure cannot reach a log: `?phone=` of an SMS activation stayed there).
 */
const SECRET_PARAMS = new Set([
  'api_key', 'session_key', 'session_identifier', 'token', 'pin', 'client_secret', 'code', 'password', 'number', 'cvv',
  'email', 'email_address', 'phone', 'phone_number', 'card_number', 'cedula', 'passport_number',
]);

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (SECRET_PARAMS.has(key)) params.set(key, '[redacted]');
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
