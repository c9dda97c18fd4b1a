import type { StoreScope } from '../../core/credentials/authenticate';
import type { Engine } from '../../core/engine';
import { type CheckInResult, checkIn } from '../../core/onscreen/check-in';
import { type DecodedScan, IdDocumentRest, maskPan, scanFromSourceLine } from '../../devices/decoders';
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
  const decoded = scanFromSourceLine(line, engine.clock.now(), idDocumentRestOf(engine, scope, screen));
  // A bank card swiped by mistake is told apart: "scan again" would only bring the same card back.
  if (!decoded.ok && decoded.code === 'payment_card') throw new ServiceError('payment_card_scanned', undefined, 'line');
  // A licence, and its lines after the header (a wedge posts one per element).
  if (!decoded.ok && (decoded.code === 'id_document' || decoded.code === 'id_document_rest')) throw new ServiceError('id_document_scanned', undefined, 'line');
  if (!decoded.ok) throw new ServiceError('unreadable_scan', `The scan could not be read (${decoded.reason}). Please scan again.`, 'line');
  return checkInScan(engine, scope, decoded.scan, { screen });
}

/** Each screen's wedge lines in turn (per engine: tests run several nodes in a process). */
const wedgeRests = new WeakMap<Engine, Map<string, IdDocumentRest>>();

function idDocumentRestOf(engine: Engine, scope: StoreScope, screen: string | undefined): IdDocumentRest {
  let rests = wedgeRests.get(engine);
  if (!rests) wedgeRests.set(engine, (rests = new Map()));
  // A screen that names itself is its own source; unnamed ones of a store share one.
  const key = `${scope.vendorId}:${scope.storeId}:${screen ?? ''}`;
  let rest = rests.get(key);
  if (!rest) {
    // Screen names are the client's: a node never holds more than a few hundred windows of a second.
    if (rests.size >= 500) rests.clear();
    rests.set(key, (rest = new IdDocumentRest()));
  }
  return rest;
}
