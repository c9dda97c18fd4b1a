// An audit entry as a person reads it: the change's verb (the part of its action code after the
// object, `store.update` → `update`) and, field by field, what the change moved. The node records
// each object's fields before and after as JSON; the screen once showed those two JSON texts.

/** One field a change touched; null where the field was absent (a creation, a removal) or null. */
export interface FieldChange {
  field: string;
  before: string | null;
  after: string | null;
}

/** The verb of an action code: `store.update` → `update`, `payment_exception.refund` → `refund`. */
export function auditVerb(action: string): string {
  return action.slice(action.lastIndexOf('.') + 1);
}

function shown(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Row bookkeeping the entry already says (its time, its object and the program whose log it is):
 * a new reward read `id: 4795…`, `vendorId: 4795…`, `createdAt: 1796598575595`, and every change
 * `updatedAt: 1796598563798 → 1796598572305`.
 */
const BOOKKEEPING = new Set(['id', 'publicId', 'vendorId', 'vendor_id', 'createdAt', 'created_at', 'updatedAt', 'updated_at']);

/** How a field's value reads (audit-value-words.ts: money, words); undefined: as recorded. */
export type ValueWriter = (field: string, value: unknown) => string | undefined;

/**
 * The fields whose value differs between `before` and `after`, in the order the node wrote them;
 * compared as recorded, written by `write` where it has words for them.
 */
export function auditChanges(before: unknown, after: unknown, write: ValueWriter = () => undefined): FieldChange[] {
  if (!isRecord(before) && !isRecord(after)) {
    const [from, to] = [shown(before), shown(after)];
    return from === to ? [] : [{ field: '', before: from, after: to }];
  }
  const from = isRecord(before) ? before : {};
  const to = isRecord(after) ? after : {};
  const fields = [...new Set([...Object.keys(from), ...Object.keys(to)])].filter((field) => !BOOKKEEPING.has(field));
  const written = (field: string, value: unknown) => (value === null || value === undefined ? null : (write(field, value) ?? shown(value)));
  return fields
    .filter((field) => shown(from[field]) !== shown(to[field]))
    .map((field) => ({ field, before: written(field, from[field]), after: written(field, to[field]) }));
}
