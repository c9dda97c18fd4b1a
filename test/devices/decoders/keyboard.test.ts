import { describe, expect, it } from 'vitest';
import {
  KeyboardScanAssembler,
  type KeyboardOutcome,
  decodeKeyboardReport,
  keyStroke,
} from '../../../src/devices/decoders/keyboard';
import { hex, prng, reports } from './hex';

// Recorded-style boot keyboard reports: [modifiers, reserved, key1..key6], as a keyboard-emulation
// scanner sends them. 0x02 = left shift, 0x20 = right shift.

/** A wedge scanner reading "DEMO0001": each key pressed and released, Enter at the end. */
const DEMO0001 = reports([
  '02 00 00 00 00 00 00 00', // left shift down alone (this scanner presses shift first)
  '02 00 07 00 00 00 00 00', // D
  '02 00 00 00 00 00 00 00', // D up, shift still down
  '00 00 00 00 00 00 00 00', // shift up
  '20 00 08 00 00 00 00 00', // E, with right shift
  '00 00 00 00 00 00 00 00',
  '02 00 10 00 00 00 00 00', // M
  '00 00 00 00 00 00 00 00',
  '02 00 12 00 00 00 00 00', // O
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 1e 00 00 00 00 00', // 1
  '00 00 00 00 00 00 00 00',
  '00 00 28 00 00 00 00 00', // Enter
  '00 00 00 00 00 00 00 00',
]);

/**
 * A fast magnetic stripe reader typing a loyalty card's track 2, ";6274010000000120=4912101?", with
 * rollover: the next key goes down in the same report the previous one goes up; a release only
 * between two equal keys.
 */
const LOYALTY_SWIPE = reports([
  '00 00 33 00 00 00 00 00', // ;
  '00 00 23 00 00 00 00 00', // 6
  '00 00 1f 00 00 00 00 00', // 2
  '00 00 24 00 00 00 00 00', // 7
  '00 00 21 00 00 00 00 00', // 4
  '00 00 27 00 00 00 00 00', // 0
  '00 00 1e 00 00 00 00 00', // 1
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 00 00 00 00 00 00',
  '00 00 27 00 00 00 00 00', // 0
  '00 00 1e 00 00 00 00 00', // 1
  '00 00 1f 00 00 00 00 00', // 2
  '00 00 27 00 00 00 00 00', // 0
  '00 00 2e 00 00 00 00 00', // =
  '00 00 21 00 00 00 00 00', // 4
  '00 00 26 00 00 00 00 00', // 9
  '00 00 1e 00 00 00 00 00', // 1
  '00 00 1f 00 00 00 00 00', // 2
  '00 00 1e 00 00 00 00 00', // 1
  '00 00 27 00 00 00 00 00', // 0
  '00 00 1e 00 00 00 00 00', // 1
  '02 00 38 00 00 00 00 00', // ? (shift + /)
  '00 00 28 00 00 00 00 00', // Enter
  '00 00 00 00 00 00 00 00',
]);

const UP = hex('00 00 00 00 00 00 00 00');

/** Pushes reports 4 ms apart, as a scanner sends them. */
function feed(assembler: KeyboardScanAssembler, list: readonly Uint8Array[], start = 0): KeyboardOutcome[] {
  return list.flatMap((report, i) => assembler.push(report, start + i * 4));
}

function key(usage: number, modifiers = 0): Uint8Array {
  return Uint8Array.from([modifiers, 0, usage, 0, 0, 0, 0, 0]);
}

describe('boot keyboard report decoding', () => {
  it.each([
    // usage, plain, shifted
    [0x04, 'a', 'A'],
    [0x1d, 'z', 'Z'],
    [0x1e, '1', '!'],
    [0x1f, '2', '@'],
    [0x20, '3', '#'],
    [0x21, '4', '$'],
    [0x22, '5', '%'],
    [0x23, '6', '^'],
    [0x24, '7', '&'],
    [0x25, '8', '*'],
    [0x26, '9', '('],
    [0x27, '0', ')'],
    [0x2c, ' ', ' '],
    [0x2d, '-', '_'],
    [0x2e, '=', '+'],
    [0x2f, '[', '{'],
    [0x30, ']', '}'],
    [0x31, '\\', '|'],
    [0x33, ';', ':'],
    [0x34, "'", '"'],
    [0x35, '`', '~'],
    [0x36, ',', '<'],
    [0x37, '.', '>'],
    [0x38, '/', '?'],
    [0x59, '1', '1'], // keypad 1
    [0x62, '0', '0'], // keypad 0
    [0x63, '.', '.'], // keypad .
  ])('usage %d types %j, %j with shift', (usage, plain, shifted) => {
    expect(decodeKeyboardReport(key(usage))).toMatchObject({ ok: true, strokes: [{ type: 'char', char: plain }] });
    expect(decodeKeyboardReport(key(usage, 0x02))).toMatchObject({ ok: true, strokes: [{ type: 'char', char: shifted }] });
    expect(decodeKeyboardReport(key(usage, 0x20))).toMatchObject({ ok: true, strokes: [{ type: 'char', char: shifted }] });
  });

  it('maps all of a–z', () => {
    const typed = Array.from({ length: 26 }, (_, i) => keyStroke(0x04 + i, 0)).map((s) => (s.type === 'char' ? s.char : '?'));
    expect(typed.join('')).toBe('abcdefghijklmnopqrstuvwxyz');
  });

  it('Enter and keypad Enter are "enter" strokes', () => {
    expect(decodeKeyboardReport(key(0x28))).toMatchObject({ ok: true, strokes: [{ type: 'enter' }] });
    expect(decodeKeyboardReport(key(0x58))).toMatchObject({ ok: true, strokes: [{ type: 'enter' }] });
  });

  it.each([
    ['Tab', key(0x2b)],
    ['Backspace', key(0x2a)],
    ['Escape', key(0x29)],
    ['Non-US #', key(0x32)],
    ['F1', key(0x3a)],
    ['Caps Lock', key(0x39)],
    ['Ctrl+J', key(0x0d, 0x01)],
    ['Right Alt+a', key(0x04, 0x40)],
    ['GUI+1', key(0x1e, 0x08)],
  ])('%s has no character: an "unknown" stroke', (_name, report) => {
    const frame = decodeKeyboardReport(report);
    expect(frame).toMatchObject({ ok: true, strokes: [{ type: 'unknown', usage: report[2] }] });
  });

  it('emits key-down edges only: a key still listed from the last report types nothing', () => {
    expect(decodeKeyboardReport(key(0x04), [0x04])).toMatchObject({ ok: true, strokes: [], pressed: [0x04] });
    expect(decodeKeyboardReport(hex('00 00 04 05 00 00 00 00'), [0x04])).toMatchObject({
      ok: true,
      strokes: [{ type: 'char', char: 'b' }],
      pressed: [0x04, 0x05],
    });
  });

  it('several new keys in one report come out in slot order; repeats and modifier usages are ignored', () => {
    const frame = decodeKeyboardReport(hex('00 7f 06 04 06 e1 00 05'));
    expect(frame).toMatchObject({
      ok: true,
      pressed: [0x06, 0x04, 0x05],
      strokes: [
        { type: 'char', char: 'c' },
        { type: 'char', char: 'a' },
        { type: 'char', char: 'b' },
      ],
    });
  });

  it.each([
    ['an empty report', '', 'truncated'],
    ['a 1-byte report', '02', 'truncated'],
    ['a 7-byte report', '00 00 04 00 00 00 00', 'truncated'],
    ['a 9-byte report (report id not stripped)', '01 00 00 04 00 00 00 00 00', 'oversized'],
    ['ErrorRollOver in every slot', '00 00 01 01 01 01 01 01', 'rollover_error'],
    ['POSTFail', '00 00 02 00 00 00 00 00', 'rollover_error'],
    ['ErrorUndefined beside a key', '00 00 04 03 00 00 00 00', 'rollover_error'],
  ])('%s → %s', (_name, dump, code) => {
    expect(decodeKeyboardReport(hex(dump))).toEqual({ ok: false, code, reason: expect.any(String) });
  });
});

describe('KeyboardScanAssembler', () => {
  it('turns the recorded "DEMO0001" reports, shift for capitals, into one line on Enter', () => {
    const assembler = new KeyboardScanAssembler();
    expect(feed(assembler, DEMO0001)).toEqual([{ ok: true, line: 'DEMO0001' }]);
    expect(assembler.pending).toBe(false);
  });

  it('emits nothing before Enter', () => {
    const assembler = new KeyboardScanAssembler();
    expect(feed(assembler, DEMO0001.slice(0, -2))).toEqual([]);
    expect(assembler.pending).toBe(true);
  });

  it('decodes a fast reader with rollover: a recorded loyalty swipe', () => {
    const assembler = new KeyboardScanAssembler();
    expect(feed(assembler, LOYALTY_SWIPE)).toEqual([{ ok: true, line: ';6274010000000120=4912101?' }]);
  });

  it('a key held across several reports types once; a repeated letter needs a release between', () => {
    const assembler = new KeyboardScanAssembler();
    const out = feed(assembler, [key(0x12), key(0x12), key(0x12), UP, key(0x12), UP, key(0x0b), key(0x28), UP]);
    expect(out).toEqual([{ ok: true, line: 'ooh' }]);
  });

  it('handles rollover: a → a+b → b → nothing types "ab"', () => {
    const assembler = new KeyboardScanAssembler();
    const out = feed(assembler, [key(0x04), hex('00 00 04 05 00 00 00 00'), key(0x05), UP, key(0x28)]);
    expect(out).toEqual([{ ok: true, line: 'ab' }]);
  });

  it('emits consecutive scans separately, and a lone Enter emits nothing', () => {
    const assembler = new KeyboardScanAssembler();
    const out = [
      ...feed(assembler, DEMO0001, 0),
      ...feed(assembler, [key(0x28), UP], 1000),
      ...feed(assembler, LOYALTY_SWIPE, 2000),
    ];
    expect(out).toEqual([
      { ok: true, line: 'DEMO0001' },
      { ok: true, line: ';6274010000000120=4912101?' },
    ]);
  });

  it('an unknown key rejects at once and the rest of that line is discarded up to its Enter', () => {
    const assembler = new KeyboardScanAssembler();
    const out = feed(assembler, [key(0x04), UP, key(0x2b), UP, key(0x05), UP, key(0x28), UP]);
    expect(out).toEqual([{ ok: false, code: 'unknown_key', reason: 'key usage 0x2b has no character' }]);
    expect(feed(assembler, DEMO0001, 100)).toEqual([{ ok: true, line: 'DEMO0001' }]);
  });

  it('a short report in the middle of a scan rejects; the tail is not emitted as a scan', () => {
    const assembler = new KeyboardScanAssembler();
    const broken = [...DEMO0001.slice(0, 6), hex('00 00 10'), ...DEMO0001.slice(8)];
    const out = feed(assembler, broken);
    expect(out).toEqual([{ ok: false, code: 'truncated', reason: expect.any(String) }]);
    expect(assembler.discarding).toBe(false); // the Enter that ended the broken scan cleared it
    expect(feed(assembler, DEMO0001, 1000)).toEqual([{ ok: true, line: 'DEMO0001' }]);
  });

  it('discarding ends after the gap timeout even without an Enter', () => {
    const assembler = new KeyboardScanAssembler({ gapTimeoutMs: 100 });
    expect(assembler.push(hex('00 00 04'), 0)).toMatchObject([{ ok: false, code: 'truncated' }]);
    expect(assembler.push(key(0x05), 10)).toEqual([]);
    expect(assembler.discarding).toBe(true);
    expect(feed(assembler, DEMO0001, 200)).toEqual([{ ok: true, line: 'DEMO0001' }]);
  });

  it('a rollover error rejects the line (keys may be lost); a key held through it is not typed again', () => {
    const assembler = new KeyboardScanAssembler();
    const out = feed(assembler, [key(0x04), hex('00 00 01 01 01 01 01 01'), key(0x04), UP, key(0x05), UP, key(0x28), UP]);
    expect(out).toEqual([{ ok: false, code: 'rollover_error', reason: expect.any(String) }]);
    expect(feed(assembler, [key(0x06), key(0x28)], 1000)).toEqual([{ ok: true, line: 'c' }]);
  });

  it('an Enter held through a rollover error ends the broken scan, so the next scan is not swallowed', () => {
    const assembler = new KeyboardScanAssembler();
    const out = feed(assembler, [key(0x04), UP, key(0x28), hex('00 00 28 01 01 01 01 01'), key(0x28), UP, key(0x05), UP, key(0x28), UP]);
    expect(out).toEqual([
      { ok: true, line: 'a' },
      { ok: false, code: 'rollover_error', reason: expect.any(String) },
      { ok: true, line: 'b' },
    ]);
  });

  it('a pending line with no report for longer than the gap timeout is dropped with a timeout', () => {
    const assembler = new KeyboardScanAssembler({ gapTimeoutMs: 300 });
    expect(feed(assembler, [key(0x04), UP, key(0x05), UP], 0)).toEqual([]);
    const out = assembler.push(key(0x06), 12 + 301);
    expect(out).toEqual([{ ok: false, code: 'timeout', reason: expect.stringMatching(/300 ms/) }]);
    expect(feed(assembler, [UP, key(0x28)], 320)).toEqual([{ ok: true, line: 'c' }]);
  });

  it('expire() drops a stale line and says so, once', () => {
    const assembler = new KeyboardScanAssembler({ gapTimeoutMs: 300 });
    assembler.push(key(0x04), 0);
    expect(assembler.expire(300)).toBeNull();
    expect(assembler.expire(301)).toMatchObject({ ok: false, code: 'timeout' });
    expect(assembler.expire(302)).toBeNull();
    expect(assembler.pending).toBe(false);
  });

  it('a line longer than maxLength rejects and is discarded up to its Enter', () => {
    const assembler = new KeyboardScanAssembler({ maxLength: 3 });
    const out = feed(assembler, [key(0x04), UP, key(0x05), UP, key(0x06), UP, key(0x07), UP, key(0x08), UP, key(0x28), UP]);
    expect(out).toEqual([{ ok: false, code: 'too_long', reason: expect.stringMatching(/3 characters/) }]);
    expect(feed(assembler, [key(0x04), key(0x28)], 100)).toEqual([{ ok: true, line: 'a' }]);
  });

  it('reset() forgets the line and the keys down', () => {
    const assembler = new KeyboardScanAssembler();
    assembler.push(key(0x04), 0);
    assembler.reset();
    expect(assembler.pending).toBe(false);
    expect(feed(assembler, [key(0x04), key(0x28)], 10)).toEqual([{ ok: true, line: 'a' }]);
  });

  it('2000 random reports never throw; a real scan after them still comes through', () => {
    const random = prng(0x07);
    const assembler = new KeyboardScanAssembler();
    let at = 0;
    for (let i = 0; i < 2000; i++) {
      const size = random() < 0.8 ? 8 : Math.floor(random() * 12);
      const bytes = Uint8Array.from({ length: size }, () => (random() < 0.5 ? 0 : Math.floor(random() * 256)));
      at += Math.floor(random() * 50);
      for (const outcome of assembler.push(bytes, at)) {
        if (outcome.ok) expect(typeof outcome.line).toBe('string');
        else expect(outcome.reason.length).toBeGreaterThan(0);
      }
    }
    expect(feed(assembler, DEMO0001, at + 10_000)).toEqual([{ ok: true, line: 'DEMO0001' }]);
  });
});
