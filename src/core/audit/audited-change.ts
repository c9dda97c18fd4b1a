import type { Kysely, Transaction } from 'kysely';
import { type Engine, transact } from '../engine';
import type { DB } from '../storage/schema';
import { type Actor, type AuditEntry, recordAudit } from './record-audit';

/**
 * The engine as seen from inside one open transaction: a use case run with it does its reads and
 * writes in that transaction, and its own `transact` joins it instead of opening another. This lets
 * the back office run an existing use case and write its audit record so that both commit or
 * neither does (a second transaction could not even start on SQLite's one connection).
 */
function engineWithin(engine: Engine, trx: Transaction<DB>): Engine {
  const db = new Proxy(trx, {
    get(target, property) {
      if (property === 'transaction') return () => ({ execute: <T>(work: (t: Transaction<DB>) => Promise<T>) => work(trx) });
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as Kysely<DB>;
  return { ...engine, db };
}

export interface AuditedResult<T> {
  result: T;
  audit: AuditEntry;
}

/** Runs `work` (which may call use cases with the engine it is given) and records its audit entry, in one transaction. */
export function auditedChange<T>(engine: Engine, actor: Actor, work: (within: Engine) => Promise<AuditedResult<T>>): Promise<T> {
  return transact(engine, async (trx) => {
    const done = await work(engineWithin(engine, trx));
    await recordAudit(trx, engine, actor, done.audit);
    return done.result;
  });
}
