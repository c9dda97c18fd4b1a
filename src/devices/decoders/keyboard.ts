import { type ReportBytes, type Reject, reject, toBytes } from './result';

// HID boot keyboard input reports, as a keyboard-emulation scanner or card reader sends them when read
// raw (node-hid/hidraw): 8 bytes, [modifiers, reserved, key1..key6], each key a usage of the Keyboard
// page (0x07). A key is pressed while its usage is listed; characters come from key-down edges, so a
// key held across reports (or still listed while the next one goes down: rollover) types once.
// Decoding the usages ourselves, with a fixed US layout, avoids the OS keyboard layout: a reader typing
// `%B…^…?;…=…?` through a Spanish layout produces other characters in a focused window.

export const KEYBOARD_REPORT_SIZE = 8;

const LEFT_CTRL = 0x01;
const LEFT_SHIFT = 0x02;
const LEFT_ALT = 0x04;
const LEFT_GUI = 0x08;
const SHIFT = LEFT_SHIFT | (LEFT_SHIFT << 4); // 0x22: left or right shift
const CTRL_ALT_GUI = (LEFT_CTRL | LEFT_ALT | LEFT_GUI) * 0x11; // 0xdd

export const KEY_ENTER = 0x28;
export const KEY_KEYPAD_ENTER = 0x58;

/** Usage → [unshifted, shifted] characters, US layout. */
const CHARACTERS = new Map<number, readonly [string, string]>();
for (let i = 0; i < 26; i++) {
  const lower = String.fromCharCode(0x61 + i);
  CHARACTERS.set(0x04 + i, [lower, lower.toUpperCase()]);
}
'1234567890'.split('').forEach((digit, i) => CHARACTERS.set(0x1e + i, [digit, '!@#$%^&*()'.charAt(i)]));
for (const [usage, plain, shifted] of [
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
] as const) {
  CHARACTERS.set(usage, [plain, shifted]);
}
// Keypad (scanners set to "emulate keypad" use these; Num Lock is assumed on, as such scanners require).
for (const [usage, char] of [
  [0x54, '/'],
  [0x55, '*'],
  [0x56, '-'],
  [0x57, '+'],
  [0x63, '.'],
] as const) {
  CHARACTERS.set(usage, [char, char]);
}
'123456789'.split('').forEach((digit, i) => CHARACTERS.set(0x59 + i, [digit, digit]));
CHARACTERS.set(0x62, ['0', '0']);

/** What one key going down means. */
export type KeyStroke =
  | { type: 'char'; char: string }
  | { type: 'enter' }
  /** A key with no character in the table (Tab, Backspace, F-keys…) or a character with Ctrl/Alt/GUI held. */
  | { type: 'unknown'; usage: number };

/** Usage of a single key with the given modifiers, as a stroke. */
export function keyStroke(usage: number, modifiers: number): KeyStroke {
  if (usage === KEY_ENTER || usage === KEY_KEYPAD_ENTER) return { type: 'enter' };
  const chars = CHARACTERS.get(usage);
  if (!chars || (modifiers & CTRL_ALT_GUI) !== 0) return { type: 'unknown', usage };
  return { type: 'char', char: (modifiers & SHIFT) !== 0 ? chars[1] : chars[0] };
}

export type KeyboardRejectCode = 'truncated' | 'oversized' | 'rollover_error' | 'unknown_key' | 'too_long' | 'timeout';

export interface KeyboardFrame {
  ok: true;
  modifiers: number;
  /** Usages pressed in this report (no zeros, no modifier usages, no repeats): the next `previous`. */
  pressed: number[];
  /** Keys that went down in this report, in report order. */
  strokes: KeyStroke[];
}

export type KeyboardFrameResult = KeyboardFrame | Reject<KeyboardRejectCode>;

/**
 * Decodes one 8-byte boot keyboard report against the keys pressed in the previous one.
 * - Not 8 bytes (a report id in front must be stripped first): rejected.
 * - ErrorRollOver/POSTFail/ErrorUndefined (usages 1–3) in a key slot: the keyboard could not tell
 *   which keys are down (phantom state), keystrokes may be lost; rejected.
 * - Usage 0 (no key) and the modifier usages 0xE0–0xE7 are ignored; the byte 1 reserved value too.
 */
export function decodeKeyboardReport(report: ReportBytes, previous: readonly number[] = []): KeyboardFrameResult {
  const bytes = toBytes(report);
  if (bytes.length < KEYBOARD_REPORT_SIZE) {
    return reject('truncated', `keyboard report is ${bytes.length} bytes, expected ${KEYBOARD_REPORT_SIZE}`);
  }
  if (bytes.length > KEYBOARD_REPORT_SIZE) {
    return reject('oversized', `keyboard report is ${bytes.length} bytes, expected ${KEYBOARD_REPORT_SIZE} (strip any report id)`);
  }
  const modifiers = bytes[0] ?? 0;
  const pressed: number[] = [];
  for (const usage of bytes.subarray(2)) {
    if (usage >= 0x01 && usage <= 0x03) {
      return reject('rollover_error', 'keyboard reported a rollover error (too many keys at once)');
    }
    if (usage === 0 || (usage >= 0xe0 && usage <= 0xe7) || pressed.includes(usage)) continue;
    pressed.push(usage);
  }
  const strokes = pressed.filter((usage) => !previous.includes(usage)).map((usage) => keyStroke(usage, modifiers));
  return { ok: true, modifiers, pressed, strokes };
}

/** What a pushed report produced: whole lines (ended by Enter) and rejects, in order. */
export type KeyboardOutcome = { ok: true; line: string } | Reject<KeyboardRejectCode>;

export interface KeyboardScanAssemblerOptions {
  /** Longest quiet time between two reports inside one scan. */
  gapTimeoutMs?: number;
  /** Longest line accepted (a three-track swipe is under 240 characters). */
  maxLength?: number;
}

export const KEYBOARD_DEFAULT_GAP_TIMEOUT_MS = 500;
export const KEYBOARD_DEFAULT_MAX_LENGTH = 1024;

/**
 * Turns a keyboard-emulation device's reports into lines: characters accumulate until Enter (0x28 or
 * keypad Enter 0x58), which emits the line without the Enter. An Enter with nothing before it emits
 * nothing.
 *
 * Rejects are never silent and never leave half a scan behind:
 * - A report that is not 8 bytes, or a rollover error: reject, the line so far is dropped.
 * - An unknown key (not in the US table, or a key with Ctrl/Alt/GUI held): reject at once, the line is
 *   dropped. Skipping the key instead would emit a wrong value; a re-scan is cheaper than a wrong
 *   check-in.
 * - A line longer than `maxLength`: reject, the line is dropped.
 * After any of these the assembler discards keys until the Enter that ends the broken scan, or until the
 * device has been quiet for `gapTimeoutMs`, so the tail of a broken scan never comes out as a scan.
 * - No report for more than `gapTimeoutMs` with a line pending: `timeout` reject for the dropped line,
 *   on the next report or on `expire(now)`.
 * Never throws.
 */
export class KeyboardScanAssembler {
  readonly #gapTimeoutMs: number;
  readonly #maxLength: number;
  #pressed: number[] = [];
  #line = '';
  #discarding = false;
  #lastAt = Number.NEGATIVE_INFINITY;

  constructor(options: KeyboardScanAssemblerOptions = {}) {
    this.#gapTimeoutMs = options.gapTimeoutMs ?? KEYBOARD_DEFAULT_GAP_TIMEOUT_MS;
    this.#maxLength = options.maxLength ?? KEYBOARD_DEFAULT_MAX_LENGTH;
  }

  /** True while characters have been typed and no Enter has come yet. */
  get pending(): boolean {
    return this.#line.length > 0;
  }

  get discarding(): boolean {
    return this.#discarding;
  }

  reset(): void {
    this.#pressed = [];
    this.#line = '';
    this.#discarding = false;
  }

  /** Drops a pending line when the device has been quiet too long; says so if it did. */
  expire(at: number): Reject<'timeout'> | null {
    if (at - this.#lastAt <= this.#gapTimeoutMs) return null;
    this.#discarding = false;
    if (this.#line.length === 0) return null;
    this.#line = '';
    return reject('timeout', `keyboard scan was cut off: no key for more than ${this.#gapTimeoutMs} ms`);
  }

  push(report: ReportBytes, at: number): KeyboardOutcome[] {
    const outcomes: KeyboardOutcome[] = [];
    const dropped = this.expire(at);
    if (dropped) outcomes.push(dropped);
    this.#lastAt = at;

    const frame = decodeKeyboardReport(report, this.#pressed);
    if (!frame.ok) {
      // Which keys are down is unknown now. Forgetting them can only re-type a key still held, and
      // discard mode drops that; keeping them could hide the Enter that ends discarding.
      this.#pressed = [];
      outcomes.push(this.#fail(frame));
      return outcomes;
    }
    this.#pressed = frame.pressed;
    for (const stroke of frame.strokes) {
      if (stroke.type === 'enter') {
        if (this.#discarding) {
          this.#discarding = false;
        } else if (this.#line.length > 0) {
          outcomes.push({ ok: true, line: this.#line });
        }
        this.#line = '';
      } else if (this.#discarding) {
        continue;
      } else if (stroke.type === 'unknown') {
        outcomes.push(this.#fail(reject('unknown_key', `key usage 0x${stroke.usage.toString(16).padStart(2, '0')} has no character`)));
      } else if (this.#line.length >= this.#maxLength) {
        outcomes.push(this.#fail(reject('too_long', `keyboard scan is longer than ${this.#maxLength} characters`)));
      } else {
        this.#line += stroke.char;
      }
    }
    return outcomes;
  }

  #fail(rejection: Reject<KeyboardRejectCode>): Reject<KeyboardRejectCode> {
    this.#line = '';
    this.#discarding = true;
    return rejection;
  }
}
