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
 * `origin`: read by a scanner of the node, at its station (null: not assigned); or captured by the
 * cashier screen named `screen` (a wedge line it posted).
 */
export async function checkInScan(engine: Engine, scope: StoreScope, scan: DecodedScan, origin: { via: 'scanner'; station: ScannerStation | null } | { screen?: string | undefined } = {}): Promise<ScanCheckIn> {
  const tags = 'via' in origin ? { via: origin.via, ...(origin.station ? { station: origin.station } : {}) } : { screen: origin.screen };
  const result = await checkIn(engine, scope, { identification: scan.value, ...tags });
  return { result, scan, masked: maskPan(scan.value) };
}

/**
 * A keyboard-wedge line or swipe a screen captured, decoded then checked in; an unreadable one is
 * 400 `unreadable_scan`, a payment card 422 `payment_card_scanned` (its number never looked up), a driver's licence 422
 * `id_document_scanned`. `screen`: the cashier screen that captured it.
 */
export function checkInScanLine(engine: Engine, scope: StoreScope, line: string, screen?: string): Promise<ScanCheckIn> {
  const decoded = scanFromKeyboardLine(line);
  // A bank card swiped by mistake is told apart: "scan again" would only bring the same card back.
  if (!decoded.ok && decoded.code === 'payment_card') throw new ServiceError('payment_card_scanned', undefined, 'line');
  if (!decoded.ok && decoded.code === 'id_document') throw new ServiceError('id_document_scanned', undefined, 'line');
  if (!decoded.ok) throw new ServiceError('unreadable_scan', `The scan could not be read (${decoded.reason}). Please scan again.`, 'line');
  return checkInScan(engine, scope, decoded.scan, { screen });
}
