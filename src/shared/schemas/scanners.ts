import { Type } from 'typebox';
import { Nullable } from './common';

/** Where a scanner the node reads serves: at the counter (the cashier) or at the kiosk. */
export const SCANNER_STATIONS = ['counter', 'kiosk'] as const;
export type ScannerStation = (typeof SCANNER_STATIONS)[number];

export const ScannerStationSchema = Type.Union([Type.Literal('counter'), Type.Literal('kiosk')]);

/** GET /app/scanners?api_key: the scanners and card readers the node reads for the key's store. */
export const ScannerSchema = Type.Object({
  /** Stable while the device stays plugged in (its OS path for HID devices). */
  id: Type.String(),
  /**
   * The device's identity across re-plugs and restarts, which its station is kept under:
   * `usb:vvvv:pppp:SERIAL` for HID devices reporting a serial number, else `usb:vvvv:pppp@PATH`
   * (kept while the device stays on that port); `scripted:ID` for scripted sources.
   */
  device: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('barcode'), Type.Literal('card')]),
  mode: Type.Union([Type.Literal('hid-pos'), Type.Literal('keyboard-emulation'), Type.Literal('scripted')]),
  connected: Type.Boolean(),
  /** Epoch milliseconds of the last scan read (like the event stream's `at`), null before the first. */
  last_scan_at: Nullable(Type.Integer()),
  /** counter or kiosk; null: not assigned, every screen of the store treats its scans as its own. */
  station: Nullable(ScannerStationSchema),
});

export const ScannersReplySchema = Type.Object({ scanners: Type.Array(ScannerSchema) });

/** PUT /app/scanners/station?api_key: assigns one listed scanner (by `id` or `device`) to a station. */
export const ScannerStationBody = Type.Object({
  scanner: Type.String({ minLength: 1, maxLength: 500, description: 'the `id` or `device` of a scanner GET /app/scanners lists' }),
  station: Nullable(ScannerStationSchema),
});

export const ScannerStationReplySchema = Type.Object({ scanner: ScannerSchema });
