import { type Engine, transact } from '../../engine';
import { isFinal, refreshCharge } from '../charges/payment-charges';
import { egiftChargeSettlement } from './egift-settlement';

/**
 * The job's half of late results: asks the gateway about every eGift still pending and sends or
 * declines the ones it has an answer for (a gift whose charge is already final is settled from it).
 * One gift the gateway cannot answer for does not stop the others: it is counted in `failed` and
 * asked again next time.
 */
export async function settlePendingEgifts(engine: Engine): Promise<{ settled: number; failed: number }> {
  const pending = await engine.db.selectFrom('egifts').select(['id', 'charge_id']).where('status', '=', 'pending').orderBy('id').limit(500).execute();
  const settlement = egiftChargeSettlement(engine);
  let settled = 0;
  let failed = 0;
  for (const gift of pending) {
    try {
      const charge = await engine.db.selectFrom('payment_charges').selectAll().where('id', '=', gift.charge_id).executeTakeFirstOrThrow();
      if (isFinal(charge)) {
        await transact(engine, (trx) => (charge.status === 'succeeded' ? settlement.succeeded!(trx, charge) : settlement.declined!(trx, charge)));
        settled += 1;
        continue;
      }
      const after = await refreshCharge(engine, charge, null, settlement);
      if (isFinal(after)) settled += 1;
    } catch {
      failed += 1;
    }
  }
  return { settled, failed };
}
