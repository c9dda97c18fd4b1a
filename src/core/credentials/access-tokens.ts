import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { type Engine, transact } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { hashSecret, newSecret, secretMatches } from './secrets';

/** Lifetime of a token obtained with client credentials. CLI-issued admin tokens do not expire. */
export const OAUTH_TOKEN_TTL_SECONDS = 3600;

export interface NewAccessToken {
  vendorId: number;
  oauthClientId: number | null;
  label: string;
  /** null: valid until revoked. */
  ttlSeconds: number | null;
}

export async function addAccessToken(db: Kysely<DB>, engine: Engine, input: NewAccessToken): Promise<{ token: string; expiresAt: number | null }> {
  const token = newSecret('pcat');
  const now = engine.clock.now();
  const expiresAt = input.ttlSeconds === null ? null : now + input.ttlSeconds * 1000;
  await db
    .insertInto('access_tokens')
    .values({
      id: await nextObjectId(db, engine.nodeId),
      vendor_id: input.vendorId,
      oauth_client_id: input.oauthClientId,
      token_hash: hashSecret(token),
      scope: 'admin',
      label: input.label,
      created_at: now,
      expires_at: expiresAt,
      revoked_at: null,
    })
    .execute();
  return { token, expiresAt };
}

/** POST /oauth/access_token with grant_type=client_credentials. */
export async function exchangeClientCredentials(
  engine: Engine,
  input: { clientId: string; clientSecret: string },
): Promise<{ accessToken: string; expiresIn: number }> {
  return transact(engine, async (trx) => {
    const client = await trx
      .selectFrom('oauth_clients')
      .select(['id', 'vendor_id', 'secret_hash'])
      .where('client_id', '=', input.clientId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!client || !secretMatches(input.clientSecret, client.secret_hash)) throw new ServiceError('invalid_client');
    const { token } = await addAccessToken(trx, engine, {
      vendorId: client.vendor_id,
      oauthClientId: client.id,
      label: 'client_credentials',
      ttlSeconds: OAUTH_TOKEN_TTL_SECONDS,
    });
    return { accessToken: token, expiresIn: OAUTH_TOKEN_TTL_SECONDS };
  });
}

/** A long-lived admin token for a vendor, issued from the CLI. */
export function issueAdminToken(engine: Engine, input: { vendorId: number; label: string }): Promise<{ token: string }> {
  return transact(engine, async (trx) => {
    const vendor = await trx.selectFrom('vendors').select('id').where('id', '=', input.vendorId).executeTakeFirst();
    if (!vendor) throw new ServiceError('validation_failed', `No vendor ${input.vendorId} exists.`, 'vendor');
    return addAccessToken(trx, engine, { vendorId: input.vendorId, oauthClientId: null, label: input.label, ttlSeconds: null });
  });
}
