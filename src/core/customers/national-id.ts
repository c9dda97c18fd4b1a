import stdnum from 'stdnum';

// Cédulas and other national ids, checked with stdnum (a port of python-stdnum) for the vendor's
// country. Where stdnum has no validator for a country, any 4-20 letters and digits pass: we cannot
// tell, and refusing real customers is worse than storing an unchecked number.

export function normaliseNationalId(value: string): string {
  return value.replace(/[\s.\-/]/g, '').toUpperCase();
}

export function isValidNationalId(country: string, value: string): boolean {
  const clean = normaliseNationalId(value);
  if (!/^[0-9A-Z]{4,20}$/.test(clean)) return false;
  if (!(country in stdnum.personValidators)) return true;
  // Uruguay's validator wants 8 digits; older cedulas have 7.
  const candidate = country === 'UY' && /^\d{7}$/.test(clean) ? `0${clean}` : clean;
  return stdnum.validatePerson(country, candidate).isValid === true;
}
