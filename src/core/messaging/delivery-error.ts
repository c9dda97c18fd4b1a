/**
 * A failed delivery, as a transport classifies it. `permanent`: retrying the same message cannot
 * succeed (the server rejected the recipient or the message: SMTP 5xx to RCPT/DATA, a malformed
 * address), so the worker gives up at once. Anything else (connection refused, timeouts, 4xx,
 * authentication or TLS problems of the server link) is transient and retried with backoff.
 */
export class MessageDeliveryError extends Error {
  readonly permanent: boolean;
  constructor(message: string, options: { permanent: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MessageDeliveryError';
    this.permanent = options.permanent;
  }
}

/** True when an error says retrying cannot help; unknown errors are transient. */
export function isPermanentFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { permanent?: unknown }).permanent === true;
}

const MAX_ERROR_LENGTH = 500;

/**
 * The text kept in `last_error` and logs: one line, at most 500 characters, with credentials in
 * URLs and the message's own secrets (its parameters: tokens, codes) replaced by [redacted].
 */
export function describeFailure(error: unknown, secrets: readonly string[] = []): string {
  let text = error instanceof Error ? error.message || error.name : String(error);
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && !text.includes(code)) text = `${code}: ${text}`;
  text = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1[redacted]@');
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 4) text = text.split(secret).join('[redacted]');
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}
