/** A country's IANA time zones as the runtime's ICU lists them (alphabetical; [] when it knows none). */
export function timeZonesOf(country: string): string[] {
  // Node 20's V8 has the `timeZones` getter; later ones `getTimeZones()` (Intl Locale Info).
  const locale = new Intl.Locale(`und-${country.toUpperCase()}`) as Intl.Locale & { getTimeZones?(): string[]; timeZones?: string[] };
  return locale.getTimeZones?.() ?? locale.timeZones ?? [];
}

/**
 * The zone a new store in `country` most likely keeps: the machine's when it is one of the
 * country's (the merchant sets up where they are), else the country's only one; null when that
 * cannot be told (a server in UTC setting up a country of several zones).
 */
export function likelyTimeZone(country: string, machineZone: string): string | null {
  const zones = timeZonesOf(country);
  if (zones.includes(machineZone)) return machineZone;
  return zones.length === 1 ? zones[0]! : null;
}
