import { describe, expect, it } from 'vitest';
import { readCurrencyColumns } from '../../src/core/import/currency-columns';
import { readMemberFile } from '../../src/core/import/member-file';
import { readMemberRow } from '../../src/core/import/member-row';

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

  it('name a currency whose own name ends in parentheses by its whole name first, then by the public id in them, and only a public id’s by the name before them', () => {
    // Twentieth round (review): "Club (VIP)" was split as <name> (<public id>) and credited to Club.
    const CLUB = { id: 1, public_id: 'curr_Club1', name: 'Club' };
    const VIP = { id: 2, public_id: 'curr_Vip2', name: 'Club (VIP)' };
    const VIP_DASH = { id: 3, public_id: 'curr_Vip3', name: 'Club-(VIP)' };
    const columnsOf = (header: string, loyalty: (typeof CLUB)[]) => {
      const read = readCurrencyColumns(headersOf(header), loyalty, null);
      return { columns: read.columns.map((c) => [c.currency.name, c.points, c.expireOn]), notRead: read.notRead };
    };
    expect(columnsOf('email,points:Club (VIP)', [CLUB, VIP])).toEqual({ columns: [['Club (VIP)', 'points:club_(vip)', null]], notRead: [] });
    expect(columnsOf('email,points:Stamps (old),points_expire_on:Stamps (old)', [{ id: 4, public_id: 'curr_Old4', name: 'Stamps (old)' }])).toEqual({
      columns: [['Stamps (old)', 'points:stamps_(old)', 'points_expire_on:stamps_(old)']],
      notRead: [],
    });
    expect(columnsOf('email,points:Club,points:Club (VIP)', [CLUB, VIP])).toEqual({ columns: [['Club', 'points:club', null], ['Club (VIP)', 'points:club_(vip)', null]], notRead: [] });
    // Parentheses that are no public id are part of the name: in a program without it, no currency.
    expect(columnsOf('email,points:Club (VIP)', [CLUB])).toEqual({ columns: [], notRead: ['points:club_(vip)'] });
    // The export's `<name> (<public id>)` for two names that read alike, each ending in parentheses:
    // this program's id; another program's, by the name before it when one currency has it.
    expect(columnsOf('email,points:Club (VIP) (curr_Vip2),points:Club-(VIP) (curr_Vip3)', [CLUB, VIP, VIP_DASH]).columns).toEqual([
      ['Club (VIP)', 'points:club_(vip)_(curr_vip2)', null],
      ['Club-(VIP)', 'points:club_(vip)_(curr_vip3)', null],
    ]);
    expect(columnsOf('email,points:Club (VIP) (curr_Old9)', [CLUB, VIP]).columns).toEqual([['Club (VIP)', 'points:club_(vip)_(curr_old9)', null]]);
    expect(columnsOf('email,points:Club (VIP) (curr_Old9)', [CLUB, VIP, VIP_DASH])).toEqual({ columns: [], notRead: ['points:club_(vip)_(curr_old9)'] });
    // A currency named exactly as another's `<name> (<public id>)`: the whole name wins.
    expect(columnsOf('email,points:Club (curr_Club1)', [CLUB, { id: 5, public_id: 'curr_Odd5', name: 'Club (curr_Club1)' }]).columns).toEqual([['Club (curr_Club1)', 'points:club_(curr_club1)', null]]);
  });

  it('refuse the row for a day already ended, as `points_expire_on` does (the day of the importing program’s zone)', () => {
    const file = readMemberFile('email,points,points_expire_on,points:Coffee Stamps,points_expire_on:Coffee Stamps\na@example.com,5,,3,2026-12-06\nb@example.com,5,2026-12-06,3,\nc@example.com,5,,3,2026-12-07\n');
    const context = { country: 'US', quickPayDigits: 2, decimalMark: file.decimalMark, timeZone: 'America/New_York', now: Date.UTC(2026, 11, 8, 3, 30) };
    const currencyColumns = readCurrencyColumns(headersOf('email,points:Coffee Stamps,points_expire_on:Coffee Stamps'), [POINTS, STAMPS], POINTS.id).columns;
    const [stampsEnded, pointsEnded, stampsToday] = file.records.map((record) => readMemberRow(record, { ...context, currencyColumns }));
    expect(stampsEnded).toMatchObject({ problem: { line: 2, reason: 'expiry_in_the_past', field: 'points_expire_on:coffee_stamps' } });
    expect(pointsEnded).toMatchObject({ problem: { line: 3, reason: 'expiry_in_the_past', field: 'points_expire_on' } });
    // 03:30Z on 8 December is 22:30 on the 7th in New York: the 7th has not ended there, and ends at its midnight.
    expect(stampsToday).toMatchObject({ row: { currencyPoints: [{ currency: { id: 2 }, points: 3, expiresAt: Date.UTC(2026, 11, 8, 5) - 1 }] } });
  });

  it('are refused twice in one header, as any column', () => {
    expect(() => readMemberFile('email,points:Stamps,points:stamps\na@example.com,1,2\n')).toThrow('The column points:stamps appears twice in the header.');
  });
});
