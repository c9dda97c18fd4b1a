import { ServiceError } from '../../shared/errors';

// Opening hours as stores write them: {"mon": "07:00-19:00", "sat": "09:00-13:00,16:00-20:00",
// "sun": "closed"}. A day left out is closed. A range whose end is not after its start runs past
// midnight ("22:00-02:00"); "00:00-24:00" is the whole day. Read in the store's IANA time zone.

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
type Weekday = (typeof WEEKDAYS)[number];
type Range = { from: number; to: number };

const RANGE = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$/;

function parseDay(value: unknown): Range[] | null {
  if (typeof value !== 'string') return null;
  const text = value.trim().toLowerCase();
  if (text === 'closed' || text === '') return [];
  const ranges: Range[] = [];
  for (const part of text.split(',')) {
    const m = RANGE.exec(part.trim());
    if (!m) return null;
    const from = Number(m[1]) * 60 + Number(m[2]);
    const to = Number(m[3]) * 60 + Number(m[4]);
    if (to > 24 * 60 || from === to) return null;
    ranges.push({ from, to });
  }
  return ranges;
}

/**
 * Refuses hours the node could not read (an unknown day, a badly written range) or that contradict
 * themselves: an empty day (write "closed" or leave it out), ranges of a day that overlap, and a
 * range running past midnight into the next day's first hours (Sunday's runs into Monday's, as
 * isOpenAt reads yesterday's late ranges). Ranges that only touch ("08:00-12:00,12:00-14:00") are
 * accepted: a range includes its start and not its end. Only these checks refuse: isOpenAt still
 * reads hours stored before them (a row from an older node is never refused when it is read).
 */
export function checkOpeningHours(hours: Record<string, unknown>, field = 'hours'): Record<string, string> {
  const out: Record<string, string> = {};
  const parsed = new Map<Weekday, Range[]>();
  for (const [day, value] of Object.entries(hours)) {
    if (!(WEEKDAYS as readonly string[]).includes(day)) throw new ServiceError('validation_failed', `${field} takes the days ${WEEKDAYS.join(', ')}; "${day}" is not one.`, `${field}.${day}`);
    const ranges = parseDay(value);
    if (ranges === null) throw new ServiceError('validation_failed', `${field}.${day} must be "closed" or ranges like "08:00-12:00,14:00-18:00".`, `${field}.${day}`);
    if (String(value).trim() === '') throw new ServiceError('validation_failed', `${field}.${day} is empty: write "closed", or leave the day out.`, `${field}.${day}`);
    const clash = overlapWithin(ranges);
    if (clash) throw new ServiceError('validation_failed', `${field}.${day}: ${clash[0]} and ${clash[1]} overlap. Write them as one range, or fix the times.`, `${field}.${day}`);
    parsed.set(day as Weekday, ranges);
    out[day] = String(value).trim();
  }
  for (const [index, day] of WEEKDAYS.entries()) {
    const next = WEEKDAYS[(index + 1) % 7]!;
    const late = (parsed.get(day) ?? []).find((r) => r.to <= r.from);
    const early = late && (parsed.get(next) ?? []).find((r) => r.from < late.to);
    if (late && early) {
      throw new ServiceError('validation_failed', `${field}.${day}: ${written(late)} runs past midnight into ${next}'s ${written(early)}. End it by ${clock(early.from)}, or fix the times.`, `${field}.${day}`);
    }
  }
  return out;
}

/** The first two ranges of one day that share a minute (a late range counts up to midnight), or null. */
function overlapWithin(ranges: Range[]): [string, string] | null {
  const spans = ranges.map((r) => ({ range: r, from: r.from, to: r.to > r.from ? r.to : 24 * 60 })).sort((a, b) => a.from - b.from);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]!.from < spans[i - 1]!.to) return [written(spans[i - 1]!.range), written(spans[i]!.range)];
  }
  return null;
}

const clock = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
const written = (range: Range) => `${clock(range.from)}-${clock(range.to)}`;

/**
 * Refuses a time zone the node's clock cannot read in (IANA names, e.g. America/Guayaquil). The
 * name is kept as written: Node's ICU answers older names for some (Asia/Kolkata as Asia/Calcutta,
 * Europe/Kyiv as Europe/Kiev, America/Nuuk as America/Godthab), which the owner did not choose and
 * a newer node would not give. ICU's spelling is taken only for a name written without its
 * capitals (america/new_york).
 */
export function checkTimeZone(timeZone: string, field = 'time_zone'): string {
  const written = timeZone.trim();
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: written }).resolvedOptions().timeZone;
  } catch {
    throw new ServiceError('validation_failed', `${field} must be an IANA time zone such as America/Guayaquil.`, field);
  }
  return written.split('/').every((part) => /^[A-Z]/.test(part)) ? written : resolved;
}

/** Day of week and minute of day at `at` in `timeZone`. */
function localTime(at: number, timeZone: string): { day: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = WEEKDAYS.indexOf(get('weekday').toLowerCase() as Weekday);
  return { day, minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

/**
 * Whether the store is open at `at`: today's ranges, and yesterday's that run past midnight.
 * Null when the hours cannot be read (none given, or written before the node checked them).
 */
export function isOpenAt(hours: Record<string, unknown> | null, timeZone: string, at: number): boolean | null {
  if (!hours) return null;
  const days = new Map<Weekday, Range[]>();
  for (const day of WEEKDAYS) {
    const ranges = hours[day] === undefined ? [] : parseDay(hours[day]);
    if (ranges === null) return null;
    days.set(day, ranges);
  }
  let local: { day: number; minute: number };
  try {
    local = localTime(at, timeZone);
  } catch {
    return null;
  }
  const today = days.get(WEEKDAYS[local.day]!) ?? [];
  const yesterday = days.get(WEEKDAYS[(local.day + 6) % 7]!) ?? [];
  const openToday = today.some((r) => (r.to > r.from ? local.minute >= r.from && local.minute < r.to : local.minute >= r.from));
  const carriedOver = yesterday.some((r) => r.to <= r.from && local.minute < r.to);
  return openToday || carriedOver;
}
