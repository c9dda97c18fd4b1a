import { ServiceError } from '../../shared/errors';
import { type Actor, recordAudit } from '../audit/record-audit';
import { type Engine, transact } from '../engine';

/** A bearer token as `punchcard tokens list` shows it: never the token, which only its holder has. */
export interface ListedAccessToken {
  id: number;
  label: string;
  /** The OAuth client that minted it (client_credentials), null for a CLI token. */
  clientId: string | null;
  createdAt: number;
  expiresAt: number | null;
}

export interface ListedOauthClient {
  clientId: string;
  name: string;
  createdAt: number;
}

/** The vendor's live bearer tokens (not revoked, not expired) and OAuth clients. */
export async function listBearerCredentials(engine: Engine, vendorId: number): Promise<{ tokens: ListedAccessToken[]; clients: ListedOauthClient[] }> {
  const now = engine.clock.now();
  const tokens = await engine.db
    .selectFrom('access_tokens as t')
    .leftJoin('oauth_clients as c', 'c.id', 't.oauth_client_id')
    .select(['t.id', 't.label', 'c.client_id', 't.created_at', 't.expires_at'])
    .where('t.vendor_id', '=', vendorId)
    .where('t.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', now)]))
    .orderBy('t.created_at')
    .orderBy('t.id')
    .execute();
  const clients = await engine.db
    .selectFrom('oauth_clients')
    .select(['client_id', 'name', 'created_at'])
    .where('vendor_id', '=', vendorId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return {
    tokens: tokens.map((t) => ({ id: t.id, label: t.label, clientId: t.client_id, createdAt: t.created_at, expiresAt: t.expires_at })),
    clients: clients.map((c) => ({ clientId: c.client_id, name: c.name, createdAt: c.created_at })),
  };
}

/** Which bearer credentials to revoke: one token by id, every token with a label, or an OAuth client. */
export type BearerRevocation = { tokenId: number } | { label: string } | { clientId: string };

/**
 * Revokes a vendor's bearer credentials: admin tokens are "valid until revoked" (`punchcard init`,
 * `punchcard token`) and an OAuth client's secret mints tokens for ever, yet nothing revoked either
 * but SQL (found by the tenth round's attacker run: a leaked `init` JSON was the program's admin for
 * good). A revoked client also revokes the tokens it minted, which else live out their hour. Every
 * process refuses a revoked token at its next call (the credential cache follows the vendor's
 * version, which a token's write moves). Audited; a token id or label that matches no live token is refused (validation_failed).
 */
export async function revokeBearerCredentials(engine: Engine, actor: Actor, what: BearerRevocation): Promise<{ tokens: number; clients: number }> {
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    let clients = 0;
    let tokens = trx.updateTable('access_tokens').set({ revoked_at: now }).where('vendor_id', '=', actor.vendorId).where('revoked_at', 'is', null);
    if ('clientId' in what) {
      const client = await trx.selectFrom('oauth_clients').select(['id', 'revoked_at']).where('vendor_id', '=', actor.vendorId).where('client_id', '=', what.clientId).executeTakeFirst();
      if (!client) throw new ServiceError('validation_failed', `This vendor has no OAuth client ${what.clientId}.`, 'client');
      if (client.revoked_at === null) {
        await trx.updateTable('oauth_clients').set({ revoked_at: now }).where('id', '=', client.id).execute();
        clients = 1;
      }
      tokens = tokens.where('oauth_client_id', '=', client.id);
    } else if ('tokenId' in what) {
      tokens = tokens.where('id', '=', what.tokenId);
    } else {
      tokens = tokens.where('label', '=', what.label);
    }
    const revoked = Number((await tokens.executeTakeFirst()).numUpdatedRows);
    if (revoked === 0 && clients === 0 && !('clientId' in what)) throw new ServiceError('validation_failed', 'No live token of this vendor matches: `punchcard tokens list` shows them.', 'token');
    const objectId = 'clientId' in what ? what.clientId : 'tokenId' in what ? what.tokenId : what.label;
    await recordAudit(trx, engine, actor, {
      action: 'clientId' in what ? 'oauth_client.revoke' : 'access_token.revoke',
      objectType: 'clientId' in what ? 'oauth_client' : 'access_token',
      objectId,
      before: null,
      after: { tokens_revoked: revoked, clients_revoked: clients },
    });
    return { tokens: revoked, clients };
  });
}
