import type { Generated } from 'kysely';

// The database as Kysely sees it. One schema for SQLite and PostgreSQL: ids and times are integers
// (times in epoch milliseconds), money is integer minor units, JSON is stored as text, flags as 0/1.

export interface NodeMetaTable {
  key: string;
  value: string;
}

export interface IdSequencesTable {
  name: string;
  value: number;
}

export interface VendorsTable {
  id: number;
  name: string;
  country: string;
  language: string;
  quick_pay_currency_id: number | null;
  /** JSON array of ISO 3166-1 alpha-2 codes the vendor serves; null = all. */
  countries: string | null;
  /** JSON array of enabled verification methods ("Email", "Sms"); the column has a default. */
  verification_methods: Generated<string>;
  /** Earned points expire this many days after earning; null: never. */
  points_expiry_days: number | null;
  offline_quick_pay_per_order: Generated<number | null>;
  offline_quick_pay_per_day: Generated<number | null>;
  offline_points_per_order: Generated<number | null>;
  offline_points_per_day: Generated<number | null>;
  /** Points credited to a member for each customer who joins through their referral link (0: none). */
  referral_points: Generated<number>;
  /** Largest eGift and largest single reload, minor units of the quick-pay currency; null: its default. */
  egift_max_amount: Generated<number | null>;
  reload_max_amount: Generated<number | null>;
  /** The loyalty currency the program's tiers count (migration 0050); null: its first loyalty currency (rules/tiers/tier-currency.ts). */
  tier_currency_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface StoresTable {
  id: number;
  vendor_id: number;
  name: string;
  address1: string;
  address2: string | null;
  city: string;
  region: string | null;
  country: string;
  postal_code: string | null;
  phone: string | null;
  latitude: number | null;
  longitude: number | null;
  /** JSON object of opening hours. */
  hours: string | null;
  /** IANA time zone the hours are read in (migration 0014; 'UTC' for older stores). */
  time_zone: Generated<string>;
  /** 'active' (listed) or 'inactive' (migration 0014). */
  status: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface PointsOfSaleTable {
  id: number;
  vendor_id: number;
  store_id: number;
  name: string;
  status: string;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: number;
  vendor_id: number;
  store_id: number;
  pos_id: number | null;
  role: string;
  key_hash: string;
  key_hint: string;
  label: string;
  error_mode: string;
  workstation_identifier: string | null;
  created_at: number;
  revoked_at: number | null;
  /** Last call made with the key, to the minute (migration 0014). */
  last_used_at: Generated<number | null>;
}

export interface OauthClientsTable {
  id: number;
  vendor_id: number;
  client_id: string;
  secret_hash: string;
  name: string;
  created_at: number;
  revoked_at: number | null;
}

export interface AccessTokensTable {
  id: number;
  vendor_id: number;
  oauth_client_id: number | null;
  token_hash: string;
  scope: string;
  label: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export interface CurrenciesTable {
  id: number;
  public_id: string;
  vendor_id: number;
  name: string;
  name_key: string;
  code: string | null;
  status: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface CardsTable {
  id: number;
  public_id: string;
  vendor_id: number;
  number: string;
  number_key: string;
  pin_sealed: string | null;
  data: string;
  status: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface EarningRulesTable {
  id: number;
  vendor_id: number;
  currency_id: number;
  name: string;
  points: number;
  per_amount: number;
  rounding: string;
  max_award: number | null;
  public_id: string | null;
  starts_at: number | null;
  ends_at: number | null;
  status: string;
  created_at: number;
  updated_at: number;
}

export interface LedgerAccountsTable {
  id: number;
  vendor_id: number;
  currency_id: number;
  holder_type: string;
  holder_id: number;
  balance: number;
  updated_at: number;
}

export interface LedgerEntriesTable {
  id: number;
  vendor_id: number;
  account_id: number;
  amount: number;
  kind: string;
  reference_type: string | null;
  reference_id: string | null;
  reverses_id: number | null;
  origin_node: number;
  created_at: number;
  expires_at: number | null;
}

export interface SyncEventsTable {
  node_seq: number;
  event_id: string;
  node_id: number;
  type: string;
  version: number;
  payload: string;
  offline: number;
  created_at: number;
  acked_at: number | null;
  verdict: string | null;
  verdict_code: string | null;
  verdict_message: string | null;
}

export interface MessagesOutboxTable {
  id: number;
  vendor_id: number | null;
  channel: string;
  recipient: string;
  template: string;
  locale: string;
  params: string | null;
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
  /** The customer the message was for (migration 0038); null for staff, guests and older messages. */
  user_id: Generated<number | null>;
  /** Claims of it found still `sending` after their lease: its sending stopped the node (migration 0049). */
  interrupted_sends: Generated<number>;
}

export interface TiersTable {
  id: number;
  vendor_id: number;
  name: string;
  summary: string;
  description: string;
  threshold: number;
  /** Points earned in the last window_days count toward the threshold; null: all time. */
  window_days: number | null;
  public_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface UsersTable {
  id: number;
  email: string | null;
  email_key: string | null;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  phone: string | null;
  cedula: string | null;
  passport_number: string | null;
  birthdate: number | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  region_id: number | null;
  country_id: number | null;
  postal_code: string | null;
  pet_name: string | null;
  pet_birthdate: number | null;
  email_verified_at: number | null;
  phone_verified_at: number | null;
  first_vendor_id: number;
  status: string;
  failed_logins: number;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
  merged_into: Generated<number | null>;
}

export interface UserVendorsTable {
  id: number;
  user_id: number;
  vendor_id: number;
  contact_consent: number;
  language: string | null;
  tier_id: number | null;
  tier_since: number;
  reload_amount: number;
  reload_threshold: number;
  billing_profile_id: number | null;
  flagged: number;
  flagged_reason: Generated<string | null>;
  referral_code: string;
  newsletters: string;
  push_endpoints: string;
  first_login_at: number | null;
  created_at: number;
  updated_at: number;
  removed_at: number | null;
  /** 1: the counter enrolled an account of another program, not yet confirmed by the customer (0011). */
  counter_enrolled: Generated<number>;
  /** When the program blocked the customer (refused at check-in and orders); null: not blocked (0018). */
  blocked_at: Generated<number | null>;
  blocked_reason: Generated<string | null>;
}

export interface MetadataFieldsTable {
  id: number;
  vendor_id: number;
  name: string;
  validation: string | null;
  input_type: string | null;
  created_at: number;
}

export interface UserMetadataTable {
  id: number;
  user_vendor_id: number;
  field_id: number;
  value: string;
  updated_at: number;
}

export interface UserSessionsTable {
  id: number;
  user_id: number;
  vendor_id: number;
  key_hash: string;
  order_token_hash: string;
  created_at: number;
  expires_at: number;
  ended_at: number | null;
}

export interface OneTimeCodesTable {
  id: number;
  user_id: number;
  vendor_id: number;
  purpose: string;
  code_hash: string;
  target: string | null;
  attempts: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface BarcodeTokensTable {
  id: number;
  user_id: number;
  vendor_id: number;
  token_hash: string;
  token_type: number;
  created_at: number;
  expires_at: number;
}

export interface UserCardsTable {
  id: number;
  user_id: number;
  vendor_id: number;
  card_id: number;
  status: string;
  created_at: number;
  updated_at: number;
  removed_at: number | null;
}

export interface VendorContentTable {
  id: number;
  vendor_id: number;
  slug: string;
  language: string;
  title: string;
  content: string;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface PosSessionsTable {
  id: number;
  hash: string;
  vendor_id: number;
  store_id: number;
  pos_id: number | null;
  user_id: number;
  status: string;
  identified_by: string;
  card_number: string | null;
  opened_by: string;
  table_number: string | null;
  created_at: number;
  updated_at: number;
  closed_at: number | null;
  closed_reason: string | null;
  /** When a kiosk last identified the customer; null when the last identification was not a kiosk's (migration 0034). */
  kiosk_identified_at: number | null;
}

export interface SpendingRulesTable {
  id: number;
  public_id: string;
  vendor_id: number;
  currency_id: number;
  name: string;
  summary: string;
  description: string;
  cost: number;
  status: string;
  starts_at: number | null;
  ends_at: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface OrdersTable {
  id: number;
  vendor_id: number;
  store_id: number;
  pos_id: number | null;
  user_id: number;
  session_id: number | null;
  receipt_number: string;
  till: number | null;
  subtotal: number;
  total: number;
  taxes: string;
  items: string;
  payment_method: string | null;
  ordered_at: number;
  quick_pay_used: number;
  points_earned: number;
  points_spent: number;
  redemptions: string;
  status: string;
  reply: string;
  void_reply: string | null;
  created_at: number;
  voided_at: number | null;
  offline: Generated<number>;
}

export interface TransactionsTable {
  id: number;
  vendor_id: number;
  user_id: number;
  store_id: number | null;
  order_id: number | null;
  kind: string;
  occurred_at: number;
  total: number;
  quick_pay_used: number;
  quick_pay_loaded: number;
  quick_pay_balance: number;
  items: string;
  taxes: string;
  receipts: string;
  rewards: string;
  status: string;
  created_at: number;
  /** 1-5, set by POST /user/transaction/rate within the rating window. */
  rating_value: number | null;
  rating_comment: string | null;
  rated_at: number | null;
  /** Minor units; recorded only, no money moves (docs/decisions.md). */
  tip_amount: number | null;
  tipped_at: number | null;
}

export interface InboxMessagesTable {
  id: number;
  vendor_id: number;
  user_id: number;
  /** 'program' | 'welcome' | 'tier' | 'reward' | 'egift'. */
  kind: string;
  title: string;
  body: string;
  dedupe_key: string | null;
  created_at: number;
  read_at: number | null;
  deleted_at: number | null;
}

export interface PromotionsTable {
  id: number;
  public_id: string;
  vendor_id: number;
  code: string;
  code_key: string;
  name: string;
  description: string;
  points: number | null;
  currency_id: number | null;
  reward_id: number | null;
  starts_at: number | null;
  ends_at: number | null;
  total_cap: number | null;
  per_customer_cap: number;
  awarded_count: number;
  /** 'ACTIVE' | 'PAUSED'. */
  status: string;
  created_at: number;
  updated_at: number;
}

export interface PromotionAwardsTable {
  id: number;
  promotion_id: number;
  vendor_id: number;
  user_id: number;
  transaction_id: number;
  created_at: number;
}

export interface BillingProfilesTable {
  id: number;
  vendor_id: number;
  user_id: number;
  /** The gateway adapter that issued the token ('test', 'stripe'). */
  gateway: string;
  token: string;
  brand: string;
  last4: string;
  expiry_month: number;
  expiry_year: number;
  postal_code: string | null;
  name: string;
  description: string | null;
  /** 0/1. */
  is_default: number;
  expiry_reminded_at: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface PaymentChargesTable {
  id: number;
  vendor_id: number;
  user_id: number | null;
  billing_profile_id: number | null;
  purpose: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  /**
   * The quick-pay currency (currencies.id) the charge was made in, which its credit goes to
   * (migration 0009; null only for an older charge no currency of its vendor matched).
   */
  currency_id: number | null;
  gateway: string;
  gateway_charge_id: string | null;
  idempotency_key: string | null;
  fingerprint: string;
  status: string;
  decline_reason: string | null;
  transaction_id: number | null;
  credited_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  /** A guest eGift buyer's contact as the purchase took it (migration 0041), for staff to reach them; null otherwise. Never card data. */
  buyer_name: string | null;
  buyer_email: string | null;
}

export interface AutoReloadsTable {
  id: number;
  vendor_id: number;
  user_id: number;
  billing_profile_id: number;
  amount: number;
  threshold: number;
  order_id: number | null;
  status: string;
  charge_id: number | null;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

export interface TestGatewayCardsTable {
  token: string;
  brand: string;
  last4: string;
  scenario: string;
  created_at: number;
}

export interface TestGatewayChargesTable {
  id: string;
  token: string;
  amount: number;
  currency: string;
  idempotency_key: string;
  status: string;
  decline_reason: string | null;
  outcome: string | null;
  outcome_reason: string | null;
  polls: number;
  complete_after_polls: number | null;
  completes_at: number | null;
  refunded_at: number | null;
  created_at: number;
}

export interface EgiftsTable {
  id: number;
  vendor_id: number;
  currency_id: number;
  /** Minor units of the quick-pay currency. */
  amount: number;
  charge_id: number;
  buyer_user_id: number | null;
  billing_profile_id: number | null;
  buyer_name: string;
  buyer_email: string;
  recipient_name: string;
  recipient_email: string;
  message: string | null;
  image_url: string | null;
  card_brand: string;
  card_last4: string;
  /** 'scheduled' (paid, waiting for send_at) | 'pending' | 'sent' | 'claimed' | 'declined'. */
  status: string;
  decline_reason: string | null;
  /** Keyed digest of the claim code; the code itself is only in the recipient's email. */
  claim_code_hash: string | null;
  sent_at: number | null;
  claimed_by_user_id: number | null;
  claimed_at: number | null;
  claim_transaction_id: number | null;
  created_at: number;
  updated_at: number;
  /** When a scheduled gift is to be sent (the buyer's send_date); null: sent when paid. */
  send_at: number | null;
}

/** A row change captured for sync (central's per-vendor log, or a store node's outbox). */
export interface SyncChangesTable {
  seq: Generated<number>;
  tbl: string;
  row_id: number;
  op: string;
  vendor_id: number | null;
  data: string;
  event_seq: number | null;
}

export interface SyncApplyModeTable {
  active: number;
}

export interface SyncNodesTable {
  id: number;
  vendor_id: number;
  store_id: number;
  credential_hash: string;
  label: string;
  last_seq: Generated<number>;
  last_seen_at: number | null;
  cursor: Generated<number>;
  paired_at: number;
  revoked_at: number | null;
  /** The schema level the store last synced with (migration 0044); null before it, or unknown. */
  schema_level: string | null;
}

export interface SyncPairingCodesTable {
  code_hash: string;
  vendor_id: number;
  store_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SyncVerdictsTable {
  node_id: number;
  node_seq: number;
  event_id: string;
  verdict: string;
  code: string | null;
  message: string | null;
  applied_at: number;
}

/** Central: where the rows of a store's event went when the store moved them (migration 0037). */
export interface SyncMovedRowsTable {
  node_id: number;
  event_id: string;
  /** JSON: [table, an id the row had, its id now] for each moved row the event made. */
  moved_ids: string;
  recorded_at: number;
}

/** Central: the events one push of a node took (migration 0028), kept for the node's last 90 days of pushes. */
export interface SyncEventIdsTable {
  node_id: number;
  /** The node_seq of the first of them; the others follow it, one number each. */
  first_seq: number;
  /** JSON: the event_id of each, in node_seq order. */
  event_ids: string;
  answered_at: number;
}

export interface SyncExceptionsTable {
  id: Generated<number>;
  vendor_id: number;
  store_id: number | null;
  node_id: number | null;
  kind: string;
  subject: string;
  message: string;
  /** What the message says (SyncExceptionSaid as JSON), for the back office to write in its language; null before migration 0045. */
  message_data: string | null;
  created_at: number;
  resolved_at: number | null;
}

export interface WebhookEndpointsTable {
  /** `wh_…` */
  id: string;
  vendor_id: number;
  url: string;
  /** JSON array of event kinds. */
  events: string;
  description: string | null;
  alert_email: string | null;
  /** 'enabled' | 'paused' | 'disabled' */
  status: string;
  /** 'failing' | 'gone'; null unless disabled. */
  disabled_reason: string | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface WebhookEventsTable {
  /** `evt_…` */
  id: string;
  vendor_id: number;
  type: string;
  api_version: string;
  /** JSON of the event's data. */
  data: string;
  /** When it happened (an offline store's original time). */
  created_at: number;
  recorded_at: number;
}

export interface WebhookDeliveriesTable {
  id: number;
  vendor_id: number;
  endpoint_id: string;
  event_id: string;
  /** 'pending' | 'sending' | 'succeeded' | 'failed' | 'cancelled' */
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
  /** When its 3 days of retries began (migration 0043): enabling its held endpoint restarts them; null: created_at. */
  retry_from: number | null;
}

export interface StaffAccountsTable {
  id: number;
  vendor_id: number;
  email: string;
  email_key: string;
  name: string;
  /** owner | manager | store_manager */
  role: string;
  store_id: number | null;
  password_hash: string | null;
  /** invited | active | disabled */
  status: string;
  failed_logins: number;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
}

export interface StaffSessionsTable {
  id: number;
  staff_id: number;
  vendor_id: number;
  token_hash: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ended_at: number | null;
}

export interface StaffTokensTable {
  id: number;
  staff_id: number;
  vendor_id: number;
  /** invitation | password_reset | sign_in_link */
  purpose: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface AuditLogTable {
  id: number;
  vendor_id: number;
  staff_id: number | null;
  actor: string;
  action: string;
  object_type: string;
  object_id: string;
  /** JSON of the object before the change; null for a creation. */
  before: string | null;
  /** JSON of the object after the change; null for a removal. */
  after: string | null;
  created_at: number;
}

export interface GatewayDetachmentsTable {
  id: number;
  vendor_id: number;
  billing_profile_id: number;
  /** The adapter that issued the token ('test', 'stripe'). */
  gateway: string;
  /** Kept only until detached ('' once done). */
  token: string;
  /** 'queued' | 'done' | 'failed'. */
  status: string;
  attempts: Generated<number>;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface PaymentExceptionsTable {
  id: number;
  vendor_id: number;
  charge_id: number;
  /** 'paid_without_gift' | 'reload_refused'. */
  kind: string;
  /** 'open' | 'refunding' | 'refunded' | 'credited' | 'settled'. */
  status: string;
  resolution: string | null;
  refund_id: string | null;
  transaction_id: number | null;
  created_at: number;
  resolved_at: number | null;
}

/** Stored value staff paid back to a customer (migration 0040), in cash or to the cards it was loaded from. */
export interface StoredValuePaybacksTable {
  id: number;
  vendor_id: number;
  user_id: number;
  /** The quick-pay currency (currencies.id) paid back. */
  currency_id: number;
  /** 'cash' | 'card'. */
  method: string;
  /** Minor units asked for. */
  amount: number;
  /** Minor units that left the balance for good (a card refund the gateway refused came back). */
  amount_paid: number;
  /** 'paid' | 'refunding' (card refunds sent, outcome not all known) | 'partial' | 'refused'. */
  status: string;
  idempotency_key: string;
  fingerprint: string;
  staff_id: number;
  note: string | null;
  /** The `payback` ledger entry that took the amount out of the balance. */
  ledger_entry_id: number;
  created_at: number;
  completed_at: number | null;
}

/** One card refund of a pay-back (migration 0040): part of it sent back to one reload charge. */
export interface StoredValuePaybackRefundsTable {
  id: number;
  vendor_id: number;
  payback_id: number;
  charge_id: number;
  amount: number;
  /** 'pending' (sent or to send; outcome unknown) | 'succeeded' | 'failed'. */
  status: string;
  gateway_refund_id: string | null;
  created_at: number;
  updated_at: number;
}

/** The test gateway's refunds (migration 0040), partial ones too. */
export interface TestGatewayRefundsTable {
  id: string;
  charge_id: string;
  amount: number;
  idempotency_key: string;
  status: string;
  created_at: number;
}

/** One fixed window of a rate limit (migration 0011): its hits so far. */
export interface RateLimitWindowsTable {
  /** HMAC (node key) of "<rule>:<dimension>:<value>". */
  key_hash: string;
  window_start: number;
  expires_at: number;
  hits: number;
}

/** Which station a scanner the node reads serves (migration 0019): node-local, never synced. */
export interface ScannerStationsTable {
  vendor_id: number;
  store_id: number;
  /** The device's stable identity (ScannerDescription.device). */
  device: string;
  station: 'counter' | 'kiosk';
  updated_at: number;
}

/** One row per vendor (migration 0017): moved by triggers on every write to the program's data and (0021) to its api keys. */
export interface VendorVersionsTable {
  vendor_id: number;
  version: number;
}

/** A back office member import (migration 0047): node-local, never synced; a program keeps its last few finished. */
export interface ImportJobsTable {
  id: string;
  vendor_id: number;
  /** The program's jobs in the order they started (1, 2, …). */
  seq: number;
  staff_email: string;
  file_name: string;
  /** 1: the preview (a dry run). */
  dry_run: number;
  /** running | finished | failed (one running per program: a partial unique index). */
  status: string;
  rows: number;
  done: number;
  created_at: number;
  /** Moved after each batch while running: the heartbeat of the process running it. */
  updated_at: number;
  finished_at: number | null;
  confirmed_as: string | null;
  preview_id: string | null;
  /** JSON: the ImportReport, once finished. */
  report: string | null;
  /** JSON: { code, message }, once failed. */
  error: string | null;
  points_currency: string | null;
  /** JSON: the header names the import does not read. */
  ignored_columns: string;
  /** JSON: the file as read ({ records, decimalMark }), for the confirmation and the problem rows; read only for those. */
  file: string;
}

export interface DB {
  node_meta: NodeMetaTable;
  id_sequences: IdSequencesTable;
  vendors: VendorsTable;
  stores: StoresTable;
  points_of_sale: PointsOfSaleTable;
  api_keys: ApiKeysTable;
  oauth_clients: OauthClientsTable;
  access_tokens: AccessTokensTable;
  currencies: CurrenciesTable;
  cards: CardsTable;
  earning_rules: EarningRulesTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_entries: LedgerEntriesTable;
  sync_events: SyncEventsTable;
  messages_outbox: MessagesOutboxTable;
  tiers: TiersTable;
  users: UsersTable;
  user_vendors: UserVendorsTable;
  metadata_fields: MetadataFieldsTable;
  user_metadata: UserMetadataTable;
  user_sessions: UserSessionsTable;
  one_time_codes: OneTimeCodesTable;
  barcode_tokens: BarcodeTokensTable;
  user_cards: UserCardsTable;
  vendor_content: VendorContentTable;
  pos_sessions: PosSessionsTable;
  spending_rules: SpendingRulesTable;
  orders: OrdersTable;
  transactions: TransactionsTable;
  billing_profiles: BillingProfilesTable;
  payment_charges: PaymentChargesTable;
  auto_reloads: AutoReloadsTable;
  test_gateway_cards: TestGatewayCardsTable;
  test_gateway_charges: TestGatewayChargesTable;
  egifts: EgiftsTable;
  sync_changes: SyncChangesTable;
  sync_apply_mode: SyncApplyModeTable;
  sync_nodes: SyncNodesTable;
  sync_pairing_codes: SyncPairingCodesTable;
  sync_verdicts: SyncVerdictsTable;
  sync_event_ids: SyncEventIdsTable;
  sync_moved_rows: SyncMovedRowsTable;
  sync_exceptions: SyncExceptionsTable;
  inbox_messages: InboxMessagesTable;
  promotions: PromotionsTable;
  promotion_awards: PromotionAwardsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  staff_accounts: StaffAccountsTable;
  staff_sessions: StaffSessionsTable;
  staff_tokens: StaffTokensTable;
  audit_log: AuditLogTable;
  gateway_detachments: GatewayDetachmentsTable;
  payment_exceptions: PaymentExceptionsTable;
  stored_value_paybacks: StoredValuePaybacksTable;
  stored_value_payback_refunds: StoredValuePaybackRefundsTable;
  test_gateway_refunds: TestGatewayRefundsTable;
  rate_limit_windows: RateLimitWindowsTable;
  scanner_stations: ScannerStationsTable;
  vendor_versions: VendorVersionsTable;
  import_jobs: ImportJobsTable;
}
