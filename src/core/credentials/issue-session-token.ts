import { type Engine, transact } from '../engine';
import { addAccessToken } from './access-tokens';

/** A bearer token that lapses by itself (demo and desktop sessions print or hand out a fresh one). */
export function issueTemporaryAdminToken(engine: Engine, input: { vendorId: number; label: string; ttlSeconds: number }): Promise<{ token: string }> {
  return transact(engine, (trx) => addAccessToken(trx, engine, { vendorId: input.vendorId, oauthClientId: null, label: input.label, ttlSeconds: input.ttlSeconds }));
}
