import { DEFAULT_KEYBOARD_DEVICES, parseKeyboardDeviceRule } from '../../devices/hid';
import type { NodeScannerOptions } from '../node/node-scanners';
import { SettingError } from '../node/setting-error';

export interface ScannerFlags {
  scanners?: string | undefined;
  scannerStore?: number | undefined;
  scannerKeyboard?: readonly string[] | undefined;
}

/**
 * `--scanners hid [--scanner-store ID] [--scanner-keyboard V:P:kind…]` to the store node's option.
 * The API key the scans check in with comes from PUNCHCARD_SCANNER_KEY (an environment variable,
 * not a flag, so it never shows in the process list); without it the node mints its own.
 */
export function scannerOptionsFrom(flags: ScannerFlags, env: NodeJS.ProcessEnv): NodeScannerOptions | undefined {
  if (flags.scanners !== 'hid') {
    // Ignored, they would mislead: the operator believes scanners are read.
    const given = [flags.scannerStore !== undefined ? '--scanner-store' : null, flags.scannerKeyboard?.length ? '--scanner-keyboard' : null].filter(Boolean);
    if (given.length > 0) throw new SettingError(`${given.join(' and ')} ${given.length > 1 ? 'choose' : 'chooses'} for the node's scanners, which it reads only with --scanners hid: add it, or leave ${given.length > 1 ? 'them' : 'it'} out.`);
    return undefined;
  }
  const keyboards = (flags.scannerKeyboard ?? []).map(parseKeyboardDeviceRule);
  return {
    hid: true,
    ...(env.PUNCHCARD_SCANNER_KEY ? { apiKey: env.PUNCHCARD_SCANNER_KEY } : {}),
    ...(flags.scannerStore !== undefined ? { storeId: flags.scannerStore } : {}),
    // Listed keyboards come on top of the default card readers.
    ...(keyboards.length ? { keyboardDevices: [...DEFAULT_KEYBOARD_DEVICES, ...keyboards] } : {}),
  };
}
