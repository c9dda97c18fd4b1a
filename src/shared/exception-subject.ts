/**
 * A sync exception's subject names what it is about, as text central stores: "user 123" for a
 * customer, "order 123" for a sale (central's own id), "card 4", "event 7 (local.write)" for a
 * store's event (its number in the store's outbox and its type; a restored store's divergence,
 * "event 7", has no type). An offline overdraft is one exception per currency (fourteenth round):
 * "user 123 currency 456", so each closes when its own balance is settled; rows written before it
 * say "user 123" alone. Central builds every subject here and the back office reads them here, so
 * the two cannot drift; every form central ever wrote is read (the tests hold the old strings).
 */
export type ExceptionSubject =
  | { what: 'customer'; userId: number; currencyId: number | null }
  | { what: 'order'; orderId: number }
  | { what: 'card'; cardId: number }
  | { what: 'event'; seq: number; type: string | null };

export const customerSubject = (userId: number): string => `user ${userId}`;

export const overdraftSubject = (userId: number, currencyId: number): string => `${customerSubject(userId)} currency ${currencyId}`;

/** Every overdraft subject of one customer, in any currency (a LIKE pattern: ids are digits). */
export const overdraftSubjectsOf = (userId: number): string => `${customerSubject(userId)} currency %`;

/**
 * A sale's: its id, not its receipt. Receipts repeat across stores and central renames a reused one
 * (`R-9~5`), so the id is what names one order for good; the back office looks its receipt up when
 * it lists the exceptions (chain-health/exception-orders.ts).
 */
export const orderSubject = (orderId: number | string): string => `order ${String(orderId)}`;

export const cardSubject = (cardId: number | string): string => `card ${String(cardId)}`;

/** A store's event: its number in the store's outbox, and its type when the exception is about what it did. */
export const eventSubject = (seq: number, type: string | null = null): string => (type === null ? `event ${seq}` : `event ${seq} (${type})`);

const SUBJECT = /^(?:user (\d+)(?: currency (\d+))?|(order|card) (\d+)|event (\d+)(?: \((.+)\))?)$/s;

/** What a stored subject names; undefined for text none of the builders above writes. */
export function readSubject(subject: string): ExceptionSubject | undefined {
  const m = SUBJECT.exec(subject);
  if (!m) return undefined;
  const [, user, currency, what, id, seq, type] = m;
  if (user !== undefined) return { what: 'customer', userId: Number(user), currencyId: currency === undefined ? null : Number(currency) };
  if (what === 'order') return { what: 'order', orderId: Number(id) };
  if (what === 'card') return { what: 'card', cardId: Number(id) };
  return { what: 'event', seq: Number(seq), type: type ?? null };
}

/** The customer id a subject names ("user 123", "user 123 currency 456"), as text; undefined for others. */
export function customerIdInSubject(subject: string): string | undefined {
  const read = readSubject(subject);
  return read?.what === 'customer' ? String(read.userId) : undefined;
}

/** The customer and currency an overdraft's subject names; undefined for one written before per-currency ones ("user 123"). */
export function overdraftInSubject(subject: string): { userId: number; currencyId: number } | undefined {
  const read = readSubject(subject);
  return read?.what === 'customer' && read.currencyId !== null ? { userId: read.userId, currencyId: read.currencyId } : undefined;
}

/** The order a subject names ("order 123"), or undefined. */
export function orderIdInSubject(subject: string): number | undefined {
  const read = readSubject(subject);
  return read?.what === 'order' ? read.orderId : undefined;
}
