// Builds src/core/geo/countries.generated.json from package data (no network):
//   i18n-iso-countries   the ISO 3166-1 list (with XK), numeric codes, English and Spanish names
//   libphonenumber-js    calling codes and national number patterns (the "max" metadata)
//   postal-codes-js      postal code patterns, with postcode-validator where it has none
//   iso-3166             ISO 3166-2 subdivisions
//   country-flag-icons   checked only: every country must have a flag (served at run time)
//
//   npx tsx scripts/generate-countries.ts           write the file
//   npx tsx scripts/generate-countries.ts --check   exit 1 if the committed file is out of date
//
// The output depends only on the installed package versions (recorded in `sources`): everything is
// sorted by code, and no timestamps are written.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hasFlag } from 'country-flag-icons';
import { iso31661, iso31662 } from 'iso-3166';
import { Metadata } from 'libphonenumber-js/core';
import { type CountryData, type CountryDataFile, normalizePostalCode, type RegionData, regionIdOf } from '../src/core/geo/country-data';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUTPUT = join(root, 'src/core/geo/countries.generated.json');

const SOURCES = ['i18n-iso-countries', 'libphonenumber-js', 'postal-codes-js', 'postcode-validator', 'iso-3166', 'country-flag-icons'];

/** ISO 3166-2:GB lists these "for completeness"; they are groupings, not places of an address. */
const NOT_SUBDIVISIONS = new Set(['GB-EAW', 'GB-GBN', 'GB-UKM']);

/** The parts of libphonenumber-js's Metadata class used here (its typings omit them). */
interface PhoneMetadata {
  hasCountry(country: string): boolean;
  selectNumberingPlan(country: string): void;
  numberingPlan: { callingCode(): string; nationalNumberPattern(): string };
}

interface PostalFormat {
  RedundantCharacters: string;
  ValidationRegex: string | string[];
  TestData?: { Valid?: string[]; Invalid?: string[] };
}


export function buildCountryData(): CountryDataFile {
  const i18n = require('i18n-iso-countries');
  i18n.registerLocale(require('i18n-iso-countries/langs/en.json'));
  i18n.registerLocale(require('i18n-iso-countries/langs/es.json'));
  const phoneMetadata = new Metadata(require('libphonenumber-js/metadata.max.json')) as unknown as PhoneMetadata;
  const postalByAlpha2: Record<string, { postalCodeFormat?: string }> = require('postal-codes-js/generated/postal-codes-alpha2.json');
  const fallbackPostal: Map<string, RegExp> = require('postcode-validator/lib/cjs/postcode-regexes.js').POSTCODE_REGEXES;
  const postalCodes = require('postal-codes-js');

  const isoNumeric = new Map(iso31661.map((entry) => [entry.alpha2, Number(entry.numeric)]));
  const subdivisions = iso31662.filter((s) => !NOT_SUBDIVISIONS.has(s.code));
  const parents = new Set(subdivisions.map((s) => s.parent));

  const codes = Object.keys(i18n.getAlpha2Codes() as Record<string, string>).sort();
  const countries: CountryData[] = codes.map((code) => {
    const id = Number(i18n.alpha2ToNumeric(code));
    if (!Number.isInteger(id) || id <= 0) throw new Error(`${code}: no numeric code`);
    if (isoNumeric.has(code) && isoNumeric.get(code) !== id) throw new Error(`${code}: numeric codes disagree`);
    if (!hasFlag(code)) throw new Error(`${code}: country-flag-icons has no flag`);

    let phoneCode = '';
    let phonePattern: string | null = null;
    if (phoneMetadata.hasCountry(code)) {
      phoneMetadata.selectNumberingPlan(code);
      const plan = phoneMetadata.numberingPlan;
      phoneCode = plan.callingCode();
      phonePattern = anchored(plan.nationalNumberPattern());
      if (new RegExp(phonePattern).test('')) throw new Error(`${code}: the phone pattern accepts an empty number`);
    }

    const regions: RegionData[] = subdivisions
      .filter((s) => s.code.startsWith(`${code}-`) && !parents.has(s.code))
      .map((s) => ({ id: regionIdOf(id, s.code), code: s.code, name: s.name }))
      .sort((a, b) => compare(a.code, b.code));

    return {
      id,
      code,
      names: { en: i18n.getName(code, 'en'), es: i18n.getName(code, 'es') },
      phoneCode,
      zipPattern: postalPattern(code, postalByAlpha2, fallbackPostal, postalCodes),
      phonePattern,
      regions,
    };
  });

  assertUnique(countries.map((c) => c.id), 'country id');
  assertUnique(countries.flatMap((c) => c.regions.map((r) => r.id)), 'region id');
  for (const c of countries) if (!c.names.en || !c.names.es) throw new Error(`${c.code}: missing a name`);

  const sources: Record<string, string> = {};
  for (const name of SOURCES) sources[name] = require(`${name}/package.json`).version;
  return { sources, countries };
}

/**
 * The pattern of a country for the normal form of a postal code (normalizePostalCode). Checked
 * against postal-codes-js's own samples: every valid one must pass, every invalid one must fail.
 */
function postalPattern(
  code: string,
  byAlpha2: Record<string, { postalCodeFormat?: string }>,
  fallback: Map<string, RegExp>,
  postalCodes: { validate(country: string, postalCode: string): true | string },
): string | null {
  const formatFile = byAlpha2[code]?.postalCodeFormat;
  if (!formatFile) {
    const regex = fallback.get(code);
    if (!regex) return null;
    const pattern = anchored(forNormalForm(regex.source));
    if (new RegExp(pattern).test('')) throw new Error(`${code}: the postal pattern accepts an empty code`);
    return pattern;
  }
  const format: PostalFormat = JSON.parse(readFileSync(require.resolve(`postal-codes-js/formats/${formatFile}`), 'utf8'));
  const source = Array.isArray(format.ValidationRegex) ? format.ValidationRegex.join('|') : format.ValidationRegex;
  const pattern = anchored(forNormalForm(source));
  const regex = new RegExp(pattern);
  if (regex.test('')) throw new Error(`${code}: the postal pattern accepts an empty code`);
  for (const sample of format.TestData?.Valid ?? []) {
    if (postalCodes.validate(code, sample) !== true) continue;
    if (!regex.test(normalizePostalCode(sample))) throw new Error(`${code}: ${pattern} refuses the valid sample "${sample}"`);
  }
  // An invalid sample may pass only when it differs from a valid code by spaces and hyphens alone
  // (postal-codes-js wants PL's 00-950 and PT's 1000-001 with their hyphen, IE's with one space).
  for (const sample of format.TestData?.Invalid ?? []) {
    const normal = normalizePostalCode(sample);
    if (!regex.test(normal)) continue;
    const variants = [normal, ...[...normal].flatMap((_, i) => [' ', '-'].map((sep) => normal.slice(0, i) + sep + normal.slice(i)))];
    if (!variants.some((variant) => postalCodes.validate(code, variant) === true)) throw new Error(`${code}: ${pattern} accepts the invalid sample "${sample}"`);
  }
  return pattern;
}

/**
 * Rewrites a pattern for the normal form: letters in upper case (the sources match ignoring case,
 * a pattern string carries no flags) and no literal space or hyphen outside a character class.
 */
export function forNormalForm(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      if (next !== '-' && next !== ' ') out += char + next;
    } else if (char === '[') {
      const end = classEnd(source, i);
      const body = source.slice(i + 1, end);
      i = end;
      if (/^(?:\\s|\\-| |-)+$/.test(body)) {
        // A separator class ([\s\-]?, [ -]?): the normal form has none, so it must be optional.
        if (source[i + 1] !== '?') throw new Error(`a required separator in ${source}`);
        i++;
        continue;
      }
      out += upperCaseClass(body);
    } else if (char !== ' ' && char !== '-') {
      out += char.toUpperCase();
    }
  }
  return out;
}

/** Index of the "]" closing the class opened at `start`. */
function classEnd(source: string, start: number): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === ']' && i > start + 1) return i;
  }
  throw new Error(`unclosed character class in ${source}`);
}

/** [A-Za-z0-9] → [A-Z0-9]: items upper-cased, repeats dropped, order kept. */
function upperCaseClass(body: string): string {
  const negated = body.startsWith('^');
  const items: string[] = [];
  let i = negated ? 1 : 0;
  while (i < body.length) {
    const item = body[i] === '\\' ? body.slice(i, i + 2) : body[i]!;
    i += item.length;
    if (body[i] === '-' && i + 1 < body.length) {
      const to = body[i + 1] === '\\' ? body.slice(i + 1, i + 3) : body[i + 1]!;
      i += 1 + to.length;
      items.push(`${upper(item)}-${upper(to)}`);
    } else {
      items.push(upper(item));
    }
  }
  return `[${negated ? '^' : ''}${[...new Set(items)].join('')}]`;
}

function upper(item: string): string {
  return item.startsWith('\\') ? item : item.toUpperCase();
}

/** ^(?:…)$ around a pattern, dropping its own outer anchors when that keeps the meaning. */
export function anchored(source: string): string {
  let body = source;
  if (hasTopLevelAlternation(body)) return `^(?:${body})$`;
  if (body.startsWith('^')) body = body.slice(1);
  if (body.endsWith('$') && !body.endsWith('\\$')) body = body.slice(0, -1);
  return `^${body}$`;
}

function hasTopLevelAlternation(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') i++;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === '|' && depth === 0) return true;
  }
  return false;
}

function assertUnique(values: number[], what: string): void {
  const seen = new Set<number>();
  for (const value of values) {
    if (seen.has(value)) throw new Error(`duplicate ${what} ${value}`);
    seen.add(value);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One country per block and one region per line: readable diffs when a source package changes. */
export function serializeCountryData(data: CountryDataFile): string {
  const lines = ['{', `  "sources": ${JSON.stringify(data.sources)},`, '  "countries": ['];
  data.countries.forEach((country, index) => {
    const { regions, ...rest } = country;
    const head = JSON.stringify(rest).slice(0, -1);
    const last = index === data.countries.length - 1 ? '' : ',';
    if (regions.length === 0) {
      lines.push(`    ${head},"regions":[]}${last}`);
      return;
    }
    lines.push(`    ${head},"regions":[`);
    regions.forEach((region, i) => lines.push(`      ${JSON.stringify(region)}${i === regions.length - 1 ? '' : ','}`));
    lines.push(`    ]}${last}`);
  });
  lines.push('  ]', '}', '');
  return lines.join('\n');
}

function main(args: string[]): void {
  const text = serializeCountryData(buildCountryData());
  if (args.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OUTPUT, 'utf8');
    } catch {
      // missing: out of date
    }
    if (current !== text) {
      console.error(`${OUTPUT} is out of date: run npx tsx scripts/generate-countries.ts`);
      process.exitCode = 1;
      return;
    }
    console.log(`${OUTPUT} is up to date.`);
    return;
  }
  writeFileSync(OUTPUT, text);
  const data = JSON.parse(text) as CountryDataFile;
  const regions = data.countries.reduce((sum, c) => sum + c.regions.length, 0);
  console.log(`Wrote ${data.countries.length} countries and ${regions} regions to ${OUTPUT}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
