import { describe, expect, it } from 'vitest';
import { readCurrencyColumns } from '../../src/core/import/currency-columns';
import { readMemberFile } from '../../src/core/import/member-file';

// Twentieth round: which of the program's active loyalty currencies each per-currency column of a
// members file is (the members export's `points:<name>`, `points_expire_on:<name>`, `<name> (<public
// id>)` when two read alike), and which columns are not read.

const POINTS = { id: 1, public_id: 'curr_Pts1', name: 'Points' };
const STAMPS = { id: 2, public_id: 'curr_Stp2', name: 'Coffee Stamps' };
const headersOf = (header: string) => Object.keys(readMemberFile(`${header}\na@example.com\n`).records[0]!.byCurrency ?? {});

describe('a members file’s per-currency columns', () => {
  it('are read by name (letter case and spaces as the header reads them) or public id, in the program’s order; the points column’s own currency is not', () => {
    const headers = headersOf('email,points,points_expire_on:Coffee Stamps,POINTS:coffee-stamps,points:Points,points_expire_on:curr_pts1');
    expect(readCurrencyColumns(headers, [POINTS, STAMPS], POINTS.id)).toEqual({
      columns: [{ currency: { id: 2, name: 'Coffee Stamps' }, points: 'points:coffee_stamps', expireOn: 'points_expire_on:coffee_stamps' }],
      notRead: ['points:points', 'points_expire_on:curr_pts1'],
    });
    // Without a points column every currency's own columns are read.
    expect(readCurrencyColumns(headers, [POINTS, STAMPS], null).columns.map((c) => [c.currency.name, c.points, c.expireOn])).toEqual([
      ['Points', 'points:points', 'points_expire_on:curr_pts1'],
      ['Coffee Stamps', 'points:coffee_stamps', 'points_expire_on:coffee_stamps'],
    ]);
  });

  it('take another program’s `<name> (<public id>)` by its name; two landing on one currency, or an unknown one, are not read', () => {
    const headers = headersOf('email,points:Coffee Stamps (curr_old1),points:Coffee Stamps (curr_old2),points_expire_on:Coffee Stamps (curr_old1),points:Gems');
    expect(readCurrencyColumns(headers, [POINTS, STAMPS], null)).toEqual({
      columns: [{ currency: { id: 2, name: 'Coffee Stamps' }, points: null, expireOn: 'points_expire_on:coffee_stamps_(curr_old1)' }],
      notRead: ['points:coffee_stamps_(curr_old1)', 'points:coffee_stamps_(curr_old2)', 'points:gems'],
    });
  });

  it('are refused twice in one header, as any column', () => {
    expect(() => readMemberFile('email,points:Stamps,points:stamps\na@example.com,1,2\n')).toThrow('The column points:stamps appears twice in the header.');
  });
});
