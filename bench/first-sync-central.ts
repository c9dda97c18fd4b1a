// Bench target for bench/first-sync.ts: a central node (SQLite) holding BENCH_FIRST_SYNC_CUSTOMERS
// customers (default 1M), each a member of the program with a points balance (one ledger entry),
// on HTTP in its own process. Prints one JSON line: its address, a cashier key and a pairing code.
import { issuePairingCode } from '../src/core/sync/central/pairing';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { startStoreNode } from '../src/server/node/store-node';
import { seedMembersWithPoints } from '../test/support/seed-customers';
import { makeTempDir } from '../test/support/temp-dir';

const CUSTOMERS = Number(process.env.BENCH_FIRST_SYNC_CUSTOMERS ?? 1_000_000);
const dir = makeTempDir('punchcard-bench-first-sync-central-');

// The program, made by the use cases on a central node's first start.
let central = await startStoreNode({ dataDir: dir.path, role: 'central', port: 0 });
const vendor = await setUpVendor(central.engine, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'Bench Store', address1: '1 Bench St', city: 'Bench' } });
await central.close();

// A million customers through the use cases would take an hour: plain SQL in one transaction.
const seedStart = Date.now();
seedMembersWithPoints(`${dir.path}/punchcard.db`, CUSTOMERS);
const seedMs = Date.now() - seedStart;

central = await startStoreNode({ dataDir: dir.path, role: 'central', port: 0 });
const { code } = await issuePairingCode(central.engine, vendor.vendorId, vendor.storeId);
process.stdout.write(`${JSON.stringify({ url: central.url, apiKey: vendor.apiKey, code, customers: CUSTOMERS, seedMs })}\n`);

const stop = async () => {
  await central.close();
  dir.remove();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();
