import { type Static, Type } from 'typebox';

export const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  node_id: Type.Integer(),
  role: Type.Union([Type.Literal('store'), Type.Literal('central')]),
  database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  version: Type.String(),
  uptime_seconds: Type.Integer(),
  time: Type.String(),
});
export type Health = Static<typeof HealthSchema>;
