import { type Engine, transact } from '../../engine';
import { deliverGift } from './deliver-gift';

/**
 * The job's half of scheduled gifts: sends every paid gift whose send date has come (one failure
 * does not stop the others; it is tried again next time).
 */
export async function sendScheduledEgifts(engine: Engine): Promise<{ sent: number; failed: number }> {
  const due = await engine.db.selectFrom('egifts').select('id').where('status', '=', 'scheduled').where('send_at', '<=', engine.clock.now()).orderBy('send_at').limit(500).execute();
  let sent = 0;
  let failed = 0;
  for (const gift of due) {
    try {
      await transact(engine, (trx) => deliverGift(trx, engine, gift.id));
      sent += 1;
    } catch {
      failed += 1;
    }
  }
  return { sent, failed };
}
