import BetterSqlite3 from 'better-sqlite3';
import { composeId } from '../../src/core/storage/ids';
import { COMPACTED_THROUGH } from '../../src/core/sync/central/compact-change-log';

/**
 * The bulk-seeding benches' inserts of a customer and their membership, in plain SQL: seeding a
 * million customers through the use cases would take an hour.
 */
export function prepareCustomerInserts(raw: BetterSqlite3.Database): { user: BetterSqlite3.Statement; link: BetterSqlite3.Statement } {
  const user = raw.prepare(
    `insert into users (id, email, email_key, password_hash, first_name, last_name, phone, first_vendor_id, status, failed_logins, created_at, updated_at)
     values (?, ?, ?, null, ?, ?, ?, ?, 'active', 0, ?, ?)`,
  );
  const link = raw.prepare(
    `insert into user_vendors (id, user_id, vendor_id, contact_consent, language, tier_id, tier_since, reload_amount, reload_threshold, billing_profile_id,
       flagged, referral_code, newsletters, push_endpoints, first_login_at, created_at, updated_at, removed_at)
     values (?, ?, ?, 0, null, ?, ?, 0, 0, null, 0, ?, '{}', '{"gcm":[],"apns":[]}', null, ?, ?, null)`,
  );
  return { user, link };
}

/** Points each seeded member holds (one earn entry): 10 to 499. */
export const seededPoints = (i: number) => 10 + (i % 490);

/**
 * `count` members of the program in a node's SQLite file (customer0@bench.example, …), each with a
 * points balance of seededPoints(i) in one ledger entry, in one plain-SQL transaction (the node
 * must be stopped). Ids come from a range of the node's sequence reserved here. On a central the
 * capture triggers log the rows as any write; the log counts as compacted through them, as a
 * central running all along would have it (they are first versions: nothing to remove).
 */
export function seedMembersWithPoints(file: string, count: number): void {
  const raw = new BetterSqlite3(file);
  try {
    // One transaction of a million rows through a WAL spills gigabytes: the journal in memory, a big cache, back to WAL after.
    raw.pragma('journal_mode = DELETE'); // a WAL database leaves WAL only through a rollback-journal mode
    raw.pragma('journal_mode = MEMORY');
    raw.pragma('synchronous = OFF');
    raw.pragma('cache_size = -1000000');
    const value = <T>(text: string) => (raw.prepare(text).get() as { v: T }).v;
    const nodeId = Number(value<string>("select value as v from node_meta where key = 'node_id'"));
    const vendorId = value<number>('select id as v from vendors order by id limit 1');
    const tierId = value<number>(`select id as v from tiers where vendor_id = ${vendorId} order by threshold, id limit 1`);
    // The program's points: its currency that is not quick pay.
    const currencyId = value<number>(`select c.id as v from currencies c join vendors v on v.id = c.vendor_id where v.id = ${vendorId} and c.id is not v.quick_pay_currency_id order by c.id limit 1`);
    const base = value<number>("select value as v from id_sequences where name = 'objects'");
    raw.prepare("update id_sequences set value = ? where name = 'objects'").run(base + count * 4 + 10);
    const now = Date.now();
    const { user, link } = prepareCustomerInserts(raw);
    const account = raw.prepare(`insert into ledger_accounts (id, vendor_id, currency_id, holder_type, holder_id, balance, updated_at) values (?, ?, ?, 'user', ?, ?, ?)`);
    const entry = raw.prepare(
      `insert into ledger_entries (id, vendor_id, account_id, amount, kind, reference_type, reference_id, reverses_id, origin_node, created_at, expires_at)
       values (?, ?, ?, ?, 'earn', null, null, null, ?, ?, null)`,
    );
    raw.transaction(() => {
      for (let i = 0; i < count; i++) {
        const userId = composeId(nodeId, base + 1 + i * 4);
        const accountId = composeId(nodeId, base + 3 + i * 4);
        const email = `customer${i}@bench.example`;
        user.run(userId, email, email, 'Customer', String(i), `+1202${String(5_000_000 + i).padStart(7, '0')}`, vendorId, now, now);
        link.run(composeId(nodeId, base + 2 + i * 4), userId, vendorId, tierId, now, `r${i}`, now, now);
        account.run(accountId, vendorId, currencyId, userId, seededPoints(i), now);
        entry.run(composeId(nodeId, base + 4 + i * 4), vendorId, accountId, seededPoints(i), nodeId, now);
      }
      const logged = raw.prepare('select max(seq) as v from sync_changes').get() as { v: number | null } | undefined;
      if (logged?.v) raw.prepare(`insert into node_meta (key, value) values (?, ?) on conflict (key) do update set value = excluded.value`).run(COMPACTED_THROUGH, String(logged.v));
    })();
    raw.pragma('journal_mode = WAL');
  } finally {
    raw.close();
  }
}
