const DAY_MS = 86_400_000;
// Day number → "YYYY-MM-DDT" as Date#toISOString writes it. Lists format two timestamps a row and
// building a Date for each was ~10 % of a card list's time (issue 13): the date part comes from here,
// the time of day from arithmetic. Bounded: cleared when full.
const dayPrefixes = new Map<number, string>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** Resource-style timestamp: ISO 8601 with milliseconds, UTC (2026-11-21T10:00:00.000Z). */
export function toIso(ms: number): string {
  // Only whole milliseconds Date can hold take the fast path; the rest (NaN throws) is Date's.
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > 8.64e15) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= 4096) dayPrefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, -'00:00:00.000Z'.length);
    dayPrefixes.set(day, prefix);
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${prefix}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/** Legacy-style timestamp: whole Unix seconds. */
export function toUnixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
