import { describe, expect, it } from 'vitest';
import { createRequester } from '../../src/renderer/src/api/client';
import { createScannersApi, parseScannerList } from '../../src/renderer/src/api/scanners-api';
import { useHealthStrings } from '../../src/renderer/src/health/HealthScreen';
import { formatScanTime, kindLabel, modeLabel, stationLabel } from '../../src/renderer/src/settings/scanner-labels';
import { useSettingsStrings } from '../../src/renderer/src/settings/strings';

function fakeFetch(status: number, body: unknown, seen: string[] = []): typeof fetch {
  return (async (url: URL | string) => {
    seen.push(String(url));
    return new Response(body === undefined ? '' : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

function scannersOver(fetchImpl: typeof fetch) {
  return createScannersApi({ request: createRequester({ baseUrl: 'http://node.test', credential: null }, fetchImpl), apiKey: 'pcak_kiosk' });
}

const HID = { id: '/dev/hidraw3', device: 'usb:0c2e:0b61:18123B4567', name: 'Honeywell Voyager', kind: 'barcode', mode: 'hid-pos', connected: true, last_scan_at: 1_760_000_000_000, station: 'kiosk' };

describe('settings: scanners from GET /app/scanners', () => {
  it('lists what the node reads, with the store key in the query', async () => {
    const seen: string[] = [];
    const list = await scannersOver(fakeFetch(200, { scanners: [HID] }, seen)).list();
    expect(seen).toEqual(['http://node.test/app/scanners?api_key=pcak_kiosk']);
    expect(list).toEqual({ available: true, scanners: [HID] });
  });

  it('an empty list is an empty list', async () => {
    expect(await scannersOver(fakeFetch(200, { scanners: [] })).list()).toEqual({ available: true, scanners: [] });
  });

  it('a node without the endpoint (404) is "not reported", not an error', async () => {
    const body = { error: { errors: [{ reason: 'route_not_found', message: 'There is no GET /app/scanners endpoint.' }] } };
    expect(await scannersOver(fakeFetch(404, body)).list()).toEqual({ available: false });
  });

  it('assigns a station with PUT /app/scanners/station and the store key, and keeps the node’s refusal', async () => {
    const calls: { url: string; method: string; body: unknown }[] = [];
    const recording = (async (url: URL | string, init?: RequestInit) => {
      calls.push({ url: String(url), method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined });
      return new Response(JSON.stringify({ scanner: { ...HID, station: 'counter' } }), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    await scannersOver(recording).assign('/dev/hidraw3', 'counter');
    await scannersOver(recording).assign('/dev/hidraw3', null);
    expect(calls).toEqual([
      { url: 'http://node.test/app/scanners/station?api_key=pcak_kiosk', method: 'PUT', body: { scanner: '/dev/hidraw3', station: 'counter' } },
      { url: 'http://node.test/app/scanners/station?api_key=pcak_kiosk', method: 'PUT', body: { scanner: '/dev/hidraw3', station: null } },
    ]);
    const body = { error: { errors: [{ reason: 'forbidden', message: 'A kiosk key may not make this call.' }] } };
    await expect(scannersOver(fakeFetch(403, body)).assign('/dev/hidraw3', 'kiosk')).rejects.toMatchObject({ message: 'A kiosk key may not make this call.', status: 403 });
  });

  it('other failures keep the node’s message', async () => {
    const body = { error: { errors: [{ reason: 'invalid_api_key', message: 'The API key is not valid.' }] } };
    await expect(scannersOver(fakeFetch(401, body)).list()).rejects.toMatchObject({ name: 'NodeApiError', message: 'The API key is not valid.', status: 401 });
  });

  it('reads odd replies leniently', () => {
    expect(parseScannerList(null)).toEqual([]);
    expect(parseScannerList({ scanners: 'none' })).toEqual([]);
    expect(
      parseScannerList({
        scanners: [
          null,
          { name: 'no id' },
          { id: 7, kind: 'rfid', mode: 'bluetooth', connected: 'yes', last_scan_at: 1_760_000_000 },
          { id: 'b', device: 'usb:0801:0001@b', name: 'Reader', kind: 'card', mode: 'keyboard-emulation', connected: false, last_scan_at: '2025-10-09T08:53:20Z', station: 'door' },
        ],
      }),
    ).toEqual([
      // An older node sends no device or station: the id stands in, and the scanner is unassigned.
      { id: '7', device: '7', name: '7', kind: 'rfid', mode: 'bluetooth', connected: false, last_scan_at: 1_760_000_000_000, station: null },
      { id: 'b', device: 'usb:0801:0001@b', name: 'Reader', kind: 'card', mode: 'keyboard-emulation', connected: false, last_scan_at: Date.parse('2025-10-09T08:53:20Z'), station: null },
    ]);
  });
});

describe('settings: labels', () => {
  const en = useSettingsStrings.all.en;
  const es = useSettingsStrings.all.es;

  it('names kinds and modes in both languages, and shows unknown ones as sent', () => {
    expect([kindLabel('barcode', en), kindLabel('card', en), kindLabel('rfid', en)]).toEqual(['Barcode scanner', 'Card reader', 'rfid']);
    expect([modeLabel('hid-pos', es), modeLabel('keyboard-emulation', es), modeLabel('scripted', es)]).toEqual(['HID POS', 'Emulación de teclado', 'Simulado (demo, pruebas)']);
  });

  it('names stations in both languages; an unassigned scanner serves counter and kiosk', () => {
    expect([stationLabel('counter', en), stationLabel('kiosk', en), stationLabel(null, en)]).toEqual(['Counter', 'Kiosk', 'Counter and kiosk']);
    expect([stationLabel('counter', es), stationLabel('kiosk', es), stationLabel(null, es)]).toEqual(['Mostrador', 'Quiosco', 'Mostrador y quiosco']);
  });

  it('shows a scan time alone when it was today, date and time otherwise, "Never" before the first', () => {
    const now = new Date(2025, 9, 9, 15, 0, 0).getTime();
    const today = new Date(2025, 9, 9, 9, 30, 0).getTime();
    const earlier = new Date(2025, 9, 1, 9, 30, 0).getTime();
    expect(formatScanTime(null, now, 'en', en)).toBe('Never');
    expect(formatScanTime(null, now, 'es', es)).toBe('Nunca');
    expect(formatScanTime(today, now, 'en', en)).toBe(new Date(today).toLocaleTimeString('en'));
    expect(formatScanTime(earlier, now, 'en', en)).toBe(new Date(earlier).toLocaleString('en'));
  });

  it('every settings and health text has a Spanish version', () => {
    for (const strings of [useSettingsStrings.all, useHealthStrings.all]) {
      expect(Object.keys(strings.es).sort()).toEqual(Object.keys(strings.en).sort());
    }
    expect(useHealthStrings.all.es.title).toBe('Estado del nodo');
  });
});
