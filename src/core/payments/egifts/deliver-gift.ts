import type { Transaction } from 'kysely';
import { toMajorUnits } from '../../../shared/money';
import { emailKey } from '../../customers/contact';
import { findUserByEmail, findUserVendor, loadVendor, messageLocale } from '../../customers/customer-store';
import type { Engine } from '../../engine';
import { announceEgift } from '../../inbox/announce';
import { queueMessage } from '../../messaging/queue-message';
import type { DB } from '../../storage/schema';
import { recordEgiftEvent } from '../../webhooks/events';
import { claimCodeDigest, newClaimCode } from './claim-code';
import { loadEgift } from './egift';

/**
 * The paid gift goes out: a fresh claim code (digest stored) and the recipient's email. Only the
 * call whose guarded update moved the gift from pending to sent emails: a gift another call sent
 * first keeps that call's code, and no second email carries a code that does not work.
 */
export async function deliverGift(trx: Transaction<DB>, engine: Engine, giftId: number): Promise<void> {
  const code = newClaimCode();
  const now = engine.clock.now();
  // A paid gift with a future send date waits (sendScheduledEgifts sends it then).
  const scheduled = await trx
    .updateTable('egifts')
    .set({ status: 'scheduled', updated_at: now })
    .where('id', '=', giftId)
    .where('status', '=', 'pending')
    .where('send_at', '>', now)
    .executeTakeFirst();
  if (Number(scheduled.numUpdatedRows) === 1) return;
  const moved = await trx
    .updateTable('egifts')
    .set({ status: 'sent', claim_code_hash: claimCodeDigest(engine, code)!, sent_at: now, updated_at: now })
    .where('id', '=', giftId)
    .where('status', 'in', ['pending', 'scheduled'])
    .where((eb) => eb.or([eb('send_at', 'is', null), eb('send_at', '<=', now)]))
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) return;
  const gift = await loadEgift(trx, giftId);
  await recordEgiftEvent(trx, engine, 'egift.sent', { id: giftId, vendorId: gift.vendor.id });
  const vendor = await loadVendor(trx, gift.vendor.id);
  // The recipient's language with the vendor when they are a member, else the vendor's.
  const member = await findUserByEmail(trx, emailKey(gift.recipient.email));
  const locale = await messageLocale(trx, member && member.status !== 'deleted' ? member.id : null, vendor);
  const amount = formatMoney(toMajorUnits(gift.amount, gift.currency.digits), gift.currency.code ?? 'USD', gift.currency.digits, locale);
  // A member of the program also finds it in the app's inbox (the code stays in the email only).
  if (member && member.status !== 'deleted' && (await findUserVendor(trx, member.id, vendor.id))) {
    await announceEgift(trx, engine, { vendorId: vendor.id, userId: member.id }, { buyer: gift.buyer.name, amount });
  }
  await queueMessage(trx, engine, {
    vendorId: vendor.id,
    channel: 'email',
    to: gift.recipient.email,
    template: 'egift_received',
    locale,
    params: {
      first_name: gift.recipient.name,
      buyer_name: gift.buyer.name,
      amount,
      vendor_name: vendor.name,
      code,
      ...(gift.message ? { message: gift.message } : {}),
    },
  });
}

function formatMoney(amount: number, code: string, digits: number, locale: string): string {
  return new Intl.NumberFormat(locale.startsWith('es') ? 'es' : 'en-US', { style: 'currency', currency: code, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount);
}
