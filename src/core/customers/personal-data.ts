/**
 * The columns of `users` that say who a person is, as an erasure leaves them. The stores of a
 * program the person left keep their row in this shape too (their sales there point at it).
 */
export const WIPED_PERSON = {
  email: null,
  email_key: null,
  first_name: '',
  last_name: '',
  phone: null,
  cedula: null,
  passport_number: null,
  birthdate: null,
  address1: null,
  address2: null,
  city: null,
  region_id: null,
  country_id: null,
  postal_code: null,
  pet_name: null,
  pet_birthdate: null,
} as const;
