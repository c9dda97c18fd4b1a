import { describe, expect, it } from 'vitest';
import { formatAxisDay } from '../../src/renderer/src/format';
import { useKioskStrings } from '../../src/renderer/src/kiosk/strings';
import { useLoginStrings } from '../../src/renderer/src/login/strings';
import { formatPhone } from '../../src/renderer/src/phone-format';
import { useSettingsStrings } from '../../src/renderer/src/settings/strings';
import { useAdminStrings } from '../../src/renderer/src/admin/strings';

// What a merchant in Ecuador read wrong on the Spanish screens: phones as stored, days month first,
// a kiosk that said "tú", greeted everyone in the masculine and left "Quick Pay" in English.
describe('the screens as Ecuador reads them', () => {
  it('a phone of the program\'s country reads national, another\'s international, an unreadable one as stored', () => {
    expect(formatPhone('+593991234567', 'EC')).toBe('099 123 4567');
    expect(formatPhone('+593991234567', 'ec')).toBe('099 123 4567');
    expect(formatPhone('+14155550104', 'US')).toBe('(415) 555-0104');
    expect(formatPhone('+14155550104', 'EC')).toBe('+1 415 555 0104');
    expect(formatPhone('+593991234567', null)).toBe('+593 99 123 4567');
    expect(formatPhone('12345', 'EC')).toBe('12345');
  });

  it('a chart day reads day first in Spanish, as before in English', () => {
    expect(formatAxisDay('2026-11-09', 'es')).toBe('09/11');
    expect(formatAxisDay('2026-12-07', 'es')).toBe('07/12');
    expect(formatAxisDay('2026-11-09', 'en')).toBe('11-09');
  });

  it('the kiosk speaks Spanish, as "usted", to women too; "autorregistro" is spelt with rr', () => {
    const es = useKioskStrings.all.es;
    expect(es.registerHint).toBe('Escriba su número de móvil: empiece a sumar puntos hoy mismo.');
    expect(es.quickPayLabel).toBe('Saldo de pago rápido');
    expect(es.welcome('María')).toBe('¡Hola, María!');
    expect(es.welcomeFooter).toBe('Su llegada quedó registrada. El cajero tiene sus datos.');
    expect(es.join).not.toMatch(/nuevo/);
    for (const text of [useLoginStrings.all.es.intro, useSettingsStrings.all.es.roleKiosk, useAdminStrings.all.es.keyRole_kiosk, useAdminStrings.all.es.keyScreen_kiosk]) {
      expect(text).toContain('autorregistro');
    }
  });
});
