import { describe, expect, it } from 'vitest';
import {
  HidPosAssembler,
  type HidPosOutcome,
  decodeHidPosPayload,
  decodeHidPosReport,
} from '../../../src/devices/decoders/hid-pos';
import { hex, prng } from './hex';

// Recorded-style input reports of a HID POS scanner (usage page 0x8C), as node-hid reads them from
// hidraw: report id 0x02 first, then length, AIM id, data (zero padded), vendor symbology at byte 61,
// reserved byte 62, byte 63 bit 0 = "decode data continued".

/** A Code 128 label "PUNCHCARD-0042-00017" (20 characters), one report. */
const CODE128 = hex(`
  02 14 5d 43 30 50 55 4e 43 48 43 41 52 44 2d 30
  30 34 32 2d 30 30 30 31 37 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 6a 00 00
`);

/** A 150-character QR code (]Q1) in three reports: 56 + 56 + 38 bytes. */
const QR_1 = hex(`
  02 38 5d 51 31 68 74 74 70 73 3a 2f 2f 70 75 6e
  63 68 63 61 72 64 2e 65 78 61 6d 70 6c 65 2f 63
  68 65 63 6b 69 6e 3f 73 74 6f 72 65 3d 30 30 34
  32 26 63 61 72 64 3d 44 45 4d 4f 30 30 73 00 01
`);
const QR_2 = hex(`
  02 38 5d 51 31 30 31 26 73 69 67 3d 37 66 33 61
  39 63 32 65 34 31 62 38 35 64 30 36 65 31 66 34
  61 37 63 33 62 39 32 64 35 38 65 30 63 36 61 31
  66 34 62 37 64 33 65 39 61 32 63 35 66 73 00 01
`);
const QR_3 = hex(`
  02 26 5d 51 31 38 62 31 64 34 65 37 61 30 63 33
  66 36 62 39 65 32 64 35 61 38 63 31 66 34 62 37
  65 30 64 33 61 36 63 39 66 32 62 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 73 00 00
`);
const QR_TEXT =
  'https://punchcard.example/checkin?store=0042&card=DEMO0001&sig=' +
  '7f3a9c2e41b85d06e1f4a7c3b92d58e0c6a1f4b7d3e9a2c5f8b1d4e7a0c3f6b9e2d5a8c1f4b7e0d3a6c9f2b';

/** EAN-13 5901234123457 from a scanner that does not send AIM ids (three zero bytes). */
const EAN_NO_AIM = hex(`
  02 0d 00 00 00 35 39 30 31 32 33 34 31 32 33 34
  35 37 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 64 00 00
`);

/** A QR code holding "Café ☕" in UTF-8 (9 bytes). */
const QR_UTF8 = hex(`
  02 09 5d 51 31 43 61 66 c3 a9 20 e2 98 95 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  00 00 00 00 00 00 00 00 00 00 00 00 00 73 00 00
`);

function barcodes(outcomes: HidPosOutcome[]) {
  return outcomes.flatMap((o) => (o.ok ? [o.barcode] : []));
}

describe('HID POS input report decoding', () => {
  it('reads length, AIM id, data, vendor symbology and the continuation flag of one report', () => {
    const frame = decodeHidPosReport(CODE128);
    expect(frame).toMatchObject({ ok: true, symbology: ']C0', vendorSymbology: 0x6a, more: false });
    if (!frame.ok) throw new Error('expected a frame');
    expect(Buffer.from(frame.data).toString('latin1')).toBe('PUNCHCARD-0042-00017');
  });

  it('reads the continuation flag from bit 0 of byte 63', () => {
    expect(decodeHidPosReport(QR_1)).toMatchObject({ ok: true, symbology: ']Q1', more: true });
    expect(decodeHidPosReport(QR_3)).toMatchObject({ ok: true, symbology: ']Q1', more: false });
    const otherBits = Uint8Array.from(QR_3);
    otherBits[63] = 0xfe;
    expect(decodeHidPosReport(otherBits)).toMatchObject({ ok: true, more: false });
  });

  it('takes the WebHID form (report id apart, 63-byte payload) the same way', () => {
    const viaNodeHid = decodeHidPosReport(QR_2);
    const viaWebHid = decodeHidPosPayload(QR_2[0] ?? 0, QR_2.subarray(1));
    expect(viaWebHid).toEqual(viaNodeHid);
  });

  it('a scanner that sends no AIM id gives no symbology', () => {
    const frame = decodeHidPosReport(EAN_NO_AIM);
    expect(frame).toMatchObject({ ok: true, vendorSymbology: 0x64, more: false });
    expect(frame).not.toHaveProperty('symbology');
  });

  it('accepts plain number arrays as well as Buffers', () => {
    expect(decodeHidPosReport([...CODE128])).toEqual(decodeHidPosReport(Buffer.from(CODE128)));
  });
});

describe('HID POS malformed and partial reports: a clear reject, never an exception', () => {
  const withByte = (report: Uint8Array, index: number, value: number) => {
    const copy = Uint8Array.from(report);
    copy[index] = value;
    return copy;
  };

  it.each([
    ['an empty report', hex(''), 'empty'],
    ['only a report id', hex('02'), 'empty'],
    ['a report cut after 10 bytes', CODE128.subarray(0, 10), 'truncated'],
    ['a report missing its flags byte', CODE128.subarray(0, 63), 'truncated'],
    ['a 65-byte report', hex(`${[...CODE128].map((b) => b.toString(16).padStart(2, '0')).join(' ')} 00`), 'oversized'],
    ['a status report (id 0x04)', withByte(CODE128, 0, 0x04), 'wrong_report_id'],
    ['a report id 0x00', withByte(CODE128, 0, 0x00), 'wrong_report_id'],
    ['a length of 57, one more than fits', withByte(CODE128, 1, 0x39), 'length_overflow'],
    ['a length of 255', withByte(CODE128, 1, 0xff), 'length_overflow'],
    ['an AIM id without "]"', withByte(CODE128, 2, 0x41), 'bad_symbology'],
    ['an AIM id with a bad code character', withByte(CODE128, 3, 0x23), 'bad_symbology'],
    ['an AIM id cut to one character', withByte(withByte(CODE128, 3, 0), 4, 0), 'bad_symbology'],
  ])('%s → %s', (_name, report, code) => {
    const result = decodeHidPosReport(report);
    expect(result).toEqual({ ok: false, code, reason: expect.any(String) });
  });

  it('rejects never echo the report data', () => {
    const result = decodeHidPosReport(withByte(CODE128, 1, 0xff));
    expect(JSON.stringify(result)).not.toMatch(/PUNCH/);
  });

  it('400 garbage reports of every size never throw; each is a frame or a reject with a reason', () => {
    const random = prng(0x8c);
    let rejected = 0;
    for (let i = 0; i < 400; i++) {
      const size = Math.floor(random() * 80);
      const bytes = Uint8Array.from({ length: size }, () => Math.floor(random() * 256));
      if (i % 2 === 0 && size > 0) bytes[0] = 0x02; // half of them get past the id check
      const result = decodeHidPosReport(bytes);
      if (result.ok) {
        expect(result.data.length).toBeLessThanOrEqual(56);
        expect(bytes.length).toBe(64);
      } else {
        rejected++;
        expect(result.reason.length).toBeGreaterThan(0);
      }
    }
    expect(rejected).toBeGreaterThan(300);
  });
});

describe('HidPosAssembler', () => {
  it('a one-report Code 128 comes out as one barcode with its symbology', () => {
    const assembler = new HidPosAssembler();
    expect(assembler.push(CODE128, 1000)).toEqual([
      { ok: true, barcode: { value: 'PUNCHCARD-0042-00017', symbology: ']C0' } },
    ]);
    expect(assembler.pending).toBe(false);
  });

  it('joins a 150-character QR code spanning three reports into one barcode', () => {
    const assembler = new HidPosAssembler();
    expect(assembler.push(QR_1, 1000)).toEqual([]);
    expect(assembler.pending).toBe(true);
    expect(assembler.push(QR_2, 1004)).toEqual([]);
    const out = assembler.push(QR_3, 1008);
    expect(out).toEqual([{ ok: true, barcode: { value: QR_TEXT, symbology: ']Q1' } }]);
    expect(barcodes(out)[0]?.value).toHaveLength(150);
    expect(assembler.pending).toBe(false);
  });

  it('joins WebHID-form reports the same way', () => {
    const assembler = new HidPosAssembler();
    const out = [QR_1, QR_2, QR_3].flatMap((r, i) => assembler.pushPayload(r[0] ?? 0, r.subarray(1), i));
    expect(barcodes(out)).toEqual([{ value: QR_TEXT, symbology: ']Q1' }]);
  });

  it('decodes UTF-8 data across the whole barcode, and emits no symbology when none was sent', () => {
    const assembler = new HidPosAssembler();
    expect(barcodes(assembler.push(QR_UTF8, 0))).toEqual([{ value: 'Café ☕', symbology: ']Q1' }]);
    const out = assembler.push(EAN_NO_AIM, 2000);
    expect(barcodes(out)).toEqual([{ value: '5901234123457' }]);
    expect(barcodes(out)[0]).not.toHaveProperty('symbology');
  });

  it('falls back to one character per byte for data that is not UTF-8', () => {
    const latin1 = Uint8Array.from(CODE128);
    latin1[1] = 3;
    latin1.set([0x41, 0xe9, 0x42], 5); // "AéB" in ISO 8859-1
    expect(barcodes(new HidPosAssembler().push(latin1, 0))).toEqual([{ value: 'A\u00e9B', symbology: ']C0' }]);
  });

  it('a partial barcode whose next report is late is dropped with a timeout; the late report starts anew', () => {
    const assembler = new HidPosAssembler({ gapTimeoutMs: 500 });
    expect(assembler.push(QR_1, 1000)).toEqual([]);
    const out = assembler.push(CODE128, 1501);
    expect(out).toEqual([
      { ok: false, code: 'timeout', reason: expect.stringMatching(/500 ms/) },
      { ok: true, barcode: { value: 'PUNCHCARD-0042-00017', symbology: ']C0' } },
    ]);
  });

  it('a report exactly at the gap timeout still continues the barcode', () => {
    const assembler = new HidPosAssembler({ gapTimeoutMs: 500 });
    assembler.push(QR_1, 1000);
    assembler.push(QR_2, 1500);
    expect(barcodes(assembler.push(QR_3, 2000))).toEqual([{ value: QR_TEXT, symbology: ']Q1' }]);
  });

  it('expire() drops a stale partial barcode and says so, once', () => {
    const assembler = new HidPosAssembler({ gapTimeoutMs: 200 });
    assembler.push(QR_1, 0);
    assembler.push(QR_2, 5);
    expect(assembler.expire(100)).toBeNull();
    expect(assembler.pending).toBe(true);
    expect(assembler.expire(206)).toMatchObject({ ok: false, code: 'timeout' });
    expect(assembler.pending).toBe(false);
    expect(assembler.expire(500)).toBeNull();
    // Reports carry no "first report" marker, so whatever arrives after the timeout starts afresh.
    expect(barcodes(assembler.push(CODE128, 600))).toEqual([{ value: 'PUNCHCARD-0042-00017', symbology: ']C0' }]);
  });

  it('a malformed report in the middle rejects, drops the partial, and discards the rest of that barcode', () => {
    const assembler = new HidPosAssembler();
    expect(assembler.push(QR_1, 0)).toEqual([]);
    expect(assembler.push(QR_2.subarray(0, 20), 2)).toEqual([{ ok: false, code: 'truncated', reason: expect.any(String) }]);
    expect(assembler.pending).toBe(false);
    expect(assembler.discarding).toBe(true);
    // The tail (QR_3, final) belongs to the broken barcode: it must not come out as a 38-char "barcode".
    expect(assembler.push(QR_3, 4)).toEqual([]);
    expect(assembler.discarding).toBe(false);
    expect(barcodes(assembler.push(CODE128, 2000))).toEqual([{ value: 'PUNCHCARD-0042-00017', symbology: ']C0' }]);
  });

  it('discarding also ends when the device has been quiet for the gap timeout', () => {
    const assembler = new HidPosAssembler({ gapTimeoutMs: 500 });
    const garbage = Uint8Array.from(QR_1);
    garbage[1] = 0xff;
    expect(assembler.push(garbage, 0)).toMatchObject([{ ok: false, code: 'length_overflow' }]);
    expect(assembler.push(QR_2, 10)).toEqual([]); // still the broken barcode
    expect(assembler.discarding).toBe(true);
    expect(barcodes(assembler.push(CODE128, 600))).toEqual([{ value: 'PUNCHCARD-0042-00017', symbology: ']C0' }]);
  });

  it('a foreign report id between barcodes rejects without eating the next scan', () => {
    const assembler = new HidPosAssembler();
    const status = Uint8Array.from(CODE128);
    status[0] = 0x04;
    expect(assembler.push(status, 0)).toMatchObject([{ ok: false, code: 'wrong_report_id' }]);
    expect(assembler.discarding).toBe(false);
    expect(barcodes(assembler.push(CODE128, 1))).toHaveLength(1);
  });

  it('a foreign report id in the middle of a barcode drops it (reset after a reject)', () => {
    const assembler = new HidPosAssembler();
    const status = Uint8Array.from(CODE128);
    status[0] = 0x04;
    assembler.push(QR_1, 0);
    expect(assembler.push(status, 1)).toMatchObject([{ ok: false, code: 'wrong_report_id' }]);
    expect(assembler.pending).toBe(false);
    expect(assembler.push(QR_2, 2)).toEqual([]);
    expect(assembler.push(QR_3, 3)).toEqual([]);
  });

  it('a continuation report with another symbology rejects and discards that barcode', () => {
    const assembler = new HidPosAssembler();
    const other = Uint8Array.from(QR_2);
    other.set([0x5d, 0x43, 0x30], 2); // ]C0
    assembler.push(QR_1, 0);
    expect(assembler.push(other, 1)).toMatchObject([{ ok: false, code: 'symbology_changed' }]);
    expect(assembler.push(QR_3, 2)).toEqual([]);
    expect(barcodes(assembler.push(CODE128, 3))).toHaveLength(1);
  });

  it('continuation reports with zeros for the AIM id keep the first report’s symbology', () => {
    const assembler = new HidPosAssembler();
    const second = Uint8Array.from(QR_2);
    const third = Uint8Array.from(QR_3);
    second.set([0, 0, 0], 2);
    third.set([0, 0, 0], 2);
    assembler.push(QR_1, 0);
    assembler.push(second, 1);
    expect(barcodes(assembler.push(third, 2))).toEqual([{ value: QR_TEXT, symbology: ']Q1' }]);
  });

  it('a barcode longer than maxBytes rejects', () => {
    const assembler = new HidPosAssembler({ maxBytes: 100 });
    assembler.push(QR_1, 0);
    expect(assembler.push(QR_2, 1)).toMatchObject([{ ok: false, code: 'too_long' }]);
    expect(assembler.push(QR_3, 2)).toEqual([]);
    expect(barcodes(assembler.push(CODE128, 3))).toHaveLength(1);
  });

  it('a final report with no data and nothing before it is an empty barcode', () => {
    const empty = Uint8Array.from(CODE128);
    empty[1] = 0;
    expect(new HidPosAssembler().push(empty, 0)).toMatchObject([{ ok: false, code: 'empty_barcode' }]);
  });

  it('reset() forgets a partial barcode', () => {
    const assembler = new HidPosAssembler();
    assembler.push(QR_1, 0);
    assembler.reset();
    expect(barcodes(assembler.push(QR_3, 1))).toEqual([{ value: QR_TEXT.slice(112), symbology: ']Q1' }]);
  });

  it('survives 1000 random reports mixed with real ones: no exception, real scans still come through', () => {
    const random = prng(2024);
    const assembler = new HidPosAssembler();
    let at = 0;
    let found = 0;
    for (let i = 0; i < 1000; i++) {
      at += 1000; // quiet between bursts, so a broken burst never swallows the next one
      const size = random() < 0.5 ? 64 : Math.floor(random() * 70);
      const junk = Uint8Array.from({ length: size }, () => Math.floor(random() * 256));
      if (size > 0 && random() < 0.7) junk[0] = 0x02;
      for (const outcome of assembler.push(junk, at)) expect(outcome.ok || outcome.reason.length > 0).toBe(true);
      at += 1000;
      const out = [QR_1, QR_2, QR_3].flatMap((r, k) => assembler.push(r, at + k));
      if (barcodes(out).some((b) => b.value === QR_TEXT)) found++;
    }
    expect(found).toBe(1000);
  });
});
