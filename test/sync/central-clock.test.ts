import { describe, expect, it } from 'vitest';
import { CentralClock } from '../../src/server/sync/central-clock';

// How far a store's clock is from central's, from the Date header of central's replies (whole
// seconds): the request's middle against the middle of central's second.
describe("a store's clock against central's", () => {
  const at = Date.parse('2026-12-05T12:00:00.000Z');

  it('is null until central answered with a Date it can read', () => {
    const clock = new CentralClock(() => at);
    expect(clock.offsetSeconds()).toBeNull();
    clock.observe(at, at + 40, null);
    clock.observe(at, at + 40, 'not a date');
    expect(clock.offsetSeconds()).toBeNull();
  });

  it('reads agreeing clocks as 0, a clock two days ahead as +172800, one five minutes behind as -300', () => {
    const clock = new CentralClock(() => at);
    clock.observe(at + 300, at + 700, new Date(at).toUTCString());
    expect(clock.offsetSeconds()).toBe(0);
    clock.observe(at + 2 * 86_400_000, at + 2 * 86_400_000 + 80, new Date(at).toUTCString());
    expect(clock.offsetSeconds()).toBe(172_800);
    clock.observe(at - 300_000, at - 299_900, new Date(at).toUTCString());
    expect(clock.offsetSeconds()).toBe(-300);
  });
});
