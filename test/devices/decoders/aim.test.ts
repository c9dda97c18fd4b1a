import { describe, expect, it } from 'vitest';
import { isAimIdentifier, parseAim, symbologyName } from '../../../src/devices/decoders/aim';

describe('AIM symbology identifier prefixes', () => {
  it.each([
    [']C0PUNCHCARD-0042', ']C0', 'Code 128', 'PUNCHCARD-0042'],
    [']C1010950123456789', ']C1', 'GS1-128', '010950123456789'],
    [']E05901234123457', ']E0', 'EAN-13', '5901234123457'],
    [']E496385074', ']E4', 'EAN-8', '96385074'],
    [']A0DEMO0001', ']A0', 'Code 39', 'DEMO0001'],
    [']Q1https://punchcard.example/c/1', ']Q1', 'QR Code', 'https://punchcard.example/c/1'],
    [']Q3010950123456789', ']Q3', 'QR Code (GS1)', '010950123456789'],
    [']d2010950123456789', ']d2', 'Data Matrix (GS1)', '010950123456789'],
    [']d1ABC', ']d1', 'Data Matrix', 'ABC'],
    [']e00109501234567', ']e0', 'GS1 DataBar', '0109501234567'],
    [']I01234567890', ']I0', 'Interleaved 2 of 5', '1234567890'],
    [']L2PDF', ']L2', 'PDF417', 'PDF'],
    [']z0AZTEC', ']z0', 'Aztec Code', 'AZTEC'],
    [']X0other', ']X0', 'Other symbology', 'other'],
    [']J0who', ']J0', 'Unknown symbology', 'who'],
  ])('%s → %s (%s)', (input, symbology, name, data) => {
    expect(parseAim(input)).toEqual({ ok: true, symbology, name, data });
  });

  it('keeps the data after the prefix exactly, including spaces, brackets and control characters', () => {
    expect(parseAim(']C0 a]b\u001dc ')).toEqual({ ok: true, symbology: ']C0', name: 'Code 128', data: ' a]b\u001dc ' });
  });

  it('an identifier with no data leaves empty data', () => {
    expect(parseAim(']C0')).toEqual({ ok: true, symbology: ']C0', name: 'Code 128', data: '' });
  });

  it.each(['DEMO0001', '4242424242424242', '', ' ]C0X', 'C0]X', '%B4242'])(
    'no prefix: %j comes back unchanged, without a symbology',
    (input) => {
      const result = parseAim(input);
      expect(result).toEqual({ ok: true, data: input });
      expect(result).not.toHaveProperty('symbology');
    },
  );

  it.each([']', ']C'])('%j is cut short: a clear reject', (input) => {
    expect(parseAim(input)).toEqual({ ok: false, code: 'aim_truncated', reason: expect.stringMatching(/cut short/) });
  });

  it.each([']#0DATA', ']0CDATA', '] 0DATA', ']C DATA', ']C-DATA', ']]]DATA', ']\u00e90DATA'])(
    '%j is malformed: a clear reject',
    (input) => {
      expect(parseAim(input)).toMatchObject({ ok: false, code: 'aim_malformed' });
    },
  );

  it('reject reasons never echo the data', () => {
    const result = parseAim(']#04242424242424242');
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain('4242');
  });

  it('validates bare identifiers and names them', () => {
    expect(isAimIdentifier(']C0')).toBe(true);
    expect(isAimIdentifier(']d2')).toBe(true);
    expect(isAimIdentifier(']C')).toBe(false);
    expect(isAimIdentifier(']C00')).toBe(false);
    expect(isAimIdentifier('[C0')).toBe(false);
    expect(symbologyName(']F0')).toBe('Codabar');
    expect(symbologyName(']E0')).toBe('EAN-13');
  });
});
