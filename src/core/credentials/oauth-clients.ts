import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { hashSecret, newSecret } from './secrets';

/** An OAuth client of a vendor (client_credentials grant). The secret is returned once, stored hashed. */
export async function addOauthClient(
  db: Kysely<DB>,
  engine: Engine,
  input: { vendorId: number; name: string },
): Promise<{ id: number; clientId: string; clientSecret: string }> {
  const clientId = `pcci_${randomBytes(16).toString('hex')}`;
  const clientSecret = newSecret('pccs');
  const id = await nextObjectId(db, engine.nodeId);
  await db
    .insertInto('oauth_clients')
    .values({
      id,
      vendor_id: input.vendorId,
      client_id: clientId,
      secret_hash: hashSecret(clientSecret),
      name: input.name,
      created_at: engine.clock.now(),
      revoked_at: null,
    })
    .execute();
  return { id, clientId, clientSecret };
}
