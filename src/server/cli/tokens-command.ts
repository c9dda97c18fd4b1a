import { type Command, InvalidArgumentError } from 'commander';
import { actorWithoutStaff } from '../../core/audit/record-audit';
import { type BearerRevocation, listBearerCredentials, revokeBearerCredentials } from '../../core/credentials/revoke-bearer-credentials';
import { ServiceError } from '../../shared/errors';
import { toIso } from '../../shared/time';
import { DATA_FOLDER_HELP, openFolderEngine } from './folder-checks';
import { parseVendorId } from './store-command';
import { vendorOfNode } from './stores-command';

function parseTokenId(value: string): number {
  const id = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(id) || id <= 0) throw new InvalidArgumentError('a token id is a whole number (see `punchcard tokens list`).');
  return id;
}

interface RevokeOptions {
  data: string;
  vendor?: number;
  id?: number;
  label?: string;
  client?: string;
  json?: boolean;
}

/** Exactly one of --id, --label, --client names what to revoke. */
function revocationOf(options: RevokeOptions): BearerRevocation {
  const given = [options.id !== undefined, options.label !== undefined, options.client !== undefined].filter(Boolean).length;
  if (given !== 1) throw new ServiceError('validation_failed', 'Name what to revoke with one of --id <token id>, --label <text> or --client <client id>.');
  if (options.id !== undefined) return { tokenId: options.id };
  if (options.label !== undefined) return { label: options.label };
  return { clientId: options.client! };
}

/**
 * `punchcard tokens list|revoke`: a vendor's admin bearer tokens and OAuth clients, and their
 * revocation. `punchcard init` and `punchcard token` issue tokens valid until revoked; this is how.
 */
export function registerTokensCommand(program: Command): void {
  const tokens = program.command('tokens').description("List and revoke a program's admin bearer tokens and OAuth clients (a token or client secret that leaked). A central on PostgreSQL: set PUNCHCARD_DATABASE_URL to its database.");

  tokens
    .command('list')
    .description('List the live tokens (id, label, client, created, expires; never the token itself) and OAuth clients.')
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .option('--vendor <id>', 'vendor id (default: the only one)', parseVendorId)
    .option('--json', 'print {"tokens": […], "clients": […]}')
    .action(async (options: { data: string; vendor?: number; json?: boolean }) => {
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const listed = await listBearerCredentials(engine, await vendorOfNode(engine, options.vendor));
        const wire = {
          tokens: listed.tokens.map((t) => ({ id: t.id, label: t.label, client_id: t.clientId, created_at: toIso(t.createdAt), expires_at: t.expiresAt === null ? null : toIso(t.expiresAt) })),
          clients: listed.clients.map((c) => ({ client_id: c.clientId, name: c.name, created_at: toIso(c.createdAt) })),
        };
        if (options.json) {
          process.stdout.write(`${JSON.stringify(wire)}\n`);
          return;
        }
        for (const t of wire.tokens) process.stdout.write(`token  ${t.id}  ${t.label}  ${t.client_id ?? 'cli'}  created ${t.created_at}  ${t.expires_at === null ? 'never expires' : `expires ${t.expires_at}`}\n`);
        for (const c of wire.clients) process.stdout.write(`client  ${c.client_id}  ${c.name}  created ${c.created_at}\n`);
      } finally {
        await engine.close();
      }
    });

  tokens
    .command('revoke')
    .description('Revoke one token (--id), every token with a label (--label), or an OAuth client and the tokens it issued (--client). Refused at once by every node process.')
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .option('--vendor <id>', 'vendor id (default: the only one)', parseVendorId)
    .option('--id <id>', 'token id (see `punchcard tokens list`)', parseTokenId)
    .option('--label <text>', 'every live token with this label')
    .option('--client <client id>', 'an OAuth client (pcci_…): its secret mints no more tokens')
    .option('--json', 'print {"tokens_revoked", "clients_revoked"}')
    .action(async (options: RevokeOptions) => {
      const what = revocationOf(options);
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const vendorId = await vendorOfNode(engine, options.vendor);
        const done = await revokeBearerCredentials(engine, actorWithoutStaff(vendorId, 'cli'), what);
        process.stdout.write(options.json ? `${JSON.stringify({ tokens_revoked: done.tokens, clients_revoked: done.clients })}\n` : `revoked ${done.tokens} token(s), ${done.clients} client(s)\n`);
      } finally {
        await engine.close();
      }
    });
}
