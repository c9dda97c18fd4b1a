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
 * Where a command's database is: the URL given, else the folder's SQLite file — refused when the
 * folder records a PostgreSQL database (it would open an empty SQLite file beside it), and, for a
 * command that needs a program already set up (`existing`), when the file is not there yet.
 */
export function databaseLocation(dir: DataDir, url: string | undefined, options: { existing?: boolean } = {}): string {
  if (url) return url;
  const record = readFolderRecord(dir.root);
  if (record.database === 'postgresql') {
    throw new SettingError(
      record.role === 'central' ? 'this folder is a central on PostgreSQL: set PUNCHCARD_DATABASE_URL to its database' : "this folder's database is on PostgreSQL: set PUNCHCARD_DATABASE_URL to it",
    );
  }
  if (options.existing && !existsSync(dir.database)) throw new ServiceError('vendor_not_found', NO_VENDOR_YET);
  return dir.database;
}
