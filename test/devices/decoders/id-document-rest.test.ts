import { describe, expect, it } from 'vitest';
import { ID_DOCUMENT_REST_MS, IdDocumentRest, scanFromSourceLine } from '../../../src/devices/decoders';
import { HidPosReportDecoder, KeyboardReportDecoder } from '../../../src/devices/hid/report-decoders';
import { typedOnUsKeyboard } from '../hid/typed-reports';

// A driver's licence read through a keyboard wedge is one line per data element (its LFs are
// Enters): before, only the header line was refused and the holder's name, birth date and address
// went on as barcodes to look up (and, finding nobody, to log). A 2D scanner in HID POS mode reads it
// whole: it was looked up as a barcode, never refused.

const HEADER = 'ANSI 636014080102DL00410278ZC03190024DLDAQD1234562';
const BODY = ['DCSDOE', 'DACJOHN', 'DBB19800101', 'DAG1 MAIN ST', 'ZCZCA'];

describe("a licence's lines after its header", () => {
  it('are refused as its rest, one after the other, and nothing after the window is', () => {
    const rest = new IdDocumentRest();
    let at = 1_000;
    expect(scanFromSourceLine(HEADER, at, rest)).toMatchObject({ ok: false, code: 'id_document' });
    for (const line of BODY) {
      at += 20;
      const result = scanFromSourceLine(line, at, rest);
      expect(result, line).toMatchObject({ ok: false, code: 'id_document_rest' });
      expect(JSON.stringify(result)).not.toMatch(/DOE|JOHN|1980|MAIN/);
    }
    // A card's barcode next is read; one shaped like an element is read once the window has passed.
    expect(scanFromSourceLine('4006381333931', at + 10, rest)).toMatchObject({ ok: true, scan: { value: '4006381333931' } });
    expect(scanFromSourceLine('DEMO0001', at + 20, rest)).toMatchObject({ ok: false, code: 'id_document_rest' });
    expect(scanFromSourceLine('DEMO0001', at + 20 + ID_DOCUMENT_REST_MS + 1, rest)).toMatchObject({ ok: true, scan: { value: 'DEMO0001' } });
  });

  it('are read as barcodes when no licence came before', () => {
    expect(scanFromSourceLine('DCSDOE', 0, new IdDocumentRest())).toMatchObject({ ok: true, scan: { value: 'DCSDOE' } });
  });

  it('typed by a keyboard-emulation reader on the node: one id_document, the rest refused, the next card read', () => {
    const decoder = new KeyboardReportDecoder();
    const results = typedOnUsKeyboard(`${HEADER}\n${BODY.slice(0, 3).join('\n')}\n`).flatMap((report, i) => decoder.push(report, 5_000 + i));
    expect(results.map((r) => (r.ok ? `scan ${r.scan.value}` : r.code))).toEqual(['id_document', 'id_document_rest', 'id_document_rest', 'id_document_rest']);
    const later = typedOnUsKeyboard('DEMO0001\n').flatMap((report) => decoder.push(report, 60_000));
    expect(later).toMatchObject([{ ok: true, scan: { value: 'DEMO0001' } }]);
  });
});

/** A PDF417 read by a HID POS scanner (page 0x8C): 55 data bytes a report, AIM ]L2, "more follows" in byte 63. */
function posReports(text: string): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const reports: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += 55) {
    const chunk = bytes.subarray(offset, offset + 55);
    const report = new Uint8Array(64);
    report.set([0x02, chunk.length, 0x5d, 0x4c, 0x32]);
    report.set(chunk, 5);
    report[61] = 0x6a;
    report[63] = offset + 55 < bytes.length ? 1 : 0;
    reports.push(report);
  }
  return reports;
}

describe('a HID POS scanner reading a licence whole', () => {
  it('refuses it as an ID document instead of looking it up; a card barcode still reads', () => {
    const decoder = new HidPosReportDecoder();
    const licence = `@\n\u001e\r${HEADER}\n${BODY.join('\n')}\n`;
    const results = posReports(licence).flatMap((report) => decoder.push(report, 1_000));
    expect(results).toMatchObject([{ ok: false, code: 'id_document' }]);
    expect(JSON.stringify(results)).not.toMatch(/DOE|JOHN|1980/);
    expect(posReports('DEMO0001').flatMap((report) => decoder.push(report, 2_000))).toMatchObject([{ ok: true, scan: { value: 'DEMO0001' } }]);
  });
});
