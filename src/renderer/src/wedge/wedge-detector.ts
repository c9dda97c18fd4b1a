/**
 * Keyboard-wedge detection: tells a scanner's (or card reader's) typed burst apart from a person
 * typing, by key timing alone. Pure: no DOM, no clock of its own — the caller passes each key with
 * its timestamp (`KeyboardEvent.timeStamp`), so tests drive it with synthetic times.
 *
 * A scan is a run of at least `minLength` characters (default 4) ended by Enter or Tab, where:
 *   - no gap (between characters, or before the Enter) exceeds `jitterGapMs` (150 ms): a longer
 *     pause always ends a run;
 *   - the gaps' median and mean are at most `maxGapMs` (50 ms), and at most a third of them
 *     exceed it. Scanners type a key every 1–10 ms; a busy machine may delay a few keys, which
 *     this tolerates. People type 100–250 ms per key: even a fast typist's rolled-over pairs do not
 *     make most gaps of a word fast, so typed text is not captured.
 * A person's keys just before a scan are not glued to it: leading characters followed by a slow gap
 * are dropped, unless the character came after a pause and the scan is fast right after it (a
 * busy machine delayed the scan's second key).
 * Shift, CapsLock, AltGraph and NumLock are neutral (scanners press Shift for capitals); any other
 * non-character key, a key held down (auto-repeat) or a shortcut (Ctrl/Alt/Meta) ends the run.
 *
 * Card swipes: a keyboard-emulation reader types `%B…?` (track 1) and `;…?` (track 2), and some
 * press Enter after each track. A line that looks like a finished track (starts with `%`, `;` or `+`
 * and ends with `?`) is therefore held for `trackSettleMs` (default 150 ms): if another track's
 * start sentinel follows quickly, it joins the same line (the node wants all tracks in one line);
 * otherwise `flush()` — or the next unrelated key — releases it.
 */

export interface WedgeOptions {
  /** A scan's typical pause between keys, ms: the median and mean gap must not exceed it. */
  maxGapMs: number;
  /** No pause inside a scan (or before its Enter) is longer than this, ms. */
  jitterGapMs: number;
  /** Fewest characters in a scan (terminator not counted). */
  minLength: number;
  /** Most characters in a scan (the node accepts up to 1024). */
  maxLength: number;
  /** How long a finished swipe track waits for the next track, ms. */
  trackSettleMs: number;
}

export const WEDGE_DEFAULTS: Readonly<WedgeOptions> = Object.freeze({
  maxGapMs: 50,
  jitterGapMs: 150,
  minLength: 4,
  maxLength: 1024,
  trackSettleMs: 150,
});

/** One keydown as the detector sees it. */
export interface WedgeKey {
  /** `KeyboardEvent.key`: a single character, or a name such as "Enter", "Shift", "Backspace". */
  key: string;
  /** Timestamp in ms (any monotonic clock, the same for every key). */
  at: number;
  /** The key is held down (auto-repeat). */
  repeat?: boolean;
  /** Ctrl, Alt or Meta is held (and not as AltGraph): a shortcut, never part of a scan. */
  shortcut?: boolean;
}

export interface WedgeStep {
  /**
   * pass: let the key through (typing, or a character that may belong to a scan);
   * swallow: stop it — an Enter/Tab that ends (or separates tracks of) a scan must not submit a form
   * or move focus.
   */
  action: 'pass' | 'swallow';
  /** A complete scan line, when this key finished one (or showed that a held swipe was complete). */
  line?: string;
  /** The key is a character that continues a fast burst (second or later fast character). */
  inBurst: boolean;
  /** A swipe track was held: call `flush()` after `trackSettleMs` to release it. */
  pending?: boolean;
}

export interface WedgeDetector {
  feed(key: WedgeKey): WedgeStep;
  /** Releases a held swipe line once `trackSettleMs` has passed since its Enter; null otherwise. */
  flush(at: number): string | null;
  /** Forgets everything (focus change, page hidden). */
  reset(): void;
  /** A swipe line is held, waiting for another track or for `flush()`. */
  readonly pending: boolean;
}

const TERMINATORS = new Set(['Enter', 'Tab']);
const NEUTRAL = new Set(['Shift', 'CapsLock', 'AltGraph', 'NumLock']);
const TRACK_STARTS = new Set(['%', ';', '+']);

function looksLikeTrack(line: string): boolean {
  return TRACK_STARTS.has(line.charAt(0)) && line.endsWith('?');
}

/** The characters of the current run, with when each came and when the key before it came. */
interface Run {
  chars: string[];
  times: number[];
  /** Time of the previous key (any key) before each character. */
  before: number[];
  /** The run went past `maxLength`: not a scan the node would take. */
  overflow: boolean;
}

const emptyRun = (): Run => ({ chars: [], times: [], before: [], overflow: false });

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The scan a run makes when its terminator comes at `end`, or null when it is typing. Exported for
 * tests and for tuning thresholds on recordings.
 */
export function scanOfRun(run: Run, end: number, o: WedgeOptions): string | null {
  if (run.overflow) return null;
  const gapAfter = (i: number) => (i + 1 < run.times.length ? run.times[i + 1]! - run.times[i]! : Number.POSITIVE_INFINITY);
  let start = 0;
  // Drop a person's keys right before the scan: a slow gap after them, and either no pause before
  // them or no fast burst after.
  while (start < run.chars.length - 1 && gapAfter(start) > o.maxGapMs) {
    const afterPause = run.times[start]! - run.before[start]! > o.jitterGapMs;
    if (afterPause && gapAfter(start + 1) <= o.maxGapMs) break;
    start++;
  }
  const length = run.chars.length - start;
  if (length < o.minLength) return null;
  const gaps: number[] = [];
  for (let i = start + 1; i < run.chars.length; i++) gaps.push(run.times[i]! - run.times[i - 1]!);
  gaps.push(end - run.times[run.times.length - 1]!);
  if (gaps.some((g) => g > o.jitterGapMs)) return null;
  const slow = gaps.filter((g) => g > o.maxGapMs).length;
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  if (median(gaps) > o.maxGapMs || mean > o.maxGapMs || slow * 3 > gaps.length) return null;
  return run.chars.slice(start).join('');
}

export function createWedgeDetector(options: Partial<WedgeOptions> = {}): WedgeDetector {
  const o: WedgeOptions = { ...WEDGE_DEFAULTS, ...options };
  let run = emptyRun();
  /** Time of the last key of any kind (neutral keys aside). */
  let lastKeyAt = Number.NEGATIVE_INFINITY;
  /** A finished swipe line waiting for another track, the run that made it, and when its Enter came. */
  let held: { line: string; run: Run; at: number } | null = null;

  const lastCharAt = () => run.times[run.times.length - 1] ?? Number.NEGATIVE_INFINITY;

  /** Releases the held line (if any) before handling an unrelated key. */
  function release(): string | undefined {
    const line = held?.line;
    held = null;
    return line;
  }

  function withLine(step: WedgeStep, line: string | undefined): WedgeStep {
    return line === undefined ? step : { ...step, line };
  }

  return {
    get pending() {
      return held !== null;
    },

    feed({ key, at, repeat, shortcut }) {
      if (NEUTRAL.has(key)) return { action: 'pass', inBurst: run.chars.length > 0 && at - lastCharAt() <= o.maxGapMs };
      const previousKeyAt = lastKeyAt;
      lastKeyAt = at;

      // Another track of the same swipe, right after the held one.
      if (held && !repeat && !shortcut && TRACK_STARTS.has(key) && at - held.at <= o.trackSettleMs) {
        run = held.run;
        run.chars.push(key);
        run.times.push(at);
        run.before.push(previousKeyAt);
        held = null;
        return { action: 'pass', inBurst: true };
      }
      const released = release();

      if (repeat || shortcut) {
        run = emptyRun();
        return withLine({ action: 'pass', inBurst: false }, released);
      }

      if (TERMINATORS.has(key)) {
        const ended = run;
        run = emptyRun();
        const line = ended.chars.length > 0 ? scanOfRun(ended, at, o) : null;
        if (line === null) return withLine({ action: 'pass', inBurst: false }, released);
        if (looksLikeTrack(line)) {
          held = { line, run: ended, at };
          return withLine({ action: 'swallow', inBurst: false, pending: true }, released);
        }
        // A released line and a new one cannot both end at this key: the new one needed fast keys
        // after the held one, which would have joined or released it already.
        return { action: 'swallow', inBurst: false, line };
      }

      if (key.length === 1) {
        const gap = at - lastCharAt();
        if (run.chars.length === 0 || gap > o.jitterGapMs) run = emptyRun();
        if (run.chars.length >= o.maxLength) {
          // Too long for a scan: keep only the timing, so the run still ends at the next pause.
          run.overflow = true;
          run.times[run.times.length - 1] = at;
        } else {
          run.chars.push(key);
          run.times.push(at);
          run.before.push(previousKeyAt);
        }
        return withLine({ action: 'pass', inBurst: run.chars.length > 1 && gap <= o.maxGapMs }, released);
      }

      // Backspace, arrows, Escape, F-keys, "Unidentified", IME "Process"…: a person at the keyboard.
      run = emptyRun();
      return withLine({ action: 'pass', inBurst: false }, released);
    },

    flush(at) {
      if (!held || at - held.at < o.trackSettleMs) return null;
      return release() ?? null;
    },

    reset() {
      run = emptyRun();
      held = null;
      lastKeyAt = Number.NEGATIVE_INFINITY;
    },
  };
}

/** Feeds a whole sequence (tests, replaying a recording): the lines captured, in order. */
export function detectLines(keys: readonly WedgeKey[], options: Partial<WedgeOptions> = {}): string[] {
  const detector = createWedgeDetector(options);
  const lines: string[] = [];
  for (const key of keys) {
    const step = detector.feed(key);
    if (step.line !== undefined) lines.push(step.line);
  }
  const last = keys.at(-1);
  const settled = detector.flush((last?.at ?? 0) + (options.trackSettleMs ?? WEDGE_DEFAULTS.trackSettleMs));
  if (settled !== null) lines.push(settled);
  return lines;
}
