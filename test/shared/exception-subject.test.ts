import { describe, expect, it } from 'vitest';
import {
  cardSubject,
  customerIdInSubject,
  customerSubject,
  eventSubject,
  orderIdInSubject,
  orderSubject,
  overdraftInSubject,
  overdraftSubject,
  readSubject,
} from '../../src/shared/exception-subject';

// Sixteenth round: central built sync exceptions' subjects with template strings in five files and
// the chain page read them back with its own regex. One builder and parser now serve both; every
// subject written reads back as what it names, and the strings stored by every earlier version
// (they are the same texts: the subject's form never changed) read too.
describe('a sync exception’s subject, built and read', () => {
  it('reads back what each builder writes', () => {
    expect(readSubject(customerSubject(8589934607))).toEqual({ what: 'customer', userId: 8589934607, currencyId: null });
    expect(readSubject(overdraftSubject(12, 34))).toEqual({ what: 'customer', userId: 12, currencyId: 34 });
    expect(readSubject(orderSubject(8589934598))).toEqual({ what: 'order', orderId: 8589934598 });
    expect(readSubject(orderSubject('77'))).toEqual({ what: 'order', orderId: 77 });
    expect(readSubject(cardSubject(4))).toEqual({ what: 'card', cardId: 4 });
    expect(readSubject(eventSubject(7, 'local.write'))).toEqual({ what: 'event', seq: 7, type: 'local.write' });
    expect(readSubject(eventSubject(9))).toEqual({ what: 'event', seq: 9, type: null });
  });

  it('reads the strings stored before the builders, as central wrote them', () => {
    expect(readSubject('order 123')).toEqual({ what: 'order', orderId: 123 });
    expect(readSubject('user 123')).toEqual({ what: 'customer', userId: 123, currencyId: null });
    expect(readSubject('user 123 currency 456')).toEqual({ what: 'customer', userId: 123, currencyId: 456 });
    expect(readSubject('card 99')).toEqual({ what: 'card', cardId: 99 });
    expect(readSubject('event 12 (local.write)')).toEqual({ what: 'event', seq: 12, type: 'local.write' });
    expect(readSubject('event 12')).toEqual({ what: 'event', seq: 12, type: null });
    expect(orderIdInSubject('order 123')).toBe(123);
    expect(customerIdInSubject('user 123 currency 456')).toBe('123');
    expect(overdraftInSubject('user 123')).toBeUndefined();
    expect(overdraftInSubject('user 123 currency 456')).toEqual({ userId: 123, currencyId: 456 });
  });

  it('reads nothing into text no builder writes', () => {
    for (const text of ['node 3', 'order', 'order R-9', 'order 12 ', 'user 12 currency', 'receipt 12', 'event x (local.write)', '']) expect(readSubject(text), text).toBeUndefined();
    expect(orderIdInSubject('user 12')).toBeUndefined();
    expect(customerIdInSubject('order 12')).toBeUndefined();
  });

  it('writes the forms central has always stored', () => {
    expect([customerSubject(1), overdraftSubject(1, 2), orderSubject(3), cardSubject(4), eventSubject(5, 'local.write'), eventSubject(6)]).toEqual([
      'user 1',
      'user 1 currency 2',
      'order 3',
      'card 4',
      'event 5 (local.write)',
      'event 6',
    ]);
  });
});
