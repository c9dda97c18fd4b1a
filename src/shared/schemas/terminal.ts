import { Type } from 'typebox';
import { Nullable } from './common';

/** GET /app/terminal: who the api_key acts for, so a screen can pick its role and show its store. */
export const TerminalSchema = Type.Object({
  object: Type.Literal('terminal'),
  role: Type.Union([Type.Literal('cashier'), Type.Literal('kiosk'), Type.Literal('integration')]),
  vendor: Type.Object({ id: Type.Integer(), name: Type.String() }),
  store: Type.Object({ id: Type.Integer(), name: Type.String(), address: Type.String() }),
  point_of_sale: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() })),
  quick_pay_currency: Nullable(Type.String({ description: 'ISO 4217 code of the quick-pay balance' })),
  language: Type.String({ description: "the vendor's language; screens start in it" }),
  country: Type.String({ description: "the vendor's country (ISO 3166-1 alpha-2); screens write numbers as it does" }),
});
