import { describe, expect, it } from 'vitest';
import { scanFromKeyboardLine } from '../../../src/devices/decoders';
import { isAamvaIdDocument } from '../../../src/devices/decoders/id-document';
import { parseSwipe } from '../../../src/devices/decoders/magstripe';
import { holdsPaymentCardNumber, isPaymentNetworkNumber } from '../../../src/devices/decoders/payment-card';

// Check-in lines (scanFromKeyboardLine) refuse a payment card as one, however the reader typed it,
// and keep reading loyalty cards and barcodes — also ones whose numbers start like a bank card's.

describe('scanFromKeyboardLine and payment cards', () => {
  it.each([
    ['Visa, track 1', '%B4111111111111111^DOE/JOHN^2512101000000000?'],
    ['Visa, track 2', ';4111111111111111=25121010000000000000?'],
    ['Mastercard, both tracks', '%B5555555555554444^DOE/JOHN^2512101?;5555555555554444=2512101?'],
    ['Mastercard 2-series, track 2', ';2223003122003222=2512101?'],
    ['Amex, track 1', '%B378282246310005^DOE/JOHN^2512101?'],
    ['a bank card with a bad check digit', ';4111111111111112=2512101?'],
    ['a partial swipe', ';4111111111111111=2512'],
    ['a malformed track 1 before a good track 2', '%B4111111111111111^D^2512101?;4111111111111111=2512101?'],
    ['a German-layout reader on a US host', '%B4111111111111111`DOE&JOHN`2512101000000000_'],
    ['a US reader on a German host', 'ö4111111111111111´25121010000000000000ß'],
    ['a reader prefix', 'MAG:;4111111111111111=2512101?'],
    ['STX/ETX around the tracks', '\u0002;4111111111111111=2512101?\u0003'],
  ])('refuses %s as payment_card, without the number in the reason', (_, line) => {
    const result = scanFromKeyboardLine(line);
    expect(result).toMatchObject({ ok: false, code: 'payment_card' });
    expect(JSON.stringify(result)).not.toMatch(/4111|5555|3782|2223|DOE/);
  });

  it.each([
    ['a loyalty card, number only on track 2, in a bank range', ';4111111111111111?', '4111111111111111'],
    ['a loyalty card in ISO layout outside the bank ranges', '%B6274010000000120^DOE/JANE^4912101?;6274010000000120=4912101?', '6274010000000120'],
    ['a loyalty card behind STX/ETX', '\u0002;12345674?\u0003', '12345674'],
  ])('reads %s', (_, line, value) => {
    expect(scanFromKeyboardLine(line)).toMatchObject({ ok: true, scan: { kind: 'card', value } });
  });

  it.each([
    ['EAN-13 starting like a Visa', '4006381333931', '4006381333931', undefined],
    ['EAN-13 with its AIM id', ']E04006381333931', '4006381333931', ']E0'],
    ['UPC-A', '036000291452', '036000291452', undefined],
    ['a 16-digit barcode that is a Visa number', '4111111111111111', '4111111111111111', undefined],
    ['Code 128 with a store prefix', ']C0LOY-4111111111111111', 'LOY-4111111111111111', ']C0'],
    ['GS1-128 with a group separator', ']C10104006381333931\u001d10LOT7', '0104006381333931\u001d10LOT7', ']C1'],
    ['the app code as a QR code', ']Q1PC0123456789ABCDEF', 'PC0123456789ABCDEF', ']Q1'],
  ])('keeps reading barcodes: %s', (_, line, value, symbology) => {
    const result = scanFromKeyboardLine(line);
    expect(result).toMatchObject({ ok: true, scan: { kind: 'barcode', value } });
    if (result.ok) expect(result.scan.symbology).toBe(symbology);
  });

  it('refuses a driver\'s licence (AAMVA PDF417) as id_document, whole or as its header line', () => {
    const licence = '@\n\u001e\rANSI 636014080102DL00410278ZC03190024DLDAQD1234562\nDCSDOE\nDACJOHN\nDBB19800101\n';
    expect(scanFromKeyboardLine(licence)).toMatchObject({ ok: false, code: 'id_document' });
    expect(scanFromKeyboardLine('ANSI 636014080102DL00410278ZC03190024DLDAQD1234562')).toMatchObject({ ok: false, code: 'id_document' });
    expect(JSON.stringify(scanFromKeyboardLine(licence))).not.toMatch(/D1234562|DOE|1980/);
    expect(isAamvaIdDocument('ANSIBLE-42')).toBe(false);
  });
});

describe('payment card helpers', () => {
  it('parseSwipe alone still reads a bank card: refusing is the check-in\'s choice', () => {
    expect(parseSwipe(';4111111111111111=2512101?')).toMatchObject({ ok: true, pan: '4111111111111111' });
    expect(parseSwipe(';4111111111111111=2512101?', { refusePaymentCards: true })).toMatchObject({ ok: false, code: 'payment_card' });
  });

  it('knows the networks\' ranges and leaves retail ranges alone', () => {
    for (const pan of ['4111111111111111', '5555555555554444', '2223003122003222', '378282246310005', '6011111111111117', '3530111333300000', '30569309025904', '6250941006528599']) {
      expect(isPaymentNetworkNumber(pan), pan).toBe(true);
    }
    for (const pan of ['6274010000000120', '7012345678901234', '12345674', '9000000000000000']) {
      expect(isPaymentNetworkNumber(pan), pan).toBe(false);
    }
  });

  it('finds a number only where a track would put it: before a separator, Luhn-valid', () => {
    expect(holdsPaymentCardNumber('x4111111111111111=')).toBe(true);
    expect(holdsPaymentCardNumber('4111111111111111')).toBe(false);
    expect(holdsPaymentCardNumber('x4111111111111112=')).toBe(false);
  });
});
