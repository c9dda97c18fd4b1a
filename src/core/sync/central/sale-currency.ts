import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../../shared/currency-codes';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { EventVerdict, PushedEvent } from '../protocol';
import type { PairedNode } from './apply-push';
import { recordSyncException } from './sync-exceptions';
import { orderSubject } from '../../../shared/exception-subject';

// A store's sale is kept in minor units of the quick-pay currency the store had when it sold (its
// stored reply names the code). Central may change that code while it holds no money in it
// (currencies/program-money.ts), and a store that could not reach central may have sold in the old
// one meanwhile: central would read 12.50 USD (1250) as 1,250 yen. The sale happened, so it is
// applied as recorded (an exchange rate is not central's to guess) and flagged for staff.

/** Flags each applied sale of these events sold in another quick-pay currency than central's now. */
export async function flagSalesInAnotherCurrency(trx: Kysely<DB>, engine: Engine, node: PairedNode, events: readonly PushedEvent[], verdicts: ReadonlyMap<number, EventVerdict>): Promise<void> {
  let central: string | null | undefined;
  for (const event of events) {
    if (verdicts.get(event.node_seq)?.verdict === 'rejected') continue;
    for (const change of event.changes) {
      // The sale itself (a void later sends the row again, voided).
      if (change.tbl !== 'orders' || change.op !== 'upsert' || change.data['status'] !== 'complete') continue;
      const reply = change.data['reply'];
      central ??= await quickPayCode(trx, node.vendorId);
      // Most sales name central's currency: found without parsing the reply (pushes carry thousands).
      if (central === null || typeof reply !== 'string' || reply.includes(`"code":${JSON.stringify(central)}`)) continue;
      const sold = soldIn(reply);
      if (sold.code === central) continue;
      // Sold while quick pay was paused, the reply names no code: its digits still tell a sale
      // whose minor units central would misread (a paused USD read as JPY; not USD read as EUR).
      if (sold.code === null && (sold.digits === null || sold.digits === minorUnitDigits(central))) continue;
      const digits = sold.digits ?? minorUnitDigits(sold.code!);
      await recordSyncException(trx, engine, node, 'sale_in_other_currency', orderSubject(String(change.data['id'])), {
        key: 'sale_in_other_currency',
        params: { receipt: String(change.data['receipt_number']), sold: sold.code, digits, subtotal: Number(change.data['subtotal']), central },
      });
    }
  }
}

/** The quick-pay code a stored order reply names (null: none, quick pay was paused) and the digits its amounts have. */
function soldIn(reply: string): { code: string | null; digits: number | null } {
  try {
    const parsed = JSON.parse(reply) as { digits?: unknown; balances?: { quickPay?: { currency?: { code?: unknown } | null } } };
    const code = parsed.balances?.quickPay?.currency?.code;
    return { code: typeof code === 'string' ? code : null, digits: typeof parsed.digits === 'number' ? parsed.digits : null };
  } catch {
    return { code: null, digits: null };
  }
}

async function quickPayCode(trx: Kysely<DB>, vendorId: number): Promise<string | null> {
  const row = await trx.selectFrom('vendors as v').innerJoin('currencies as c', 'c.id', 'v.quick_pay_currency_id').select('c.code').where('v.id', '=', vendorId).executeTakeFirst();
  return row?.code ?? null;
}
