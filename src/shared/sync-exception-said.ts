/**
 * What a sync exception's message says, as data: a key (one per sentence central writes) and the
 * values in it. Central stores it beside the English text (sync_exceptions.message_data) and the
 * back office's chain page writes the sentence in the screen's language from it (admin/strings.ts,
 * `exceptionSaid_<key>`). Customers are ids (the page names the program's members), amounts minor
 * units with their currency's code (null: points, named by `currency`).
 */
export type SyncExceptionSaid =
  | { key: 'contact_of_other_program'; params: { customer: number } }
  | { key: 'contact_kept'; params: { contact: 'email' | 'phone'; added: string; customer: number; held: string } }
  | { key: 'contact_held'; params: { contact: 'passport' | 'email' | 'phone'; value: string; holder: number; customer: number } }
  | { key: 'node_restored'; params: { from: number; last: number } }
  | { key: 'void_repeated'; params: { receipt: string | null } }
  | { key: 'offline_overdraft'; params: { currency: string | null; code: string | null; balance: number; believed: number | null; paid_back: number | null } }
  | { key: 'receipt_reused'; params: { receipt: string; order: number; renamed: string } }
  | { key: 'sale_repeated'; params: { receipt: string; order: number; renamed: string } }
  | { key: 'repeat_voided'; params: { order: number; receipt: string; node: number } }
  | { key: 'sale_in_other_currency'; params: { receipt: string; sold: string | null; digits: number; subtotal: number; central: string } }
  | { key: 'event_rejected'; params: { code: string; reason: string } & RefusalParams }
  | { key: 'customer_merged'; params: { contact: 'email' | 'phone'; customer: number } }
  | { key: 'card_linked_twice'; params: { customer: number; holder: number } }
  | { key: 'card_number_twice'; params: { card: number } };

export type SyncExceptionSaidKey = SyncExceptionSaid['key'];

/** Every key, so a test and the chain page cover them all (the `satisfies` keeps it complete). */
export const SYNC_EXCEPTION_SAID_KEYS = Object.keys({
  contact_of_other_program: 1,
  contact_kept: 1,
  contact_held: 1,
  node_restored: 1,
  void_repeated: 1,
  offline_overdraft: 1,
  receipt_reused: 1,
  sale_repeated: 1,
  repeat_voided: 1,
  sale_in_other_currency: 1,
  event_rejected: 1,
  customer_merged: 1,
  card_linked_twice: 1,
  card_number_twice: 1,
} satisfies Record<SyncExceptionSaidKey, 1>) as SyncExceptionSaidKey[];

/**
 * The sales a message names by central's order id (a reused receipt's first sale, a repeat): the
 * chain page looks them up to say whose sale it was, as it does a sale in the subject.
 */
export function ordersMentioned(said: SyncExceptionSaid | null): number[] {
  switch (said?.key) {
    case 'receipt_reused':
    case 'sale_repeated':
    case 'repeat_voided':
      return [said.params.order];
    default:
      return [];
  }
}

/**
 * Why central refused a store's event, one `why` per sentence it writes (sync/central/event-refused.ts),
 * with what the sentence names: the table, the row's id, a database's own words. In
 * `event_rejected`'s params beside `code` and `reason` (its English) since the fifteenth round, so
 * the chain page writes the reason in its language; absent from rows recorded before.
 */
export type EventRefusal =
  | { why: 'table_not_accepted'; table: string }
  | { why: 'not_whole_number' }
  | { why: 'row_without_id'; table: string }
  | { why: 'invalid_entry'; id: number }
  | { why: 'unknown_row'; table: string; id: number }
  | { why: 'other_vendor_row'; table: string; id: number }
  | { why: 'other_store_row'; table: string; id: number }
  | { why: 'names_other_store'; table: string; id: number }
  | { why: 'other_program_currency'; id: number }
  | { why: 'other_program_customer'; id: number }
  | { why: 'not_applied'; detail: string };

export type RefusalWhy = EventRefusal['why'];

/** An `event_rejected`'s refusal values, flat (each optional: older rows have none). */
export type RefusalParams = {
  why?: string;
  table?: string;
  id?: number;
  detail?: string;
};

/** Every `why`, so a test and the chain page cover them all. */
export const REFUSAL_WHYS = Object.keys({
  table_not_accepted: 1,
  not_whole_number: 1,
  row_without_id: 1,
  invalid_entry: 1,
  unknown_row: 1,
  other_vendor_row: 1,
  other_store_row: 1,
  names_other_store: 1,
  other_program_currency: 1,
  other_program_customer: 1,
  not_applied: 1,
} satisfies Record<RefusalWhy, 1>) as RefusalWhy[];
