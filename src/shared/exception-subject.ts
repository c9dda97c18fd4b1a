/**
 * A sync exception's subject names what it is about: "user 123" for a customer. An offline
 * overdraft is one exception per currency (fourteenth round): "user 123 currency 456", so each
 * closes when its own balance is settled. Rows written before it say "user 123" alone.
 */
export const customerSubject = (userId: number): string => `user ${userId}`;

export const overdraftSubject = (userId: number, currencyId: number): string => `${customerSubject(userId)} currency ${currencyId}`;

/** Every overdraft subject of one customer, in any currency (a LIKE pattern: ids are digits). */
export const overdraftSubjectsOf = (userId: number): string => `${customerSubject(userId)} currency %`;

const SUBJECT_CUSTOMER = /^user (\d+)(?: currency \d+)?$/;

/** The customer id a subject names ("user 123", "user 123 currency 456"), as text; undefined for others. */
export function customerIdInSubject(subject: string): string | undefined {
  return SUBJECT_CUSTOMER.exec(subject)?.[1];
}

const OVERDRAFT_SUBJECT = /^user (\d+) currency (\d+)$/;

/** The customer and currency an overdraft's subject names; undefined for one written before per-currency ones ("user 123"). */
export function overdraftInSubject(subject: string): { userId: number; currencyId: number } | undefined {
  const match = OVERDRAFT_SUBJECT.exec(subject);
  return match ? { userId: Number(match[1]), currencyId: Number(match[2]) } : undefined;
}
