import { type Static, Type } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = Nullable(Type.String({ format: 'date-time' }));

const DatabaseCheckSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  reachable: Type.Boolean({ description: 'The database answered `select 1` within 2 s' }),
  writable: Type.Boolean({ description: 'False while the last write the database refused (disk full, read-only, I/O error) has not been followed by a good test write (tried at most every 5 s, only then)' }),
  problem: Nullable(Type.Union([Type.Literal('unreachable'), Type.Literal('no_answer'), Type.Literal('disk_full'), Type.Literal('read_only'), Type.Literal('io_error')])),
  since: Time,
});

const DiskCheckSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  free_bytes: Type.Integer({ description: 'Free space of the data folder’s disk, for the node’s user' }),
  total_bytes: Type.Integer(),
  low_below_bytes: Type.Integer({ description: '`degraded` under this (1 GiB)' }),
});

const SyncCheckSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  problem: Nullable(Type.Union([Type.Literal('unpaired_at_central'), Type.Literal('central_refused'), Type.Literal('events_unsent'), Type.Literal('pull_stale')])),
  link: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  pending: Type.Integer({ description: 'Events waiting to be sent to central' }),
  oldest_pending_at: Time,
  oldest_pending_age_seconds: Nullable(Type.Integer()),
  rejected: Type.Integer(),
  last_push_at: Time,
  last_pull_at: Time,
  last_pull_age_seconds: Nullable(Type.Integer()),
  behind_after_seconds: Type.Integer({ description: '`degraded` when the oldest unsent event or the last pull is older than this (900)' }),
});

export const HealthSchema = Type.Object({
  /** ok; degraded (still 200): the node sells but needs attention; unavailable (503): it cannot serve. */
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')]),
  node_id: Type.Integer(),
  role: Type.Union([Type.Literal('store'), Type.Literal('central')]),
  database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  version: Type.String(),
  uptime_seconds: Type.Integer(),
  time: Type.String(),
  checks: Type.Object({
    database: DatabaseCheckSchema,
    /** Null where the node knows no data folder. */
    disk: Nullable(DiskCheckSchema),
    /** Null on a node that is not a paired store. */
    sync: Nullable(SyncCheckSchema),
  }),
});
export type Health = Static<typeof HealthSchema>;
