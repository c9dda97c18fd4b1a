import type { Engine } from '../../core/engine';
import { type HidBackend, HidDeviceManager, type KeyboardDeviceRule, nodeHidBackend, type ScanLogger } from '../../devices/hid';
import type { ScanSource } from '../../devices/scan-source';
import { type ScannerStoreChoice, scannerScopeResolver } from './scanner-scope';
import { ScannerService } from './scanners';

export interface NodeScannerOptions extends ScannerStoreChoice {
  /** Read HID POS scanners and card readers through node-hid, with hot-plug. */
  hid?: boolean;
  /** node-hid by default; tests pass a fake that replays recorded reports. */
  hidBackend?: HidBackend;
  /** Keyboard-emulation devices to read over hidraw (default: MagTek and ID TECH card readers). */
  keyboardDevices?: readonly KeyboardDeviceRule[];
  /** How often HID devices are enumerated again (default 2 s). */
  rescanIntervalMs?: number;
  /** Always-present sources (scripted, for tests and demos). */
  sources?: readonly ScanSource[];
}

/** The scanner service a store node runs, or null when it reads no scanners at all. */
export function createNodeScanners(engine: Engine, options: NodeScannerOptions | undefined, logger?: ScanLogger): ScannerService | null {
  if (!options || (!options.hid && !options.sources?.length)) return null;
  const log = logger ?? { info: () => {}, warn: () => {} };
  const hid = options.hid
    ? new HidDeviceManager({
        backend: options.hidBackend ?? nodeHidBackend,
        ...(options.keyboardDevices ? { keyboardDevices: options.keyboardDevices } : {}),
        ...(options.rescanIntervalMs ? { intervalMs: options.rescanIntervalMs } : {}),
        logger: log,
      })
    : null;
  return new ScannerService({
    engine,
    storeScope: scannerScopeResolver(engine, options, log),
    sources: options.sources ?? [],
    hid,
    logger: log,
  });
}
