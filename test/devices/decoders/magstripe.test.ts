import { describe, expect, it } from 'vitest';
import { luhnValid, maskPan, parseSwipe } from '../../../src/devices/decoders/magstripe';
import { prng } from './hex';

// Swipes as a keyboard-emulation reader types them (MagTek style): %track1?;track2?+track3? and CR.
// Card numbers are public test numbers; names and discretionary data are made up.

const TRACK1 = '%B4242424242424242^DOE/JANE A^2512101000000000000000123?';
const TRACK2 = ';4242424242424242=25121010000012300000?';
const TRACK3 = '+011234567890123445=724724100000000000030300XXXX040400099010=************************==1=0000000000000000?';
const FULL = `${TRACK1}${TRACK2}${TRACK3}\r`;

describe('ISO 7813 swipes', () => {
  it('reads card number and expiry from tracks 1 and 2, and returns nothing else', () => {
    const result = parseSwipe(FULL);
    expect(result).toEqual({
      ok: true,
      kind: 'card',
      pan: '4242424242424242',
      last4: '4242',
      masked: '************4242',
      expiry: { year: 2025, month: 12 },
    });
    const json = JSON.stringify(result);
    for (const secret of ['DOE', 'JANE', '101000000000000000123', '0000123', '%B', '=2512', '724724']) {
      expect(json).not.toContain(secret);
    }
  });

  it.each([
    ['track 1 alone', TRACK1, '4242424242424242', { year: 2025, month: 12 }],
    ['track 2 alone', TRACK2, '4242424242424242', { year: 2025, month: 12 }],
    ['track 2 alone with Enter left on', `${TRACK2}\n`, '4242424242424242', { year: 2025, month: 12 }],
    ['unreadable track 1 marked E', `%E?${TRACK2}`, '4242424242424242', { year: 2025, month: 12 }],
    ['unreadable track 2 marked E', `${TRACK1};E?+E?`, '4242424242424242', { year: 2025, month: 12 }],
    ['Amex, 15 digits', '%B378282246310005^AMEX/TEST^2801101?;378282246310005=2801101?', '378282246310005', { year: 2028, month: 1 }],
    ['Mastercard, track 2', ';5555555555554444=30091011234?', '5555555555554444', { year: 2030, month: 9 }],
    ['expiry left out (separators)', ';6011111111111117==101?', '6011111111111117', null],
    ['expiry and service code left out', '%B6011111111111117^TEST/CARD^^^?', '6011111111111117', null],
    ['expiry with month 13', ';4111111111111111=2513101?', '4111111111111111', null],
    ['expiry with month 00', ';4111111111111111=2500101?', '4111111111111111', null],
    ['a loyalty card: track 2 with only a number', ';6274010000000120?', '6274010000000120', null],
    ['a loyalty card: 8-digit number', ';12345674?', '12345674', null],
    ['a loyalty card in ISO layout', ';6274010000000120=4912101?', '6274010000000120', { year: 2049, month: 12 }],
    ['a second ";" track is track 3 and ignored', `${TRACK2};0112345?`, '4242424242424242', { year: 2025, month: 12 }],
  ])('%s', (_name, swipe, pan, expiry) => {
    expect(parseSwipe(swipe)).toEqual({
      ok: true,
      kind: 'card',
      pan,
      last4: pan.slice(-4),
      masked: '*'.repeat(pan.length - 4) + pan.slice(-4),
      expiry,
    });
  });

  it('takes the expiry from track 2 when both tracks have one', () => {
    const result = parseSwipe('%B4242424242424242^DOE/JANE^2601101?;4242424242424242=2512101?');
    expect(result).toMatchObject({ ok: true, expiry: { year: 2025, month: 12 } });
  });

  it.each([
    ['empty', '', 'empty'],
    ['only a line ending', '\r\n', 'empty'],
    ['every track unreadable', '%E?;E?+E?', 'no_readable_track'],
    ['empty tracks', '%?;?', 'no_readable_track'],
    ['only track 3', TRACK3, 'no_readable_track'],
    ['track 2 without its end sentinel (partial swipe)', ';4242424242424242=2512101', 'no_end_sentinel'],
    ['track 1 without its end sentinel, track 2 after it', `%B4242424242424242^DOE/JANE^2512101${TRACK2}`, 'no_end_sentinel'],
    ['track 3 without its end sentinel', `${TRACK2}+0112345`, 'no_end_sentinel'],
    ['a lone start sentinel', '%', 'no_end_sentinel'],
    ['bad Luhn on track 2', ';4242424242424241=2512101?', 'bad_luhn'],
    ['bad Luhn on track 1', '%B4242424242424241^DOE/JANE^2512101?', 'bad_luhn'],
    ['bad Luhn on a loyalty number', ';6274010000000121?', 'bad_luhn'],
    ['one digit wrong in track 1 only', '%B4242424242424243^DOE/JANE^2512101?;4242424242424242=2512101?', 'bad_luhn'],
    ['tracks disagree (both Luhn-valid)', '%B4111111111111111^DOE/JANE^2512101?;4242424242424242=2512101?', 'track_mismatch'],
    ['a number shorter than 8 digits', ';4242?', 'pan_too_short'],
    ['track 1 name of one character', '%B4242424242424242^X^2512101?', 'malformed_track1'],
    ['track 1 name of 27 characters', '%B4242424242424242^ABCDEFGHIJKLMNOPQRSTUVWXYZA^2512101?', 'malformed_track1'],
    ['track 1 without field separators', '%B4242424242424242DOE JANE2512101?', 'malformed_track1'],
    ['track 1 PAN of 20 digits', '%B42424242424242424242^DOE/JANE^2512101?', 'malformed_track1'],
    ['track 1 with a short expiry', '%B4242424242424242^DOE/JANE^25?', 'malformed_track1'],
    ['track 2 with letters', ';4242A42424242424=2512101?', 'malformed_track2'],
    ['track 2 with a short expiry', ';4242424242424242=25?', 'malformed_track2'],
    ['track 2 PAN of 20 digits', ';42424242424242424242?', 'malformed_track2'],
    ['track 2 typed through a Spanish layout (Ñ for ;)', 'Ñ4242424242424242=2512101?', 'unexpected_data'],
    ['garbage before the tracks', `x${TRACK2}`, 'unexpected_data'],
    ['garbage after the tracks', `${TRACK2}garbage`, 'unexpected_data'],
    ['an LRC character after the end sentinel', `${TRACK2}5`, 'unexpected_data'],
    ['track 1 twice', `${TRACK1}${TRACK1}`, 'duplicate_track'],
    ['track 1 in another format, nothing else', '%A1234567890123456^SOMETHING?', 'unsupported_format'],
    ['a malformed track 1 spoils a good track 2', `%B4242^X?${TRACK2}`, 'malformed_track1'],
  ])('%s → %s', (_name, swipe, code) => {
    expect(parseSwipe(swipe)).toEqual({ ok: false, code, reason: expect.any(String) });
  });

  it('a track 1 in another format is skipped when track 2 is readable', () => {
    expect(parseSwipe(`%A1234567890^SOMETHING?${TRACK2}`)).toMatchObject({ ok: true, pan: '4242424242424242' });
  });

  it('reject reasons never contain the number, the name or the track', () => {
    for (const swipe of [
      ';4242424242424241=2512101?',
      '%B4242424242424241^DOE/JANE^2512101?',
      '%B4111111111111111^DOE/JANE^2512101?;4242424242424242=2512101?',
      ';4242424242424242=2512101',
      '%B4242424242424242^ABCDEFGHIJKLMNOPQRSTUVWXYZA^2512101?',
    ]) {
      const result = parseSwipe(swipe);
      expect(result.ok).toBe(false);
      const json = JSON.stringify(result);
      expect(json).not.toMatch(/\d{5,}/);
      expect(json).not.toMatch(/DOE|JANE|ABCDEFG/);
    }
  });

  it('requireLuhn: false accepts legacy loyalty stock without check digits, still rejects bad structure', () => {
    expect(parseSwipe(';6274010000000121?', { requireLuhn: false })).toMatchObject({ ok: true, pan: '6274010000000121' });
    expect(parseSwipe(';6274010000000121', { requireLuhn: false })).toMatchObject({ ok: false, code: 'no_end_sentinel' });
    expect(parseSwipe(';1234?', { requireLuhn: false })).toMatchObject({ ok: false, code: 'pan_too_short' });
  });

  it('3000 random swipe-like strings never throw; whatever passes is an 8–19 digit Luhn-valid number', () => {
    const random = prng(7813);
    const alphabet = '%;+?^=E0123456789BAZ /\r';
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      // Half are mutations of a real swipe, half are noise.
      let swipe: string;
      if (i % 2 === 0) {
        const chars = FULL.split('');
        const edits = 1 + Math.floor(random() * 3);
        for (let e = 0; e < edits; e++) {
          chars[Math.floor(random() * chars.length)] = alphabet.charAt(Math.floor(random() * alphabet.length));
        }
        swipe = chars.join('');
      } else {
        swipe = Array.from({ length: Math.floor(random() * 60) }, () => alphabet.charAt(Math.floor(random() * alphabet.length))).join('');
      }
      const result = parseSwipe(swipe);
      if (result.ok) {
        accepted++;
        expect(result.pan).toMatch(/^\d{8,19}$/);
        expect(luhnValid(result.pan)).toBe(true);
        expect(result.masked).toBe(maskPan(result.pan));
      } else {
        expect(result.reason).not.toMatch(/\d{5,}/);
      }
    }
    expect(accepted).toBeGreaterThan(0);
  });
});

describe('Luhn', () => {
  it.each([
    ['4242424242424242', true],
    ['4111111111111111', true],
    ['5555555555554444', true],
    ['378282246310005', true],
    ['6011111111111117', true],
    ['6274010000000120', true],
    ['79927398713', true],
    ['0', true],
    ['4242424242424241', false],
    ['4242424242424224', false], // two digits swapped
    ['79927398710', false],
    ['', false],
    ['4242 4242 4242 4242', false],
    ['42424242a4242424', false],
  ])('%j → %s', (digits, valid) => {
    expect(luhnValid(digits)).toBe(valid);
  });

  it('catches every single-digit error in a valid number', () => {
    const pan = '4242424242424242';
    for (let i = 0; i < pan.length; i++) {
      for (let d = 0; d <= 9; d++) {
        const changed = pan.slice(0, i) + String(d) + pan.slice(i + 1);
        expect(luhnValid(changed)).toBe(changed === pan);
      }
    }
  });
});

describe('maskPan', () => {
  it.each([
    ['4242424242424242', '************4242'],
    ['378282246310005', '***********0005'],
    ['6274010000000120123', '***************0123'],
    ['12345674', '****5674'],
    ['1234567', '*******'],
    ['1234', '****'],
    ['', ''],
  ])('%j → %j', (pan, masked) => {
    expect(maskPan(pan)).toBe(masked);
  });

  it('never shows the first six digits (BIN)', () => {
    expect(maskPan('4242424242424242').slice(0, 6)).toBe('******');
  });
});
