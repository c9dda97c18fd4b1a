import { type Engine, transact } from '../engine';
import { type CustomerSession, endSession } from './sessions';

export function logOut(engine: Engine, session: CustomerSession): Promise<void> {
  return transact(engine, (trx) => endSession(trx, engine, session.sessionId));
}
