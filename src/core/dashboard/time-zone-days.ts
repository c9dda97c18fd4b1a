const DAY_MS = 86_400_000;

/** How far a time zone is ahead of UTC at an instant, in ms (Quito: -5 h). */
export function zoneOffsetMs(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local - Math.floor(at / 1000) * 1000;
}

export interface DayWindow {
  /** Added to an instant before dividing by a day: the local day's number. */
  offset: number;
  /** Local day numbers, oldest first; the last is today. */
  dayNumbers: number[];
  /** The first instant of the oldest day. */
  from: number;
}

/**
 * The last `count` local days up to today in a time zone, with the zone's offset of today (a day
 * across a daylight-saving change is off by that hour at its edges).
 */
export function lastDays(timeZone: string, now: number, count: number): DayWindow {
  const offset = zoneOffsetMs(timeZone, now);
  const today = Math.floor((now + offset) / DAY_MS);
  const dayNumbers = Array.from({ length: count }, (_, i) => today - count + 1 + i);
  return { offset, dayNumbers, from: (today - count + 1) * DAY_MS - offset };
}

export const dayLabel = (dayNumber: number): string => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
