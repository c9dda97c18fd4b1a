import type { StoreScope } from '../../core/credentials/authenticate';
import type { Engine } from '../../core/engine';
import { type CheckInResult, checkIn } from '../../core/onscreen/check-in';
import { type DecodedScan, maskPan, scanFromKeyboardLine } from '../../devices/decoders';
import { ServiceError } from '../../shared/errors';
import type { ScannerStation } from '../../shared/schemas/scanners';

// The one way a scan becomes a check-in, whoever read it: a device on this node (HID scanner, card
// reader, scripted source) or a wedge line a screen captured and posted (POST /app/scans). Only the
// identification is used; logs and replies get the masked form.

export interface ScanCheckIn {
  result: CheckInResult;
  scan: DecodedScan;
  /** `maskPan(value)`: the only form of the value fit for logs and replies. */
  masked: string;
}

/**
 * Checks in the customer a decoded scan identifies, at the scope's store. Throws ServiceError.
 * `device`: read by a scanner of the node, at its station (null: not assigned).
 */
export async function checkInScan(engine: Engine, scope: StoreScope, scan: DecodedScan, device?: { via: 'scanner'; station: ScannerStation | null }): Promise<ScanCheckIn> {
  const result = await checkIn(engine, scope, { identification: scan.value, ...(device ? { via: device.via, ...(device.station ? { station: device.station } : {}) } : {}) });
  return { result, scan, masked: maskPan(scan.value) };
}

/** A keyboard-wedge line or swipe, decoded then checked in; an unreadable one is 400 `unreadable_scan`. */
export function checkInScanLine(engine: Engine, scope: StoreScope, line: string): Promise<ScanCheckIn> {
  const decoded = scanFromKeyboardLine(line);
  if (!decoded.ok) throw new ServiceError('unreadable_scan', `The scan could not be read (${decoded.reason}). Please scan again.`, 'line');
  return checkInScan(engine, scope, decoded.scan);
}
