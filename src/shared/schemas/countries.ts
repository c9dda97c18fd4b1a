import { type Static, Type } from 'typebox';
import { Nullable } from './common';

// GET /countries and GET /countries/{country_id}/regions (legacy style, no credential required).

export const CountrySchema = Type.Object({
  country_id: Type.Integer({ description: 'ISO 3166-1 numeric code (218 = Ecuador; Kosovo, which has none, is 983)' }),
  code: Type.String({ description: 'ISO 3166-1 alpha-2 code' }),
  name: Type.String({ description: 'display name in the requested language' }),
  phone_code: Type.String({ description: 'international calling code without "+" ("593"); "" when the territory has none' }),
  zip_validate: Nullable(
    Type.String({
      description:
        'anchored regular expression for the postal code with spaces and hyphens removed and letters in upper case ("sw1a 1aa" → "SW1A1AA"); null: not validated',
    }),
  ),
  phone_validate: Nullable(
    Type.String({
      description: 'anchored regular expression for the national significant number (digits only, no calling code, no trunk prefix such as 0); null: not validated',
    }),
  ),
  flag_url: Type.String({ description: 'SVG flag (3:2) served by this node' }),
});
export type Country = Static<typeof CountrySchema>;

export const RegionSchema = Type.Object({
  region_id: Type.Integer({ description: 'stable number derived from the country and the ISO 3166-2 code' }),
  code: Type.String({ description: 'ISO 3166-2 subdivision code, e.g. EC-P' }),
  name: Type.String({ description: 'name as ISO 3166-2 gives it (local language)' }),
});

export const CountryListQuery = Type.Object({
  vendor: Type.Optional(Type.Integer({ minimum: 1, description: 'vendor number: only the countries it serves' })),
  api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'an API key of a store: only the countries its vendor serves' })),
  language: Type.Optional(Type.Enum(['en', 'es'], { description: "language of the names; default: the vendor's language, else en" })),
});

export const CountryParams = Type.Object({ country_id: Type.Integer({ minimum: 1, description: 'country_id of GET /countries' }) });

export const FlagParams = Type.Object({ file: Type.String({ maxLength: 32, description: 'alpha-2 code and .svg, e.g. EC.svg' }) });
