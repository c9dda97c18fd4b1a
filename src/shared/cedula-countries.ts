// Where a customer has a cédula: the interface spec takes one at registration "South America only"
// (POST /user/register). The countries of South America, ISO 3166-1 alpha-2.
const SOUTH_AMERICA = new Set(['AR', 'BO', 'BR', 'CL', 'CO', 'EC', 'FK', 'GF', 'GY', 'PE', 'PY', 'SR', 'UY', 'VE']);

/** Whether customers of a program in `country` may have a cédula (null: country not known, so no). */
export const usesCedula = (country: string | null): boolean => country !== null && SOUTH_AMERICA.has(country.toUpperCase());
