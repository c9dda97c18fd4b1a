import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchored, buildCountryData, forNormalForm, OUTPUT, serializeCountryData } from '../../scripts/generate-countries';
import { type Engine, startEngine } from '../../src/core/engine';
import {
  allCountries,
  findCountryByCode,
  findCountryById,
  findRegion,
  flagSvg,
  isValidPostalCode,
  normalizeCountryList,
  normalizePostalCode,
  regionIdOf,
  regionsOf,
  vendorServesCountry,
} from '../../src/core/geo';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor, type VendorSetUp } from '../../src/core/tenancy/set-up-vendor';
import { ServiceError } from '../../src/shared/errors';
import { ROOT } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// The country data (generated file, lookups, validation) and the vendor's served countries.

const NO_CALLING_CODE = ['AQ', 'BV', 'GS', 'HM', 'PN', 'TF', 'UM'];

describe('the generated file', () => {
  it('is exactly what the generator builds from the installed packages (run it twice: same text)', () => {
    const first = serializeCountryData(buildCountryData());
    const second = serializeCountryData(buildCountryData());
    expect(second).toBe(first);
    expect(readFileSync(OUTPUT, 'utf8'), 'run npx tsx scripts/generate-countries.ts').toBe(first);
  });

  it('passes the generator --check as a real process', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/generate-countries.ts'), '--check'], { cwd: ROOT });
    expect(stdout).toMatch(/is up to date/);
  }, 60_000);

  it('records the versions of its sources', () => {
    const file = JSON.parse(readFileSync(OUTPUT, 'utf8'));
    expect(Object.keys(file.sources).sort()).toEqual(['country-flag-icons', 'i18n-iso-countries', 'iso-3166', 'libphonenumber-js', 'postal-codes-js', 'postcode-validator']);
    for (const version of Object.values(file.sources)) expect(version).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('countries', () => {
  it('lists every ISO 3166-1 country (249) and Kosovo, once each, ordered by code', () => {
    const countries = allCountries();
    expect(countries).toHaveLength(250);
    const codes = countries.map((c) => c.code);
    expect(new Set(codes).size).toBe(250);
    expect(codes).toEqual([...codes].sort());
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
    expect(new Set(countries.map((c) => c.id)).size).toBe(250);
  });

  it('uses the ISO 3166-1 numeric code as id, and 983 for Kosovo', () => {
    expect(findCountryByCode('EC')?.id).toBe(218);
    expect(findCountryByCode('US')?.id).toBe(840);
    expect(findCountryByCode('AF')?.id).toBe(4);
    expect(findCountryByCode('XK')?.id).toBe(983);
    for (const c of allCountries()) expect(c.id === 983 || (c.id >= 1 && c.id <= 899)).toBe(true);
  });

  it('finds Ecuador by id and by code in any case, with every field', () => {
    const ec = {
      id: 218,
      code: 'EC',
      name: 'Ecuador',
      names: { en: 'Ecuador', es: 'Ecuador' },
      phoneCode: '593',
      zipPattern: '^[0-9]{6}$',
      phonePattern: '^(?:1\\d{9,10}|(?:[2-7]|9\\d)\\d{7})$',
    };
    expect(findCountryById(218)).toEqual(ec);
    expect(findCountryByCode('ec')).toEqual(ec);
    expect(findCountryByCode(' Ec ')).toEqual(ec);
    expect(findCountryById(999)).toBeUndefined();
    expect(findCountryById(0)).toBeUndefined();
    expect(findCountryByCode('ZZ')).toBeUndefined();
    expect(findCountryByCode('')).toBeUndefined();
  });

  it('has English and Spanish names', () => {
    expect(findCountryByCode('US')?.names).toEqual({ en: 'United States of America', es: 'Estados Unidos' });
    expect(findCountryByCode('DO')?.names).toEqual({ en: 'Dominican Republic', es: 'República Dominicana' });
    expect(findCountryByCode('JP')?.names).toEqual({ en: 'Japan', es: 'Japón' });
    for (const c of allCountries()) {
      expect(c.names.en.length).toBeGreaterThan(0);
      expect(c.names.es.length).toBeGreaterThan(0);
      expect(c.name).toBe(c.names.en);
    }
  });

  it('gives a calling code to every country except seven territories, which get "" and no phone pattern', () => {
    const without = allCountries().filter((c) => c.phoneCode === '');
    expect(without.map((c) => c.code)).toEqual(NO_CALLING_CODE);
    for (const c of without) expect(c.phonePattern).toBeNull();
    for (const c of allCountries().filter((x) => x.phoneCode !== '')) {
      expect(c.phoneCode).toMatch(/^[1-9]\d{0,2}$/);
      expect(c.phonePattern).not.toBeNull();
    }
    expect(findCountryByCode('DO')?.phoneCode).toBe('1');
    expect(findCountryByCode('GB')?.phoneCode).toBe('44');
    expect(findCountryByCode('XK')?.phoneCode).toBe('383');
  });

  it('has anchored patterns that compile and refuse an empty value', () => {
    let zipCount = 0;
    for (const c of allCountries()) {
      for (const pattern of [c.zipPattern, c.phonePattern]) {
        if (pattern === null) continue;
        expect(pattern.startsWith('^') && pattern.endsWith('$'), `${c.code} ${pattern}`).toBe(true);
        expect(new RegExp(pattern).test(''), `${c.code} ${pattern}`).toBe(false);
      }
      if (c.zipPattern !== null) {
        zipCount++;
        expect(c.zipPattern.replace(/\\./g, ''), c.code).not.toMatch(/[a-z]/);
      }
    }
    // 186 from postal-codes-js and 5 from postcode-validator (BM, CK, EH, UM, XK).
    expect(zipCount).toBe(191);
    for (const code of ['BM', 'CK', 'EH', 'UM', 'XK']) expect(findCountryByCode(code)?.zipPattern, code).not.toBeNull();
    for (const code of ['AE', 'BQ', 'CW', 'SX', 'HK']) expect(findCountryByCode(code)?.zipPattern, code).toBeNull();
  });

  it('phone patterns accept real national numbers and refuse numbers of the wrong length', () => {
    const matches = (code: string, number: string) => new RegExp(findCountryByCode(code)!.phonePattern!).test(number);
    expect(matches('EC', '991234567')).toBe(true); // mobile
    expect(matches('EC', '22345678')).toBe(true); // Quito landline
    expect(matches('EC', '0991234567')).toBe(false); // with the trunk 0
    expect(matches('US', '2015550123')).toBe(true);
    expect(matches('US', '201555012')).toBe(false);
    expect(matches('GB', '2071838750')).toBe(true);
    expect(matches('CO', '3001234567')).toBe(true);
  });
});

describe('postal codes', () => {
  it.each([
    ['EC', '170150', true],
    ['EC', '12345', false],
    ['EC', '1701500', false],
    ['EC', '', false],
    ['US', '12345', true],
    ['US', '12345-6789', true],
    ['US', '123456789', true],
    ['US', '1234', false],
    ['US', '12345-678', false],
    ['GB', 'SW1A 1AA', true],
    ['GB', 'sw1a1aa', true],
    ['GB', 'W1A 0AX', true],
    ['GB', 'M1 1AE', true],
    ['GB', 'GIR 0AA', true],
    ['GB', 'WC2H', false],
    ['CA', 'K1A 0B1', true],
    ['CA', 'k1a-0b1', true],
    ['CA', 'D1A 0B1', false],
    ['PL', '00-950', true],
    ['PL', '0095', false],
    ['PT', '1000-001', true],
    ['IE', 'D02 AF30', true],
    ['NL', '1234 AB', true],
    ['NL', '1234 SA', false],
    ['JP', '100-0001', true],
    ['BR', '01310-100', true],
    ['DO', '10101', true],
    ['BM', 'HM 12', true],
    ['XK', '10000', true],
    ['XK', '1000', false],
  ])('%s %j valid: %s', (country, code, valid) => {
    expect(isValidPostalCode(country, code)).toBe(valid);
  });

  it('accepts anything for a country without postal codes, nothing for an unknown country', () => {
    expect(isValidPostalCode('AE', 'whatever')).toBe(true);
    expect(isValidPostalCode('ae', '')).toBe(true);
    expect(isValidPostalCode('ZZ', '12345')).toBe(false);
  });

  it('normalises by dropping spaces and hyphens and upper-casing', () => {
    expect(normalizePostalCode(' sw1a 1aa ')).toBe('SW1A1AA');
    expect(normalizePostalCode('12345-6789')).toBe('123456789');
    expect(normalizePostalCode('k1a - 0b1')).toBe('K1A0B1');
  });

  it('rewrites source patterns for the normal form', () => {
    expect(forNormalForm('^[0-9]{2}-[0-9]{3}$')).toBe('^[0-9]{2}[0-9]{3}$');
    expect(forNormalForm('^[A-Za-z]\\d[\\s\\-]?\\d$')).toBe('^[A-Z]\\d\\d$');
    expect(forNormalForm('[AZa-z]x')).toBe('[AZA-Z]X');
    expect(forNormalForm('\\d{4}[ ]?[a-z]{2}')).toBe('\\d{4}[A-Z]{2}');
    expect(() => forNormalForm('\\d[ -]\\d')).toThrow(/required separator/);
    expect(anchored('^\\d{5}$')).toBe('^\\d{5}$');
    expect(anchored('\\d{5}(\\d{4})?')).toBe('^\\d{5}(\\d{4})?$');
    expect(anchored('a|b')).toBe('^(?:a|b)$');
    expect(anchored('^a$|^b$')).toBe('^(?:^a$|^b$)$');
  });
});

describe('regions', () => {
  it('derives region ids from the codes: country id × 10^6 + two digits per character', () => {
    expect(regionIdOf(218, 'EC-P')).toBe(218_35_00_00);
    expect(regionIdOf(218, 'EC-SD')).toBe(218_38_23_00);
    expect(regionIdOf(840, 'US-CA')).toBe(840_22_20_00);
    expect(regionIdOf(826, 'GB-BFS')).toBe(826_21_25_38);
    expect(regionIdOf(214, 'DO-01')).toBe(214_10_11_00);
    expect(regionIdOf(218, 'ec-p')).toBe(218_35_00_00);
    expect(() => regionIdOf(218, 'EC-ABCD')).toThrow();
    expect(() => regionIdOf(218, 'EC')).toThrow();
    const ids = allCountries().flatMap((c) => regionsOf(c.code).map((r) => r.id));
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of allCountries()) for (const r of regionsOf(c.code)) expect(r.id).toBe(regionIdOf(c.id, r.code));
    expect(Math.max(...ids)).toBeLessThan(2 ** 31);
  });

  it('lists the 24 provinces of Ecuador', () => {
    const regions = regionsOf('EC');
    expect(regions.map((r) => r.code)).toEqual(
      ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'L', 'M', 'N', 'O', 'P', 'R', 'S', 'SD', 'SE', 'T', 'U', 'W', 'X', 'Y', 'Z'].map((s) => `EC-${s}`),
    );
    expect(regions.find((r) => r.code === 'EC-P')).toEqual({ id: 218350000, code: 'EC-P', name: 'Pichincha', countryCode: 'EC' });
    expect(regionsOf('ec')).toHaveLength(24);
  });

  it('lists the finest level: the 32 provinces of the Dominican Republic, not its 10 regions', () => {
    const regions = regionsOf('DO');
    expect(regions).toHaveLength(32);
    expect(regions.map((r) => r.code)).toEqual(Array.from({ length: 32 }, (_, i) => `DO-${String(i + 1).padStart(2, '0')}`));
    expect(regions.find((r) => r.code === 'DO-01')?.name).toBe('Distrito Nacional (Santo Domingo)');
    // Spain: 50 provinces and the autonomous cities Ceuta and Melilla; no autonomous communities.
    const es = regionsOf('ES').map((r) => r.code);
    expect(es).toHaveLength(52);
    expect(es).toContain('ES-M');
    expect(es).toContain('ES-CE');
    expect(es).not.toContain('ES-MD');
  });

  it('leaves out the GB groupings that are not places (England and Wales, Great Britain, United Kingdom)', () => {
    const gb = regionsOf('GB').map((r) => r.code);
    for (const code of ['GB-EAW', 'GB-GBN', 'GB-UKM']) expect(gb).not.toContain(code);
    expect(gb).toContain('GB-LND');
    expect(gb).toContain('GB-ENG');
  });

  it('finds a region by id; unknown ids and countries give nothing', () => {
    expect(findRegion(840222000)).toEqual({ id: 840222000, code: 'US-CA', name: 'California', countryCode: 'US' });
    expect(findRegion(218350001)).toBeUndefined();
    expect(findRegion(0)).toBeUndefined();
    expect(regionsOf('XK')).toEqual([]);
    expect(regionsOf('ZZ')).toEqual([]);
  });
});

describe('flags', () => {
  it('has an SVG flag for every country, and none for the extras of the package', () => {
    for (const c of allCountries()) expect(flagSvg(c.code), c.code).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(flagSvg('ec')).toBe(flagSvg('EC'));
    expect(flagSvg('EU')).toBeUndefined();
    expect(flagSvg('GB-ENG')).toBeUndefined();
    expect(flagSvg('ZZ')).toBeUndefined();
  });
});

describe('the countries a vendor serves', () => {
  let engine: Engine;
  let dir: { path: string; remove(): void };

  beforeAll(async () => {
    dir = makeTempDir();
    engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), role: 'store' });
  });

  afterAll(async () => {
    await engine?.close();
    dir?.remove();
  });

  const vendor = (countries?: string[] | null): VendorSetUp => ({
    name: 'Geo Vendor',
    currency: 'USD',
    country: 'EC',
    ...(countries !== undefined ? { countries } : {}),
    store: { name: 'Main', address1: '1 Main Street', city: 'Quito' },
  });

  it('normalises a list: any case, duplicates dropped, sorted', () => {
    expect(normalizeCountryList(['ec', 'CO', 'Ec', 'xk'])).toEqual(['CO', 'EC', 'XK']);
  });

  it('refuses unknown codes and an empty list with 400 validation_failed on countries', () => {
    for (const list of [['EC', 'ZZ'], ['ECU'], [''], []]) {
      let caught: unknown;
      try {
        normalizeCountryList(list);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(list)).toBeInstanceOf(ServiceError);
      expect((caught as ServiceError).code).toBe('validation_failed');
      expect((caught as ServiceError).status).toBe(400);
      expect((caught as ServiceError).field).toBe('countries');
    }
    expect(() => normalizeCountryList(['EC', 'ZZ', 'QQ'])).toThrow(/ZZ, QQ/);
  });

  it('stores the list given at set-up as JSON and serves only those countries', async () => {
    const made = await setUpVendor(engine, vendor(['ec', 'co', 'EC']));
    const row = await engine.db.selectFrom('vendors').select('countries').where('id', '=', made.vendorId).executeTakeFirstOrThrow();
    expect(row.countries).toBe('["CO","EC"]');
    expect(await vendorServesCountry(engine, made.vendorId, 'EC')).toBe(true);
    expect(await vendorServesCountry(engine, made.vendorId, 'co')).toBe(true);
    expect(await vendorServesCountry(engine, made.vendorId, 'US')).toBe(false);
    expect(await vendorServesCountry(engine, made.vendorId, 'ZZ')).toBe(false);
  });

  it('serves every country when no list is given (stored as null)', async () => {
    for (const input of [vendor(), vendor(null)]) {
      const made = await setUpVendor(engine, input);
      const row = await engine.db.selectFrom('vendors').select('countries').where('id', '=', made.vendorId).executeTakeFirstOrThrow();
      expect(row.countries).toBeNull();
      expect(await vendorServesCountry(engine, made.vendorId, 'US')).toBe(true);
      expect(await vendorServesCountry(engine, made.vendorId, 'xk')).toBe(true);
      expect(await vendorServesCountry(engine, made.vendorId, 'ZZ')).toBe(false);
    }
  });

  it('refuses a set-up with an unknown country code and creates nothing', async () => {
    const before = await engine.db.selectFrom('vendors').select('id').execute();
    await expect(async () => setUpVendor(engine, vendor(['EC', 'ZZ']))).rejects.toMatchObject({ code: 'validation_failed', field: 'countries' });
    const after = await engine.db.selectFrom('vendors').select('id').execute();
    expect(after).toHaveLength(before.length);
  });

  it('answers false for an unknown vendor', async () => {
    expect(await vendorServesCountry(engine, 123456789, 'EC')).toBe(false);
  });
});
