import { hex, reports } from '../decoders/hex';

// Input reports as node-hid reads them from hidraw (report id first when the device numbers its
// reports), one dump per report.

/** HID POS (page 0x8C) Code 128 "DEMO0001", one report: id 02, length 08, AIM ]C0, data, vendor symbology 6a. */
export const POS_DEMO0001 = hex(`
  02 08 5d 43 30 44 45 4d 4f 30 30 30 31 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 6a 00 00
`);

/** First of two reports (55 data bytes, byte 63 = 01 "more follows")… */
export const POS_LONG_1 = hex(`
  02 37 5d 43 30 50 55 4e 43 48 43 41 52 44 2d 4c 4f 4e 47 2d 43 4f 44 45 2d 31 32 38 2d 4c 41 42
  45 4c 2d 54 48 41 54 2d 53 50 41 4e 53 2d 54 57 4f 2d 52 45 50 4f 52 54 53 2d 50 41 00 6a 00 01
`);
/** …and the rest, "RT2-DEMO0002": the whole label is PUNCHCARD-LONG-…-PART2-DEMO0002. */
export const POS_LONG_2 = hex(`
  02 0c 5d 43 30 52 54 32 2d 44 45 4d 4f 30 30 30 32 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 6a 00 00
`);
export const POS_LONG_TEXT = 'PUNCHCARD-LONG-CODE-128-LABEL-THAT-SPANS-TWO-REPORTS-PART2-DEMO0002';

/** A report cut short in transfer (20 of 64 bytes). */
export const POS_TRUNCATED = POS_DEMO0001.subarray(0, 20);

/**
 * A MagTek reader in keyboard emulation, read over hidraw, swiping a loyalty card whose track 2 holds
 * only its number: ";12345674?" then Enter. This reader numbers its reports (id 01), so 9 bytes each.
 */
export const SWIPE_12345674 = reports([
  '01 00 00 33 00 00 00 00 00', // ;
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 1e 00 00 00 00 00', // 1
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 1f 00 00 00 00 00', // 2
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 20 00 00 00 00 00', // 3
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 21 00 00 00 00 00', // 4
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 22 00 00 00 00 00', // 5
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 23 00 00 00 00 00', // 6
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 24 00 00 00 00 00', // 7
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 21 00 00 00 00 00', // 4
  '01 00 00 00 00 00 00 00 00',
  '01 02 00 38 00 00 00 00 00', // ? (shift + /)
  '01 00 00 00 00 00 00 00 00',
  '01 00 00 28 00 00 00 00 00', // Enter
  '01 00 00 00 00 00 00 00 00',
]);

/** The same card with a wrong last digit (…75): fails the Luhn check. */
export const SWIPE_BAD_LUHN = [...SWIPE_12345674.slice(0, 16), hex('01 00 00 22 00 00 00 00 00'), ...SWIPE_12345674.slice(17)];
