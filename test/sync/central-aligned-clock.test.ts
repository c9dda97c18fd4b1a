import { describe, expect, it } from 'vitest';
import { CentralAlignedClock } from '../../src/server/sync/central-aligned-clock';
import { CentralClock } from '../../src/server/sync/central-clock';
import { CLOCK_OFF_SECONDS } from '../../src/shared/clock-offset';
import { ManualClock } from '../support/clock';

// A paired store's clock: the machine's until central's replies show it off by CLOCK_OFF_SECONDS
// or more, then central's moment last measured plus the monotonic time elapsed since.
const YEAR = 365 * 86_400_000;
const central = Date.parse('2026-12-06T12:00:00.000Z');

function clocks(machineAt: number) {
  const machine = new ManualClock(machineAt);
  let elapsed = 5_000;
  const aligned = new CentralAlignedClock(machine, () => elapsed);
  const measures = new CentralClock(() => aligned.machine.now(), (offsetMs) => aligned.observe(offsetMs));
  /** Central answered a request that took no time, its Date header saying `centralAt`. */
  const reply = (centralAt: number) => measures.observe(machine.now(), machine.now(), new Date(centralAt).toUTCString());
  const pass = (ms: number) => {
    machine.advance(ms);
    elapsed += ms;
  };
  return { machine, aligned, measures, reply, pass };
}

describe('a store’s clock that follows central’s', () => {
  it('answers the machine’s time before central answered', () => {
    const { machine, aligned } = clocks(central - 3 * YEAR);
    expect(aligned.now()).toBe(machine.now());
    expect(aligned.followsCentral()).toBe(false);
  });

  it('answers central’s time once the machine is 3 years behind, and keeps the machine’s offset for the badge', () => {
    const { aligned, measures, reply, pass } = clocks(central - 3 * YEAR);
    reply(central);
    expect(aligned.followsCentral()).toBe(true);
    // Central's second [12:00:00, 12:00:01) is read as its middle.
    expect(aligned.now()).toBe(central + 500);
    pass(90_000);
    expect(aligned.now()).toBe(central + 90_500);
    expect(measures.offsetSeconds()).toBe(Math.round(-(3 * YEAR + 500) / 1000));
  });

  it('keeps the machine’s time below the threshold (no jitter of a second either way), central’s from it on', () => {
    const below = clocks(central + (CLOCK_OFF_SECONDS - 2) * 1000);
    below.reply(central);
    expect(below.aligned.followsCentral()).toBe(false);
    expect(below.aligned.now()).toBe(below.machine.now());

    const at = clocks(central + CLOCK_OFF_SECONDS * 1000 + 500);
    at.reply(central);
    expect(at.measures.offsetSeconds()).toBe(CLOCK_OFF_SECONDS);
    expect(at.aligned.followsCentral()).toBe(true);
    expect(at.aligned.now()).toBe(central + 500);
  });

  it('counts the time since by the monotonic clock: someone setting the machine’s clock offline changes nothing', () => {
    const { machine, aligned, reply, pass } = clocks(central - 3 * YEAR);
    reply(central);
    pass(60_000);
    // Central is unreachable; someone sets the date right, a minute and more off the other way.
    machine.set(central + 10 * 60_000);
    expect(aligned.now()).toBe(central + 60_500);
    pass(1_000);
    expect(aligned.now()).toBe(central + 61_500);
  });

  it('goes back to the machine’s time when central finds it right again', () => {
    const { machine, aligned, reply, pass } = clocks(central - 3 * YEAR);
    reply(central);
    pass(60_000);
    machine.set(central + 60_000);
    reply(central + 60_000);
    expect(aligned.followsCentral()).toBe(false);
    expect(aligned.now()).toBe(machine.now());
  });

  it('measures on the machine’s clock, not on itself: a second reply does not read its own correction as right', () => {
    const { aligned, measures, reply, pass } = clocks(central - 3 * YEAR);
    reply(central);
    pass(30_000);
    reply(central + 30_000);
    expect(aligned.followsCentral()).toBe(true);
    expect(measures.offsetSeconds()).toBe(Math.round(-(3 * YEAR + 500) / 1000));
    expect(aligned.now()).toBe(central + 30_500);
  });

  it('keeps its time within two seconds of a new measure, and takes a measure further off', () => {
    const { aligned, reply, pass } = clocks(central - 3 * YEAR);
    reply(central);
    pass(10_000);
    // The same clocks, central's Date a second later than the last: within the header's precision.
    reply(central + 11_000);
    expect(aligned.now()).toBe(central + 10_500);
    // Central's clock was stepped forward 5 s: the store follows.
    reply(central + 15_000);
    expect(aligned.now()).toBe(central + 15_500);
  });

  it('resumes, before central answers, from the last sync’s time when the machine says earlier, until central answers', () => {
    const { machine, aligned, reply, pass } = clocks(central - 3 * YEAR);
    const lastSync = central - 3_600_000;
    expect(aligned.resumeFrom(lastSync)).toBe(lastSync - machine.now());
    expect(aligned.now()).toBe(lastSync);
    pass(60_000);
    expect(aligned.now()).toBe(lastSync + 60_000);
    // Central answers: its own time from then on.
    reply(central);
    expect(aligned.now()).toBe(central + 500);
  });

  it('does not resume from a last sync the machine has passed, nor from one within the threshold, nor once central answered', () => {
    const right = clocks(central);
    expect(right.aligned.resumeFrom(central - 60_000)).toBeNull();
    expect(right.aligned.now()).toBe(central);
    const justBehind = clocks(central - (CLOCK_OFF_SECONDS - 1) * 1000);
    expect(justBehind.aligned.resumeFrom(central)).toBeNull();
    expect(justBehind.aligned.now()).toBe(justBehind.machine.now());
    const answered = clocks(central - 3 * YEAR);
    answered.reply(central);
    expect(answered.aligned.resumeFrom(central - 3_600_000)).toBeNull();
    expect(answered.aligned.now()).toBe(central + 500);
  });

  it('answers whole milliseconds, as the machine’s clock does (central refuses an event dated 1.25 ms)', () => {
    const machine = new ManualClock(central - 3 * YEAR);
    let elapsed = 0.125;
    const aligned = new CentralAlignedClock(machine, () => elapsed);
    new CentralClock(() => machine.now(), (offsetMs) => aligned.observe(offsetMs)).observe(machine.now(), machine.now() + 1, new Date(central).toUTCString());
    elapsed += 1000.375;
    expect(Number.isInteger(aligned.now())).toBe(true);
    expect(aligned.now()).toBe(central + 500 + 1000);
  });
});
