import { createHmac, timingSafeEqual } from 'node:crypto';

// `Punchcard-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, one v1 per
// secret that is valid at the time (two during the 24 hours after a rotation).

export const SIGNATURE_HEADER = 'Punchcard-Signature';

export function signPayload(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signPayload(secret, timestamp, body)}`)].join(',');
}

/**
 * What a receiver does (docs/decisions.md shows the same steps): true when one v1 matches the
 * body under `secret` and t is within `toleranceSeconds` of `nowSeconds` (older requests are
 * replays).
 */
export function verifySignature(header: string, body: string, secret: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = header.split(',').map((part) => part.trim().split('='));
  const t = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signPayload(secret, t, body), 'hex');
  return parts
    .filter(([key, value]) => key === 'v1' && value !== undefined)
    .some(([, value]) => {
      const given = Buffer.from(value!, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
