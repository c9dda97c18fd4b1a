import { existsSync } from 'node:fs';
import { type PaymentGatewayConfig, paymentGatewayConfigFrom } from '../../core/payments/gateway/select-gateway';
import { ServiceError } from '../../shared/errors';
import { type DataDir, nodeKeyFromEnv } from './data-dir';
import { readFolderRecord } from './folder-record';
import { SettingError } from './setting-error';

/**
 * The settings every node reads from the environment (PUNCHCARD_NODE_KEY, PUNCHCARD_PAYMENT_GATEWAY
 * and its key), checked before anything is opened: a bad one stops the command in one line.
 */
export function checkNodeSettings(env: NodeJS.ProcessEnv): void {
  nodeKeyFromEnv(env);
  paymentGatewayFromEnv(env);
}

export function paymentGatewayFromEnv(env: NodeJS.ProcessEnv): PaymentGatewayConfig {
  try {
    return paymentGatewayConfigFrom(env);
  } catch (error) {
    throw new SettingError((error as Error).message);
  }
}

export const NO_VENDOR_YET = 'This data folder has no vendor yet: run `punchcard init` first (for a central on PostgreSQL, set PUNCHCARD_DATABASE_URL to its database).';

/**
 * A database URL the operator gave (--database, PUNCHCARD_DATABASE_URL) names a PostgreSQL database:
 * anything else — another scheme, a file path — is refused in one line (`mysql://…` was an ENOENT
 * stack trace, a path was quietly opened as a SQLite file). The command line checks its flag and
 * variable with it; the SQLite file is the folder's own.
 */
export function checkDatabaseUrl(url: string | undefined, from: '--database' | 'PUNCHCARD_DATABASE_URL'): void {
  if (url && !/^postgres(ql)?:\/\//.test(url)) {
    throw new SettingError(`${from}: ${JSON.stringify(url)} is not a PostgreSQL URL: give postgres://USER@HOST:PORT/NAME, or leave it unset for the SQLite file in the data folder.`);
  }
}

/**
 * Where a command's database is: the URL given (another scheme than PostgreSQL's is refused), else
 * the folder's SQLite file — refused when the folder records a PostgreSQL database (it would open an empty SQLite file beside it), and, for a
 * command that needs a program already set up (`existing`), when the file is not there yet.
 */
export function databaseLocation(dir: DataDir, url: string | undefined, options: { existing?: boolean } = {}): string {
  if (url) {
    // Another URL scheme is refused (a file path is a program's own choice, as tests make one).
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) checkDatabaseUrl(url, url === (process.env.PUNCHCARD_DATABASE_URL || undefined) ? 'PUNCHCARD_DATABASE_URL' : '--database');
    return url;
  }
  const record = readFolderRecord(dir.root);
  if (record.database === 'postgresql') {
    throw new SettingError(
      record.role === 'central' ? 'this folder is a central on PostgreSQL: set PUNCHCARD_DATABASE_URL to its database' : "this folder's database is on PostgreSQL: set PUNCHCARD_DATABASE_URL to it",
    );
  }
  if (options.existing && !existsSync(dir.database)) throw new ServiceError('vendor_not_found', NO_VENDOR_YET);
  return dir.database;
}
