import type BetterSqlite3 from 'better-sqlite3';

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
