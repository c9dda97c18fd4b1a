const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone: building one costs far more than using it. Throws on an unknown zone. */
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** How far a time zone is ahead of UTC at an instant, in ms (Quito: -5 h). */
export function zoneOffsetMs(timeZone: string, at: number): number {
  const parts = formatterOf(timeZone).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local - Math.floor(at / 1000) * 1000;
}

/** The local day (days since 1970-01-01 on the zone's calendar) an instant falls on. */
export const localDayOf = (timeZone: string, at: number): number => Math.floor((at + zoneOffsetMs(timeZone, at)) / DAY_MS);

/**
 * The first instant (whole second) of a local day: found by halving, as a day may start at an hour
 * other than midnight (Santiago springs forward at 00:00) and last 23, 24 or 25 hours.
 */
export function startOfLocalDay(timeZone: string, dayNumber: number): number {
  // Every zone is within -12 h and +14 h of UTC: the start lies within these bounds.
  let before = dayNumber * DAY_MS - 15 * 3600_000; // still the day before
  let after = dayNumber * DAY_MS + 13 * 3600_000; // already the day
  while (after - before > 1000) {
    const middle = before + Math.floor((after - before) / 2000) * 1000;
    if (localDayOf(timeZone, middle) >= dayNumber) after = middle;
    else before = middle;
  }
  return after;
}

export interface DayWindow {
  /** The zone the days are counted in: the one asked for, or UTC when this node cannot read it. */
  timeZone: string;
  /** Local day numbers, oldest first; the last is today. */
  dayNumbers: number[];
  /** Where each day starts, and after the last the end of today: one more than dayNumbers. */
  bounds: number[];
  /** The first instant of the oldest day. */
  from: number;
}

/** The zone itself when this node's clock can read in it, else UTC (a store's zone written by a newer node may not be). */
export function zoneOrUtc(timeZone: string): string {
  try {
    formatterOf(timeZone);
    return timeZone;
  } catch {
    return 'UTC';
  }
}

/**
 * The last `count` local days up to today in a time zone, each from its own local midnight to the
 * next: a day across a daylight-saving change is 23 or 25 hours long, as the store lived it. A zone
 * this node cannot read is counted in UTC (and says so) rather than failing the page.
 */
export function lastDays(timeZone: string, now: number, count: number): DayWindow {
  const zone = zoneOrUtc(timeZone);
  const today = localDayOf(zone, now);
  const dayNumbers = Array.from({ length: count }, (_, i) => today - count + 1 + i);
  const bounds = [...dayNumbers, today + 1].map((d) => startOfLocalDay(zone, d));
  return { timeZone: zone, dayNumbers, bounds, from: bounds[0]! };
}

export const dayLabel = (dayNumber: number): string => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);

/** The day number of an ISO calendar date (`2026-11-30`), or null when it is no such day (`2026-02-30`). */
export function dayNumberOf(isoDate: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!match) return null;
  const at = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return dayLabel(at / DAY_MS) === isoDate ? at / DAY_MS : null;
}

/**
 * The local days from `first` to `last` (day numbers, both included) in a time zone, each from its
 * own local midnight to the next, as lastDays counts them; `bounds`' last is where `last` ends.
 */
export function daysBetween(timeZone: string, first: number, last: number): DayWindow {
  const zone = zoneOrUtc(timeZone);
  const dayNumbers = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  const bounds = [...dayNumbers, last + 1].map((d) => startOfLocalDay(zone, d));
  return { timeZone: zone, dayNumbers, bounds, from: bounds[0]! };
}
