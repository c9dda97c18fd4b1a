import { describe, expect, it } from 'vitest';
import * as decoders from '../../../src/devices/decoders';
import { HidPosAssembler, KeyboardScanAssembler, scanFromKeyboardLine } from '../../../src/devices/decoders';
import type { ScanEvent } from '../../../src/devices/scan-source';
import { hex, reports } from './hex';

describe('scanFromKeyboardLine', () => {
  it.each([
    [
      'a two-track swipe → card, the value is the card number',
      '%B6274010000000120^DOE/JANE^4912101000000?;6274010000000120=4912101000000?',
      { kind: 'card', value: '6274010000000120' },
      '************0120',
    ],
    ['a track 2 swipe → card', ';6274010000000120=4912101?', { kind: 'card', value: '6274010000000120' }, '************0120'],
    ['a swipe with a CR left on → card', ';6274010000000120?\r', { kind: 'card', value: '6274010000000120' }, '************0120'],
    ['an AIM-prefixed line → barcode with symbology', ']C0DEMO0001', { kind: 'barcode', value: 'DEMO0001', symbology: ']C0' }, '****0001'],
    ['an EAN-13 with AIM id', ']E05901234123457', { kind: 'barcode', value: '5901234123457', symbology: ']E0' }, '*********3457'],
    ['a plain line → barcode without symbology', 'DEMO0001', { kind: 'barcode', value: 'DEMO0001' }, '****0001'],
    ['a short code is masked entirely', 'A17', { kind: 'barcode', value: 'A17' }, '***'],
  ])('%s', (_name, line, scan, masked) => {
    const result = scanFromKeyboardLine(line);
    expect(result).toEqual({ ok: true, scan, masked });
    if (result.ok && !('symbology' in scan)) expect(result.scan).not.toHaveProperty('symbology');
  });

  it('the card scan carries only the number: no name, no track', () => {
    const result = scanFromKeyboardLine('%B4242424242424242^DOE/JANE^2512101000000?;4242424242424242=2512101000000?');
    expect(JSON.stringify(result)).not.toMatch(/DOE|\^|=|%|2512101/);
  });

  it.each([
    ['an empty line', '', 'empty_line'],
    ['a bare CR', '\r', 'empty_line'],
    ['a swipe with a bad check digit', ';6274010000000121=4912101?', 'bad_luhn'],
    ['a partial swipe', ';6274010000000120=4912', 'no_end_sentinel'],
    ['an unreadable swipe', '%E?;E?', 'no_readable_track'],
    ['a cut AIM prefix', ']C', 'aim_truncated'],
    ['a malformed AIM prefix', ']#0DEMO', 'aim_malformed'],
    ['an AIM prefix with no data', ']Q1', 'empty_barcode'],
  ])('%s → %s', (_name, line, code) => {
    expect(scanFromKeyboardLine(line)).toEqual({ ok: false, code, reason: expect.any(String) });
  });

  it('passes requireLuhn through to the swipe parser', () => {
    expect(scanFromKeyboardLine(';6274010000000121?', { requireLuhn: false })).toMatchObject({
      ok: true,
      scan: { kind: 'card', value: '6274010000000121' },
    });
  });

  it('a decoded scan plus source and time is a ScanEvent', () => {
    const result = scanFromKeyboardLine(']C0DEMO0001');
    if (!result.ok) throw new Error(result.reason);
    const event: ScanEvent = { ...result.scan, source: 'hid:0c2e:0b8f', at: 1 };
    expect(event).toEqual({ kind: 'barcode', value: 'DEMO0001', symbology: ']C0', source: 'hid:0c2e:0b8f', at: 1 });
  });
});

describe('end to end on recorded bytes', () => {
  it('keyboard reports of a wedge scanner with AIM ids on → a barcode scan', () => {
    // "]C0D1" then Enter: ] is 0x30, C is shift+0x06, 0 is 0x27, D is shift+0x07, 1 is 0x1e.
    const recorded = reports([
      '00 00 30 00 00 00 00 00',
      '02 00 06 00 00 00 00 00',
      '00 00 27 00 00 00 00 00',
      '02 00 07 00 00 00 00 00',
      '00 00 1e 00 00 00 00 00',
      '00 00 28 00 00 00 00 00',
      '00 00 00 00 00 00 00 00',
    ]);
    const assembler = new KeyboardScanAssembler();
    const lines = recorded.flatMap((r, i) => assembler.push(r, i * 3));
    expect(lines).toEqual([{ ok: true, line: ']C0D1' }]);
    const line = lines[0];
    if (!line?.ok) throw new Error('expected a line');
    expect(scanFromKeyboardLine(line.line)).toMatchObject({ ok: true, scan: { kind: 'barcode', value: 'D1', symbology: ']C0' } });
  });

  it('HID POS report → barcode value and symbology for a ScanEvent', () => {
    const report = hex(`
      02 08 5d 41 30 44 45 4d 4f 30 30 30 31 00 00 00
      00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
      00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
      00 00 00 00 00 00 00 00 00 00 00 00 00 62 00 00
    `);
    expect(new HidPosAssembler().push(report, 0)).toEqual([{ ok: true, barcode: { value: 'DEMO0001', symbology: ']A0' } }]);
  });
});

describe('public API', () => {
  it('exports the decoders, assemblers and helpers', () => {
    expect(Object.keys(decoders).sort()).toEqual(
      [
        'HID_POS_DEFAULT_GAP_TIMEOUT_MS',
        'HID_POS_DEFAULT_MAX_BYTES',
        'HID_POS_MAX_DATA',
        'HID_POS_REPORT_ID',
        'HID_POS_REPORT_SIZE',
        'HidPosAssembler',
        'ID_DOCUMENT_REST_MS',
        'IdDocumentRest',
        'KEYBOARD_DEFAULT_GAP_TIMEOUT_MS',
        'KEYBOARD_DEFAULT_MAX_LENGTH',
        'KEYBOARD_REPORT_SIZE',
        'KEY_ENTER',
        'KEY_KEYPAD_ENTER',
        'KeyboardScanAssembler',
        'MAX_PAN_LENGTH',
        'MIN_PAN_LENGTH',
        'bytesToText',
        'decodeHidPosPayload',
        'decodeHidPosReport',
        'decodeKeyboardReport',
        'isAimIdentifier',
        'keyStroke',
        'looksLikeSwipe',
        'luhnValid',
        'maskPan',
        'parseAim',
        'parseSwipe',
        'refusedBarcode',
        'scanFromKeyboardLine',
        'scanFromSourceLine',
        'symbologyName',
      ].sort(),
    );
  });
});
