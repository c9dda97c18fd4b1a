import { describe, expect, it } from 'vitest';
import { toIso } from '../../src/shared/time';

// toIso formats the time of day itself (a cached date part): it must write exactly what Date does.
describe('toIso', () => {
  it('matches Date#toISOString across days, edges of a day, before 1970 and far years', () => {
    const samples = [
      0, 1, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, 86_399_999, 86_400_000, -1, -86_400_000, -86_400_001,
      Date.UTC(2026, 10, 21, 10, 0, 0, 0), Date.UTC(2026, 10, 21, 23, 59, 59, 999), Date.UTC(2024, 1, 29, 12, 34, 56, 7),
      Date.UTC(1969, 11, 31, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10000, 0, 1, 0, 0, 0, 5),
      Date.UTC(-1, 5, 1, 1, 2, 3, 40), 8.64e15, -8.64e15,
    ];
    for (let i = 0; i < 2000; i++) samples.push(Math.floor((Math.random() - 0.3) * 8e12));
    for (const ms of samples) expect(toIso(ms)).toBe(new Date(ms).toISOString());
  });

  it('leaves what is not a whole millisecond to Date (fractions truncate, NaN throws)', () => {
    expect(toIso(1.7)).toBe(new Date(1.7).toISOString());
    expect(toIso(-1.7)).toBe(new Date(-1.7).toISOString());
    expect(() => toIso(Number.NaN)).toThrow(RangeError);
    expect(() => toIso(8.64e15 + 1)).toThrow(RangeError);
  });
});
