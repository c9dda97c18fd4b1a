// Countries and regions: lookups for other capabilities (customer profiles) and the use cases of
// GET /countries and GET /countries/{country_id}/regions.
export { allCountries, type CountryRecord, findCountryByCode, findCountryById, findRegion, isValidPostalCode, type RegionRecord, regionsOf } from './countries';
export { normalizePostalCode, regionIdOf } from './country-data';
export { flagSvg } from './flags';
export { listCountries, listRegions, normalizeCountryList, vendorServesCountry } from './vendor-countries';
