// HID scanners and card readers: classification, sources over the HidDevice seam, the device manager,
// and the node-hid backend that is the only file touching the real library.
export {
  classifyDevice,
  classifyDevices,
  type Classification,
  DEFAULT_KEYBOARD_DEVICES,
  deviceIdentity,
  deviceName,
  IDTECH_VENDOR_ID,
  type KeyboardDeviceRule,
  MAGTEK_VENDOR_ID,
  parseKeyboardDeviceRule,
  USAGE_PAGE_BARCODE_SCANNER,
} from './classify';
export { DEFAULT_RESCAN_INTERVAL_MS, HidDeviceManager, type HidDeviceManagerOptions } from './device-manager';
export { type HidBackend, type HidDevice, type HidDeviceInfo, hex4, type ScanLogger, silentLogger } from './hid-device';
export { HidScanSource, type HidScanSourceOptions } from './hid-scan-source';
export { nodeHidBackend } from './node-hid-backend';
export { HidPosReportDecoder, KeyboardReportDecoder, type ReportDecoder, type ReportResult } from './report-decoders';
