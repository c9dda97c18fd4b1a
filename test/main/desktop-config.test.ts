import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applySwitches, DEFAULT_DESKTOP_CONFIG, loadDesktopConfig, parseDesktopConfig } from '../../src/main/desktop-config';

// The desktop terminal's punchcard.json and switches: bad input never stops the app, it falls back
// to the default of that one setting and says why.

describe('desktop config file', () => {
  it('reads kiosk, display, store and scanner settings', () => {
    const { config, problems } = parseDesktopConfig(
      JSON.stringify({ kiosk: { enabled: true, display: 1 }, storeId: 42, scanners: { hid: false, keyboardDevices: ['05e0:1200:barcode'] } }),
    );
    expect(problems).toEqual([]);
    expect(config).toEqual({
      kiosk: { enabled: true, display: 1 },
      storeId: 42,
      scanners: { hid: false, keyboardDevices: [{ vendorId: 0x05e0, productId: 0x1200, kind: 'barcode' }] },
    });
  });

  it('uses the defaults for a missing or empty file, and for broken JSON with a reason', () => {
    expect(parseDesktopConfig(null)).toEqual({ config: DEFAULT_DESKTOP_CONFIG, problems: [] });
    expect(parseDesktopConfig('  ')).toEqual({ config: DEFAULT_DESKTOP_CONFIG, problems: [] });
    expect(parseDesktopConfig('{"kiosk": ')).toEqual({ config: DEFAULT_DESKTOP_CONFIG, problems: [expect.stringContaining('not valid JSON')] });
    expect(parseDesktopConfig('[1,2]').problems).toEqual([expect.stringContaining('JSON object')]);
  });

  it('drops each bad setting alone, keeping the good ones', () => {
    const { config, problems } = parseDesktopConfig(
      JSON.stringify({ kiosk: { enabled: 'yes', display: -1 }, storeId: 'main', scanners: { hid: true, keyboardDevices: ['zebra', '0801:card'] } }),
    );
    expect(config.kiosk).toEqual({ enabled: false, display: null });
    expect(config.storeId).toBeNull();
    expect(config.scanners.keyboardDevices).toEqual([{ vendorId: 0x0801, kind: 'card' }]);
    expect(problems).toHaveLength(4);
  });
});

describe('desktop switches', () => {
  it('override the file for one run', () => {
    const { config, problems } = applySwitches(DEFAULT_DESKTOP_CONFIG, ['/usr/bin/punchcard', '--kiosk-display=2', '--store=7', '--no-scanners']);
    expect(problems).toEqual([]);
    expect(config).toMatchObject({ kiosk: { enabled: true, display: 2 }, storeId: 7, scanners: { hid: false } });
    expect(applySwitches({ ...DEFAULT_DESKTOP_CONFIG, kiosk: { enabled: true, display: null } }, ['--no-kiosk']).config.kiosk.enabled).toBe(false);
  });

  it('report malformed values and leave the setting as it was', () => {
    const { config, problems } = applySwitches(DEFAULT_DESKTOP_CONFIG, ['--kiosk-display=left', '--store=0']);
    expect(config).toEqual(DEFAULT_DESKTOP_CONFIG);
    expect(problems).toHaveLength(2);
  });
});

describe('loading from the app-data folder', () => {
  it('writes the defaults on first start so staff can find the file, then reads edits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'punchcard-config-'));
    try {
      const first = loadDesktopConfig(dir, []);
      expect(first.config).toEqual(DEFAULT_DESKTOP_CONFIG);
      expect(JSON.parse(readFileSync(first.file, 'utf8'))).toEqual(DEFAULT_DESKTOP_CONFIG);
      writeFileSync(first.file, JSON.stringify({ kiosk: { enabled: true } }));
      expect(loadDesktopConfig(dir, ['--kiosk-display=1']).config.kiosk).toEqual({ enabled: true, display: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
