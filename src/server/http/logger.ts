import pino, { type Logger } from 'pino';
import { BatchedDestination } from './log-destination';
import { DEFAULT_LOG_ROTATION, type LogRotation, logFileSize, rotateLogFiles } from './log-file-rotation';

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

/** A parameter's name as the parser decodes it (`api%5Fkey`, `api+key`); a malformed escape stays as sent. */
function decodedName(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/**
 * The URL with the value of every secret parameter replaced by `[redacted]`; the rest as sent.
 * Runs for every logged request: a scan of the query, no parse and rebuild unless it must.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url.slice(q + 1).split('&');
  let redacted = false;
  for (let i = 0; i < params.length; i++) {
    const param = params[i]!;
    const equals = param.indexOf('=');
    const rawName = equals < 0 ? param : param.slice(0, equals);
    const name = baseName(decodedName(rawName));
    if (SECRET_PARAMS.has(name) || SECRET_NAME.test(name)) {
      params[i] = `${rawName}=[redacted]`;
      redacted = true;
    }
  }
  return redacted ? `${url.slice(0, q)}?${params.join('&')}` : url;
}

export interface LoggerOptions {
  level?: string;
  /** Append JSON lines to this file instead of standard output. */
  file?: string;
  /** How big the file grows before it is moved aside, and how many older files are kept. */
  rotation?: LogRotation;
}

/**
 * A pino logger whose request lines carry no secrets: the `req` serializer is the one place a
 * request is shaped for a log (method, URL with secret parameters redacted, client; never headers,
 * so no Authorization). No path redaction on top: pino's walked every line (~1 % of a retrieve).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const rotation = options.file ? { ...(options.rotation ?? DEFAULT_LOG_ROTATION), file: options.file } : undefined;
  // A file already full from the last run starts the new one.
  if (rotation && logFileSize(rotation.file) >= rotation.maxBytes) rotateLogFiles(rotation.file, rotation.keep);
  const destination = new BatchedDestination(rotation ?? 'stdout');
  return pino(
    {
      level: options.level ?? 'info',
      serializers: {
        req: (request: { method: string; url: string; ip?: string }) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
      },
    },
    destination,
  );
}
