// Bench target process: a seeded Punchcard node and a bare Fastify route, side by side, so both
// are measured on the same machine in the same run. Prints one JSON line with what to hit.
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { createCurrency } from '../src/core/currencies/create-currency';
import { startEngine } from '../src/core/engine';
import { openSqlite } from '../src/core/storage/database';
import { newPublicId, nextObjectId } from '../src/core/storage/ids';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { buildApp } from '../src/server/app';
import { makeTempDir } from '../test/support/temp-dir';
import { benchLogger } from './request-log';

const CARDS = Number(process.env.BENCH_CARDS ?? 100_000);

const dir = makeTempDir('punchcard-bench-');
const engine = await startEngine({ database: openSqlite(`${dir.path}/bench.db`), nodeKey: randomBytes(32), role: 'store' });
const vendor = await setUpVendor(engine, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'B', address1: '1 B St', city: 'B' } });
const other = await setUpVendor(engine, { name: 'Other', currency: 'USD', country: 'US', store: { name: 'O', address1: '1 O St', city: 'O' } });
const currency = await createCurrency(engine, { vendorId: vendor.vendorId }, { name: 'Stars' });

// Seed cards in large transactions (the use case path is measured by the HTTP runs, not here).
const seedStart = Date.now();
for (const owner of [vendor.vendorId, other.vendorId]) {
  for (let start = 0; start < CARDS; start += 5000) {
    await engine.db.transaction().execute(async (trx) => {
      const rows = [];
      for (let i = start; i < Math.min(start + 5000, CARDS); i++) {
        const number = `C${String(i).padStart(7, '0')}`;
        const now = Date.now();
        rows.push({ id: await nextObjectId(trx, engine.nodeId), public_id: newPublicId('card'), vendor_id: owner, number, number_key: number, pin_sealed: null, data: '{}', status: 'ACTIVE', created_at: now, updated_at: now, deleted_at: null });
      }
      for (let i = 0; i < rows.length; i += 500) await trx.insertInto('cards').values(rows.slice(i, i + 500)).execute();
    });
  }
}
const seedMs = Date.now() - seedStart;

const app = await buildApp({ engine, role: 'store', version: 'bench', ...benchLogger(dir.path) });
const nodeUrl = await app.listen({ port: 0, host: '127.0.0.1' });
const bare = Fastify();
bare.get('/hello', async () => ({ hello: 'world' }));
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

process.stdout.write(
  `${JSON.stringify({ nodeUrl, bareUrl, token: vendor.accessToken, currencyId: currency.publicId, cards: CARDS * 2, seedMs })}\n`,
);
process.on('SIGTERM', async () => {
  await app.close();
  await bare.close();
  await engine.close();
  dir.remove();
  process.exit(0);
});
