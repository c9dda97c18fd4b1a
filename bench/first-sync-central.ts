// Bench target for bench/first-sync.ts: a central node (SQLite) holding BENCH_FIRST_SYNC_CUSTOMERS
// customers (default 1M), each a member of the program with a points balance (one ledger entry),
// on HTTP in its own process. Prints one JSON line: its address, a cashier key and a pairing code.
import BetterSqlite3 from 'better-sqlite3';
import { prepareCustomerInserts } from './seed-customers';
import { composeId } from '../src/core/storage/ids';
import { issuePairingCode } from '../src/core/sync/central/pairing';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { startStoreNode } from '../src/server/node/store-node';
import { makeTempDir } from '../test/support/temp-dir';

const CUSTOMERS = Number(process.env.BENCH_FIRST_SYNC_CUSTOMERS ?? 1_000_000);
const dir = makeTempDir('punchcard-bench-first-sync-central-');

// The program, made by the use cases on a central node's first start.
let central = await startStoreNode({ dataDir: dir.path, role: 'central', port: 0 });
const vendor = await setUpVendor(central.engine, { name: 'Bench', currency: 'USD', country: 'US', store: { name: 'Bench Store', address1: '1 Bench St', city: 'Bench' } });
const tier = await central.engine.db.selectFrom('tiers').select('id').where('vendor_id', '=', vendor.vendorId).executeTakeFirstOrThrow();
const nodeId = central.engine.nodeId;
await central.close();

// A million customers through the use cases would take an hour: plain SQL in one transaction.
// Ids come from a range of the sequence reserved here. (Rows seeded this way are not in central's
// change log; the snapshot reads the tables, and the log after its cursor is what changed since.)
const seedStart = Date.now();
const raw = new BetterSqlite3(`${dir.path}/punchcard.db`);
// Seeding only: the journal in memory, a big cache (one transaction of millions of rows through a WAL spills
// gigabytes), back to WAL before the node opens it again.
raw.pragma('journal_mode = DELETE'); // a WAL database leaves WAL only through a rollback-journal mode
raw.pragma('journal_mode = MEMORY');
raw.pragma('synchronous = OFF');
raw.pragma('cache_size = -1000000');
const base = Number((raw.prepare("select value from id_sequences where name = 'objects'").get() as { value: number }).value);
raw.prepare("update id_sequences set value = ? where name = 'objects'").run(base + CUSTOMERS * 4 + 10);
const now = Date.now();
const { user, link } = prepareCustomerInserts(raw);
const account = raw.prepare(`insert into ledger_accounts (id, vendor_id, currency_id, holder_type, holder_id, balance, updated_at) values (?, ?, ?, 'user', ?, ?, ?)`);
const entry = raw.prepare(
  `insert into ledger_entries (id, vendor_id, account_id, amount, kind, reference_type, reference_id, reverses_id, origin_node, created_at, expires_at)
   values (?, ?, ?, ?, 'earn', null, null, null, ?, ?, null)`,
);
raw.transaction(() => {
  for (let i = 0; i < CUSTOMERS; i++) {
    const userId = composeId(nodeId, base + 1 + i * 4);
    const accountId = composeId(nodeId, base + 3 + i * 4);
    const points = 10 + (i % 490);
    user.run(userId, `customer${i}@bench.example`, `customer${i}@bench.example`, 'Customer', String(i), `+1202${String(5_000_000 + i).padStart(7, '0')}`, vendor.vendorId, now, now);
    link.run(composeId(nodeId, base + 2 + i * 4), userId, vendor.vendorId, tier.id, now, `r${i}`, now, now);
    account.run(accountId, vendor.vendorId, vendor.loyaltyCurrencyId, userId, points, now);
    entry.run(composeId(nodeId, base + 4 + i * 4), vendor.vendorId, accountId, points, nodeId, now);
  }
})();
raw.pragma('journal_mode = WAL');
raw.close();
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
