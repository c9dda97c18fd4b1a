import type { NodeScanner } from '../api/scanners-api';
import type { useSettingsStrings } from './strings';

type SettingsStrings = ReturnType<typeof useSettingsStrings>;

export function kindLabel(kind: NodeScanner['kind'] | string, t: SettingsStrings): string {
  if (kind === 'barcode') return t.kindBarcode;
  if (kind === 'card') return t.kindCard;
  return kind;
}

export function modeLabel(mode: NodeScanner['mode'] | string, t: SettingsStrings): string {
  if (mode === 'hid-pos') return t.modeHidPos;
  if (mode === 'keyboard-emulation') return t.modeKeyboard;
  if (mode === 'scripted') return t.modeScripted;
  return mode;
}

/** A scan time for people: the time alone when it was today, else date and time; "Never" for null. */
export function formatScanTime(at: number | null, now: number, language: string, t: Pick<SettingsStrings, 'never'>): string {
  if (at === null) return t.never;
  const when = new Date(at);
  const today = new Date(now);
  const sameDay = when.getFullYear() === today.getFullYear() && when.getMonth() === today.getMonth() && when.getDate() === today.getDate();
  return sameDay ? when.toLocaleTimeString(language) : when.toLocaleString(language);
}

/** A station for people; null is a scanner serving both (not assigned). */
export function stationLabel(station: NodeScanner['station'], t: SettingsStrings): string {
  if (station === 'counter') return t.stationCounter;
  if (station === 'kiosk') return t.stationKiosk;
  return t.stationNone;
}
