import { randomBytes } from 'node:crypto';

/** Request ids `req-<8 hex of this process>-<counter>`: the reply's reference_id and its log line's reqId. */
export function requestIds(): () => string {
  const prefix = `req-${randomBytes(4).toString('hex')}-`;
  let counter = 0;
  return () => prefix + (++counter).toString(36);
}
