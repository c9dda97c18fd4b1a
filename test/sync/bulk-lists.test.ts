import { describe, expect, it } from 'vitest';
import { hasKeys } from '../../src/core/sync/bulk-lists';

// Rows of a bulk insert are grouped by their keys with this test (bulk-write-sqlite/postgres.ts): a
// row that only looked alike would be inserted with the wrong column list.
describe('hasKeys', () => {
  it('holds for the same keys in the same order only', () => {
    expect(hasKeys({ id: 1, name: 'a' }, ['id', 'name'])).toBe(true);
    expect(hasKeys({ name: 'a', id: 1 }, ['id', 'name'])).toBe(false);
    expect(hasKeys({ id: 1 }, ['id', 'name'])).toBe(false);
    expect(hasKeys({ id: 1, name: 'a', extra: null }, ['id', 'name'])).toBe(false);
    expect(hasKeys({ id: 1, other: 'a' }, ['id', 'name'])).toBe(false);
  });

  it('counts a key whose value is undefined (it is still a column of the row)', () => {
    expect(hasKeys({ id: 1, name: undefined }, ['id', 'name'])).toBe(true);
    expect(hasKeys({ id: 1, name: undefined }, ['id'])).toBe(false);
  });
});
