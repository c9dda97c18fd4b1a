import { Type } from 'typebox';
import { Nullable } from './common';

/** GET /app/scanners?api_key: the scanners and card readers the node reads for the key's store. */
export const ScannerSchema = Type.Object({
  /** Stable while the device stays plugged in (its OS path for HID devices). */
  id: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('barcode'), Type.Literal('card')]),
  mode: Type.Union([Type.Literal('hid-pos'), Type.Literal('keyboard-emulation'), Type.Literal('scripted')]),
  connected: Type.Boolean(),
  /** Epoch milliseconds of the last scan read (like the event stream's `at`), null before the first. */
  last_scan_at: Nullable(Type.Integer()),
});

export const ScannersReplySchema = Type.Object({ scanners: Type.Array(ScannerSchema) });
