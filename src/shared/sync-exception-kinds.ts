/**
 * What central records for staff to look at when a store's change met a conflict (docs/sync.md,
 * Conflicts). The back office names each in words (admin/strings.ts; a test holds both to this list).
 */
export const SYNC_EXCEPTION_KINDS = [
  'card_conflict',
  'customer_merged',
  'event_rejected',
  'offline_overdraft',
  'receipt_reused',
  'sale_repeated',
  'void_repeated',
  'node_restored',
  'sale_in_other_currency',
  'passport_conflict',
  'email_conflict',
  'phone_conflict',
  'contact_kept',
] as const;

export type SyncExceptionKind = (typeof SYNC_EXCEPTION_KINDS)[number];
