import { randomBytes } from 'node:crypto';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { type Engine, startEngine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { installChangeCapture } from '../../src/core/sync/capture/install-capture';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from './clock';
import { openTestPostgres } from './postgres';

/** Central on a fresh PostgreSQL with capture installed, a vendor, and one check-in row to copy (tests of its bulk insert). */
export async function centralWithACheckIn(name: string): Promise<{ pgdb: Awaited<ReturnType<typeof openTestPostgres>>; engine: Engine; template: Record<string, unknown> }> {
  const pgdb = await openTestPostgres();
  const engine = await startEngine({ database: pgdb.database, nodeKey: randomBytes(32), clock: new ManualClock(), role: 'central' });
  await installChangeCapture(engine.db, engine.dialect, 'central');
  const vendor = await setUpVendor(engine, { name, currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
  const { session } = await registerInStore(engine, await authenticateApiKey(engine, vendor.apiKey), { email: `ana@${name.toLowerCase().replaceAll(' ', '-')}.test` });
  const template = (await engine.db.selectFrom('pos_sessions').selectAll().where('hash', '=', session.hash).executeTakeFirstOrThrow()) as Record<string, unknown>;
  return { pgdb, engine, template };
}
