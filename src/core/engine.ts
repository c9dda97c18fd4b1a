import { randomInt } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { type Clock, systemClock } from './clock';
import { Sealer } from './credentials/secrets';
import { StoreEvents } from './events/store-events';
import { createPaymentGateway, type PaymentGatewayConfig } from './payments/gateway/select-gateway';
import type { PaymentGateway } from './payments/gateway/payment-gateway';
import { type Database, migrateToLatest } from './storage/database';
import { isRetryableConflict } from './storage/errors';
import { groupCommit } from './storage/group-commit';
import type { Dialect } from './storage/dialect';
import { CENTRAL_NODE_ID, NODE_LIMIT, UNPAIRED_NODE_FLOOR } from './storage/ids';
import type { DB } from './storage/schema';
import { sealLocalChanges } from './sync/outbox/seal-local-changes';

/** Everything a use case needs from the outside world. Built once per node, passed to every call. */
export interface Engine {
  db: Kysely<DB>;
  dialect: Dialect;
  clock: Clock;
  /** This node's number: the high part of every legacy id it creates. */
  nodeId: number;
  /** A store node (standalone or paired) or a chain's central node (`punchcard central`). */
  role: 'store' | 'central';
  sealer: Sealer;
  /** Session and order changes per store, for event streams (published after commit). */
  events: StoreEvents;
  /** The card processor (payments/gateway): the built-in test gateway unless configured otherwise. */
  payments: PaymentGateway;
  /**
   * Who owns the program's data on this node. `owner`: a standalone store node or a central node —
   * it runs the program's jobs (points expiry, reminders, payments, webhooks). `replica`: a store
   * node paired with a central node — central owns the program and runs those; this node sells
   * local-first and syncs.
   */
  programRole: ProgramRole;
  /**
   * A paired store's view of its link to central (the sync client keeps it current); always up
   * elsewhere. `firstSyncDone`: the chain's customers have arrived (true except on a store still
   * receiving its first sync), so an unknown identification is really unknown. `customerFromCentral`:
   * during a first sync, brings one customer from central now (false when it cannot). `storeId`:
   * the store a paired node serves (keys of the chain's other stores are refused there).
   */
  /** A paired store's link: `unpaired` once central has revoked this node (docs/sync.md): it then sells nothing. */
  centralLink: { reachable: boolean; firstSyncDone: boolean; unpaired?: boolean; customerFromCentral?: (identification: string) => Promise<boolean>; storeId?: number };
  close(): Promise<void>;
}

export type ProgramRole = 'owner' | 'replica';

/** A chain's central node (stores sync with it), whatever number it drew when it was first set up. */
export function isChainCentral(engine: Pick<Engine, 'role'>): boolean {
  return engine.role === 'central';
}

/** True where the program's own jobs and side effects (expiry, payments, webhooks) run. */
export function ownsProgramData(engine: Pick<Engine, 'programRole'>): boolean {
  return engine.programRole === 'owner';
}

export interface EngineOptions {
  database: Database;
  /** 32 bytes kept outside the database; seals values the interface must return (card pins). */
  nodeKey: Buffer;
  clock?: Clock;
  /** Central numbers itself 0; a store node that was never paired draws a random unpaired number. */
  role: 'store' | 'central';
  /** Which payment gateway to charge through; the built-in test gateway when absent. */
  paymentGateway?: PaymentGatewayConfig;
  /** `replica` for a store node paired with a central node; `owner` (default) otherwise. */
  programRole?: ProgramRole;
}

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const { db, dialect } = options.database;
  await migrateToLatest(db);
  const nodeId = await ensureNodeId(db, options.role);
  return {
    db,
    dialect,
    clock: options.clock ?? systemClock,
    nodeId,
    role: options.role,
    sealer: new Sealer(options.nodeKey),
    events: new StoreEvents(),
    payments: createPaymentGateway(options.paymentGateway ?? { kind: 'test' }, { db, clock: options.clock ?? systemClock }),
    programRole: options.programRole ?? 'owner',
    centralLink: { reachable: true, firstSyncDone: true },
    close: () => options.database.close(),
  };
}

async function ensureNodeId(db: Kysely<DB>, role: EngineOptions['role']): Promise<number> {
  const proposed = role === 'central' ? CENTRAL_NODE_ID : randomInt(UNPAIRED_NODE_FLOOR, NODE_LIMIT);
  await db
    .insertInto('node_meta')
    .values({ key: 'node_id', value: String(proposed) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('node_meta').select('value').where('key', '=', 'node_id').executeTakeFirstOrThrow();
  return Number(row.value);
}

export interface TransactOptions {
  /** On a paired store, the name of the sync event the command's changes travel in. */
  syncEvent?: string;
  /**
   * SQLite: a big command (a store's push at central) takes a transaction of its own rather than a
   * savepoint of a group transaction (see groupCommit's `alone`).
   */
  alone?: boolean;
}

/**
 * One command = one transaction, or on SQLite one savepoint of a group transaction shared with the
 * commands that arrived with it (storage/group-commit.ts): either way it commits whole or not at
 * all, and the promise settles only after the commit. On a paired store, the rows the command
 * changed (captured by triggers) become one sync event inside the command's own savepoint. On
 * PostgreSQL a command the database aborted to break a deadlock runs again (runAgainOnConflict).
 */
export function transact<T>(engine: Engine, work: (trx: Transaction<DB>) => Promise<T>, options: TransactOptions = {}): Promise<T> {
  const command =
    engine.programRole !== 'replica'
      ? work
      : async (trx: Transaction<DB>) => {
          const result = await work(trx);
          await sealLocalChanges(trx, engine, options.syncEvent ?? 'local.write');
          return result;
        };
  if (engine.dialect === 'sqlite') return groupCommit(engine.db, command, { alone: options.alone ?? false });
  // Inside another command's transaction (an audited change), that outer command is the one retried.
  if (engine.db.isTransaction) return engine.db.transaction().execute(command);
  // On PostgreSQL the node's write lock comes before any row lock (storage/write-lock.ts, in the driver).
  return runAgainOnConflict(() => engine.db.transaction().execute(command));
}

/** Attempts of a PostgreSQL transaction that a deadlock or serialization conflict aborted. */
const CONFLICT_ATTEMPTS = 4;

/**
 * PostgreSQL breaks a deadlock by aborting one of its transactions (and, under stricter isolation,
 * a serialization conflict the same way); the transaction kept nothing, so it runs again after a
 * short random pause. A command's closure therefore keeps its effects in the database or in what
 * it returns: nothing it changes outside may survive an aborted attempt.
 */
async function runAgainOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= CONFLICT_ATTEMPTS || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, randomInt(5, 20 * tries)));
    }
  }
}

/** The vendor a request acts for; every query a use case runs is filtered by it. */
export interface VendorScope {
  vendorId: number;
}
