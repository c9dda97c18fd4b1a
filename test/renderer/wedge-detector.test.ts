import { describe, expect, it } from 'vitest';
import { createWedgeDetector, detectLines, type WedgeKey } from '../../src/renderer/src/wedge/wedge-detector';

/** Keys of `text`, the first at `start`, then each `gap` ms later (a number, or one gap per key). */
function typed(text: string, start: number, gap: number | number[]): WedgeKey[] {
  let at = start;
  return [...text].map((key, i) => {
    if (i > 0) at += Array.isArray(gap) ? gap[i - 1]! : gap;
    return { key, at };
  });
}

const after = (keys: WedgeKey[], ms: number, key = 'Enter'): WedgeKey => ({ key, at: keys.at(-1)!.at + ms });

/** A scanner: `text` at `gap` ms per key, then Enter. */
function scan(text: string, start = 1000, gap = 4, terminator = 'Enter'): WedgeKey[] {
  const keys = typed(text, start, gap);
  return [...keys, after(keys, gap, terminator)];
}

const TRACK1 = '%B4111111111111111^DOE/JOHN^2512101000000000?';
const TRACK2 = ';4111111111111111=25121010000000000000?';

describe('wedge detector: scans', () => {
  it('captures a fast burst ending in Enter, and swallows the Enter', () => {
    const detector = createWedgeDetector();
    const keys = scan('DEMO0001');
    const steps = keys.map((k) => detector.feed(k));
    expect(steps.slice(0, -1).every((s) => s.action === 'pass' && s.line === undefined)).toBe(true);
    expect(steps.at(-1)).toEqual({ action: 'swallow', inBurst: false, line: 'DEMO0001' });
  });

  it('accepts Tab as the terminator too', () => {
    expect(detectLines(scan('4155550123', 0, 3, 'Tab'))).toEqual(['4155550123']);
  });

  it('captures a burst with zero gaps (synthetic events dispatched in one go)', () => {
    expect(detectLines(scan('0123456789', 500, 0))).toEqual(['0123456789']);
  });

  it('keeps AIM symbology prefixes and any printable characters for the node to decode', () => {
    expect(detectLines(scan(']E09780201379624'))).toEqual([']E09780201379624']);
    expect(detectLines(scan('ana@example.com'))).toEqual(['ana@example.com']);
  });

  it('marks the second and later fast characters as in a burst', () => {
    const detector = createWedgeDetector();
    const steps = typed('12345', 0, 5).map((k) => detector.feed(k));
    expect(steps.map((s) => s.inBurst)).toEqual([false, true, true, true, true]);
  });

  it('ignores Shift between characters (scanners press it for capitals)', () => {
    const keys: WedgeKey[] = [];
    let at = 100;
    for (const c of 'DEMO0001') {
      if (/[A-Z]/.test(c)) keys.push({ key: 'Shift', at: (at += 2) });
      keys.push({ key: c, at: (at += 3) });
    }
    keys.push({ key: 'Enter', at: at + 3 });
    expect(detectLines(keys)).toEqual(['DEMO0001']);
  });

  it('tolerates a busy machine delaying a few keys (gaps measured in Chromium under load)', () => {
    // Measured with Playwright typing at 5 ms per key, load average 7 on two cores.
    expect(detectLines([...typed('4155550123', 0, [49, 40, 77, 32, 44, 37, 53, 57, 26]), { key: 'Enter', at: 415 + 22 }])).toEqual(['4155550123']);
    expect(detectLines([...typed('4155550123', 0, [106, 37, 73, 22, 7, 27, 7, 7, 7]), { key: 'Enter', at: 293 + 14 }])).toEqual(['4155550123']);
  });

  it('keeps a scan whole when only its second key was late (a pause before it, fast after)', () => {
    const keys = typed('98765432', 5000, [120, 5, 5, 5, 5, 5, 5]);
    expect(detectLines([...keys, after(keys, 5)])).toEqual(['98765432']);
  });
});

describe('wedge detector: typing is not captured', () => {
  it('leaves slow typing alone, Enter included', () => {
    const detector = createWedgeDetector();
    const keys = typed('4155550123', 0, 140);
    const steps = [...keys, after(keys, 200)].map((k) => detector.feed(k));
    expect(steps.every((s) => s.action === 'pass' && s.line === undefined && !s.inBurst)).toBe(true);
  });

  it('leaves typing at a fast typist’s pace alone (90 ms per key)', () => {
    const keys = typed('ana@example.com', 0, 90);
    expect(detectLines([...keys, after(keys, 90)])).toEqual([]);
  });

  it('leaves a word with rolled-over keys alone', () => {
    const keys = typed('then', 0, [20, 100, 30]);
    expect(detectLines([...keys, after(keys, 80)])).toEqual([]);
  });

  it('needs at least four characters', () => {
    expect(detectLines(scan('123'))).toEqual([]);
    expect(detectLines(scan('1234'))).toEqual(['1234']);
    expect(detectLines(scan('12345678', 0, 4), { minLength: 10 })).toEqual([]);
  });

  it('does not take a fast burst whose Enter comes much later (someone pressed Enter)', () => {
    const keys = typed('12345678', 0, 4);
    expect(detectLines([...keys, after(keys, 400)])).toEqual([]);
  });

  it('does not take fast characters with no Enter', () => {
    expect(detectLines(typed('12345678', 0, 4))).toEqual([]);
  });

  it('drops the run on Backspace, arrows, auto-repeat and shortcuts', () => {
    for (const breaker of [{ key: 'Backspace' }, { key: 'ArrowLeft' }, { key: '5', repeat: true }, { key: 'v', shortcut: true }]) {
      const first = typed('1234', 0, 4);
      const rest = typed('5678', 20, 4);
      const keys = [...first, { ...breaker, at: 18 }, ...rest, after(rest, 4)];
      // Only the fast run after the breaker counts.
      expect(detectLines(keys)).toEqual(['5678']);
    }
  });

  it('refuses a line longer than the node accepts', () => {
    expect(detectLines(scan('1'.repeat(40)), { maxLength: 32 })).toEqual([]);
    expect(detectLines(scan('1'.repeat(32)), { maxLength: 32 })).toEqual(['1'.repeat(32)]);
  });
});

describe('wedge detector: typing and scans mixed', () => {
  it('takes only the scan when someone typed slowly just before it', () => {
    const human = typed('hello', 0, 160);
    const burst = typed('4155550123', human.at(-1)!.at + 300, 4);
    expect(detectLines([...human, ...burst, after(burst, 4)])).toEqual(['4155550123']);
  });

  it('does not glue a typed key that came right before the scan', () => {
    const human = typed('hello', 0, 120);
    const burst = typed('4155550123', human.at(-1)!.at + 110, 4);
    expect(detectLines([...human, ...burst, after(burst, 4)])).toEqual(['4155550123']);
  });

  it('captures two scans in a row, and typing in between stays typing', () => {
    const first = scan('11111111', 0);
    const human = typed('abc', 2000, 200);
    const second = scan('22222222', 4000);
    expect(detectLines([...first, ...human, { key: 'Enter', at: 2500 }, ...second])).toEqual(['11111111', '22222222']);
  });

  it('a long pause inside a burst splits it: the part after the pause stands alone', () => {
    const a = typed('1234', 0, 4);
    const b = typed('5678', 1000, 4);
    expect(detectLines([...a, ...b, after(b, 4)])).toEqual(['5678']);
  });
});

describe('wedge detector: card swipes', () => {
  it('holds a swipe line briefly, then releases it whole', () => {
    const detector = createWedgeDetector();
    const keys = scan(TRACK1 + TRACK2, 0, 2);
    const last = keys.map((k) => detector.feed(k)).at(-1)!;
    expect(last).toMatchObject({ action: 'swallow', pending: true });
    expect(last.line).toBeUndefined();
    const enterAt = keys.at(-1)!.at;
    expect(detector.flush(enterAt + 100)).toBeNull();
    expect(detector.flush(enterAt + 150)).toBe(TRACK1 + TRACK2);
    expect(detector.pending).toBe(false);
    expect(detector.flush(enterAt + 400)).toBeNull();
  });

  it('joins tracks when the reader presses Enter after each one', () => {
    const t1 = scan(TRACK1, 0, 2);
    const t2 = scan(TRACK2, t1.at(-1)!.at + 3, 2);
    const detector = createWedgeDetector();
    const steps = [...t1, ...t2].map((k) => detector.feed(k));
    // Both Enters are swallowed; nothing is posted until the swipe settles.
    expect(steps.filter((s) => s.action === 'swallow')).toHaveLength(2);
    expect(steps.some((s) => s.line !== undefined)).toBe(false);
    expect(detector.flush(t2.at(-1)!.at + 150)).toBe(TRACK1 + TRACK2);
  });

  it('captures a track-2-only loyalty card', () => {
    expect(detectLines(scan(';6001234567890?', 0, 3))).toEqual([';6001234567890?']);
  });

  it('releases a held swipe when an unrelated key comes', () => {
    const detector = createWedgeDetector();
    const keys = scan(TRACK2, 0, 2);
    for (const k of keys) detector.feed(k);
    const step = detector.feed({ key: 'x', at: keys.at(-1)!.at + 40 });
    expect(step).toMatchObject({ action: 'pass', line: TRACK2 });
    expect(detector.pending).toBe(false);
  });

  it('releases a held swipe when the next sentinel comes too late (a second swipe)', () => {
    const first = scan(TRACK2, 0, 2);
    const second = scan(TRACK2, first.at(-1)!.at + 500, 2);
    expect(detectLines([...first, ...second])).toEqual([TRACK2, TRACK2]);
  });

  it('does not hold barcodes that merely contain a question mark', () => {
    expect(createWedgeDetector().feed).toBeTypeOf('function');
    const detector = createWedgeDetector();
    const steps = scan('ABC?1234', 0, 3).map((k) => detector.feed(k));
    expect(steps.at(-1)).toMatchObject({ action: 'swallow', line: 'ABC?1234' });
  });

  it('reset() forgets a half-read burst and a held swipe', () => {
    const detector = createWedgeDetector();
    for (const k of scan(TRACK2, 0, 2)) detector.feed(k);
    detector.reset();
    expect(detector.pending).toBe(false);
    expect(detector.flush(10_000)).toBeNull();
  });
});
