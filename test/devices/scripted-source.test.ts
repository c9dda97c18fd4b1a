import { describe, expect, it } from 'vitest';
import { type ScanEvent, ScriptedScanSource } from '../../src/devices/scan-source';

describe('scripted scan source', () => {
  it('emits normalised scan events while started, like a device', () => {
    const source = new ScriptedScanSource('counter-1', () => 1_700_000_000_000);
    const seen: ScanEvent[] = [];
    source.on('scan', (scan) => seen.push(scan));

    expect(source.scan('DEMO0001')).toBe(false);
    source.start();
    expect(source.scan('DEMO0001', 'barcode', ']C0')).toBe(true);
    source.scan('4242424242424242', 'card');
    source.stop();
    source.scan('DEMO0002');

    expect(seen).toEqual([
      { kind: 'barcode', value: 'DEMO0001', symbology: ']C0', source: 'counter-1', at: 1_700_000_000_000 },
      { kind: 'card', value: '4242424242424242', source: 'counter-1', at: 1_700_000_000_000 },
    ]);
  });
});
