import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type KeyboardDeviceRule, parseKeyboardDeviceRule } from '../devices/hid';

// The desktop terminal's settings: a small JSON file in the OS app-data folder (created with the
// defaults on first start, so staff can find and edit it), and command-line switches that win over
// it for one run. Pure parsing here (tested without Electron); reading the file is the one I/O.

export const DESKTOP_CONFIG_FILE = 'punchcard.json';

export interface DesktopConfig {
  kiosk: {
    /** Open the self check-in window (full screen, kiosk mode). */
    enabled: boolean;
    /** Index into the screens (0 = first); null: the first screen that is not the primary one, else the primary. */
    display: number | null;
  };
  /** Store this terminal serves; null: the node's first store. */
  storeId: number | null;
  scanners: {
    /** Read HID POS scanners and card readers. */
    hid: boolean;
    /** Keyboard-emulation devices to read too, as `vvvv:pppp:card|barcode`. */
    keyboardDevices: KeyboardDeviceRule[];
  };
}

export const DEFAULT_DESKTOP_CONFIG: DesktopConfig = {
  kiosk: { enabled: false, display: null },
  storeId: null,
  scanners: { hid: true, keyboardDevices: [] },
};

export interface ParsedConfig {
  config: DesktopConfig;
  /** What was ignored and why; the app logs these and runs with the defaults for those settings. */
  problems: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isIndex = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** The file's text to a config: every setting checked on its own, a bad one falls back to its default. */
export function parseDesktopConfig(text: string | null): ParsedConfig {
  const config = structuredClone(DEFAULT_DESKTOP_CONFIG);
  const problems: string[] = [];
  if (text === null || text.trim() === '') return { config, problems };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { config, problems: [`${DESKTOP_CONFIG_FILE} is not valid JSON; using the defaults`] };
  }
  if (!isRecord(raw)) return { config, problems: [`${DESKTOP_CONFIG_FILE} must hold a JSON object; using the defaults`] };

  if (raw.kiosk !== undefined) {
    if (!isRecord(raw.kiosk)) problems.push('kiosk must be an object');
    else {
      const { enabled, display } = raw.kiosk;
      if (typeof enabled === 'boolean') config.kiosk.enabled = enabled;
      else if (enabled !== undefined) problems.push('kiosk.enabled must be true or false');
      if (display === null || isIndex(display)) config.kiosk.display = display;
      else if (display !== undefined) problems.push('kiosk.display must be a screen number from 0, or null');
    }
  }
  if (raw.storeId !== undefined) {
    if (raw.storeId === null || (Number.isSafeInteger(raw.storeId) && (raw.storeId as number) > 0)) config.storeId = raw.storeId as number | null;
    else problems.push('storeId must be a store id, or null');
  }
  if (raw.scanners !== undefined) {
    if (!isRecord(raw.scanners)) problems.push('scanners must be an object');
    else {
      const { hid, keyboardDevices } = raw.scanners;
      if (typeof hid === 'boolean') config.scanners.hid = hid;
      else if (hid !== undefined) problems.push('scanners.hid must be true or false');
      if (Array.isArray(keyboardDevices)) {
        for (const entry of keyboardDevices) {
          try {
            config.scanners.keyboardDevices.push(parseKeyboardDeviceRule(String(entry)));
          } catch (error) {
            problems.push(`scanners.keyboardDevices: ${(error as Error).message}`);
          }
        }
      } else if (keyboardDevices !== undefined) problems.push('scanners.keyboardDevices must be a list');
    }
  }
  return { config, problems };
}

/**
 * Switches for one run: `--kiosk` / `--no-kiosk`, `--kiosk-display=N`, `--store=ID`, `--no-scanners`.
 * Unknown or malformed switches are reported, never fatal.
 */
export function applySwitches(base: DesktopConfig, argv: readonly string[]): ParsedConfig {
  const config = structuredClone(base);
  const problems: string[] = [];
  for (const arg of argv) {
    if (arg === '--kiosk') config.kiosk.enabled = true;
    else if (arg === '--no-kiosk') config.kiosk.enabled = false;
    else if (arg === '--no-scanners') config.scanners.hid = false;
    else if (arg.startsWith('--kiosk-display=')) {
      const value = Number(arg.slice('--kiosk-display='.length));
      if (isIndex(value)) {
        config.kiosk.display = value;
        config.kiosk.enabled = true;
      } else problems.push(`${arg}: the screen number is a whole number from 0`);
    } else if (arg.startsWith('--store=')) {
      const value = Number(arg.slice('--store='.length));
      if (Number.isSafeInteger(value) && value > 0) config.storeId = value;
      else problems.push(`${arg}: the store id is a positive whole number`);
    }
  }
  return { config, problems };
}

/** Reads `<appData>/punchcard.json` (writing the defaults there on first start) and applies the switches. */
export function loadDesktopConfig(appDataDir: string, argv: readonly string[]): ParsedConfig & { file: string } {
  const file = join(appDataDir, DESKTOP_CONFIG_FILE);
  let text: string | null = null;
  const problems: string[] = [];
  try {
    if (existsSync(file)) text = readFileSync(file, 'utf8');
    else writeFileSync(file, `${JSON.stringify(DEFAULT_DESKTOP_CONFIG, null, 2)}\n`, { flag: 'wx' });
  } catch (error) {
    problems.push(`${file}: ${(error as Error).message}`);
  }
  const fromFile = parseDesktopConfig(text);
  const withSwitches = applySwitches(fromFile.config, argv);
  return { file, config: withSwitches.config, problems: [...problems, ...fromFile.problems, ...withSwitches.problems] };
}
