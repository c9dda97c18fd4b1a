import type { EventRefusal, RefusalWhy } from '../../../shared/sync-exception-said';

// Why central refuses a store's event: what the refusal says (shared/sync-exception-said.ts,
// `EventRefusal`), its stable code (the store keeps it with the verdict) and its English sentence
// (the verdict's message, `GET /sync/rejected`, and the exception's reason), written from the same
// data so the chain page can write it in Spanish too. Each sentence is the one central wrote before.

const CODE: Record<RefusalWhy, string> = {
  table_not_accepted: 'table_not_accepted',
  not_whole_number: 'invalid_row',
  row_without_id: 'invalid_row',
  invalid_entry: 'invalid_row',
  unknown_row: 'foreign_id',
  other_vendor_row: 'foreign_vendor',
  other_store_row: 'foreign_store',
  names_other_store: 'foreign_store',
  other_program_currency: 'foreign_vendor',
  other_program_customer: 'foreign_vendor',
  not_applied: 'apply_failed',
};

/** The refusal's sentence in English. */
export function refusalEnglish(refusal: EventRefusal): string {
  switch (refusal.why) {
    case 'table_not_accepted':
      return `a store does not write ${refusal.table}`;
    case 'not_whole_number':
      return 'a row holds a number that is not a whole number within range';
    case 'row_without_id':
      return `a ${refusal.table} row without an id`;
    case 'invalid_entry':
      return `ledger entry ${refusal.id} is not a valid movement`;
    case 'unknown_row':
      return `${refusal.table} ${refusal.id} was not made by this node and central does not know it`;
    case 'other_vendor_row':
      return `${refusal.table} ${refusal.id} belongs to another vendor`;
    case 'other_store_row':
      return `${refusal.table} ${refusal.id} belongs to another store`;
    case 'names_other_store':
      return `${refusal.table} ${refusal.id} names another store`;
    case 'other_program_currency':
      return `ledger entry ${refusal.id} is in a currency of another program`;
    case 'other_program_customer':
      return `membership ${refusal.id} names a customer this program does not have`;
    case 'not_applied':
      return `central could not apply the event: ${refusal.detail}`;
  }
}

/** A lasting refusal of an event's data (a failure of the moment is no refusal: apply-push.ts). */
export class EventRefused extends Error {
  readonly code: string;
  constructor(readonly refusal: EventRefusal) {
    super(refusalEnglish(refusal));
    this.code = CODE[refusal.why];
  }
}
