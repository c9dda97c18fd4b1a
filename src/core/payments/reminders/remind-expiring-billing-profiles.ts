import { type Engine, transact } from '../../engine';
import { queueMessage } from '../../messaging/queue-message';

/** Profiles handled per query; a run loops until none is left. */
const BATCH = 200;

export interface ReminderRun {
  /** Reminders queued by this run. */
  queued: number;
}

/**
 * The expiry reminder job (run by the node at start and hourly). A saved card is good through the
 * last day of its expiry month; during that month (UTC) its owner gets one email, through the
 * outbox, in their language with the vendor, asking them to add their new card. Each profile is
 * reminded once: `billing_profiles.expiry_reminded_at` is set by a conditional update in the same
 * transaction that queues the email, so running twice, or two nodes at once, queues one email.
 * Deleted profiles, removed members and deleted accounts get nothing.
 */
export async function remindExpiringBillingProfiles(engine: Engine): Promise<ReminderRun> {
  const now = engine.clock.now();
  const today = new Date(now);
  const year = today.getUTCFullYear();
  const month = today.getUTCMonth() + 1;
  let queued = 0;
  let afterId = -1;
  for (;;) {
    const due = await engine.db
      .selectFrom('billing_profiles as p')
      .innerJoin('users as u', 'u.id', 'p.user_id')
      .innerJoin('user_vendors as m', (join) => join.onRef('m.user_id', '=', 'p.user_id').onRef('m.vendor_id', '=', 'p.vendor_id'))
      .innerJoin('vendors as v', 'v.id', 'p.vendor_id')
      .select(['p.id', 'p.user_id', 'p.vendor_id', 'p.brand', 'p.last4', 'p.expiry_month', 'p.expiry_year', 'u.email', 'u.first_name', 'm.language', 'v.name as vendor_name', 'v.language as vendor_language'])
      .where('p.expiry_year', '=', year)
      .where('p.expiry_month', '=', month)
      .where('p.deleted_at', 'is', null)
      .where('p.expiry_reminded_at', 'is', null)
      .where('m.removed_at', 'is', null)
      .where('u.status', '!=', 'deleted')
      .where('u.email', 'is not', null)
      .where('p.id', '>', afterId)
      .orderBy('p.id')
      .limit(BATCH)
      .execute();
    for (const profile of due) {
      const sent = await transact(engine, async (trx) => {
        const marked = await trx
          .updateTable('billing_profiles')
          .set({ expiry_reminded_at: now })
          .where('id', '=', profile.id)
          .where('expiry_reminded_at', 'is', null)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) !== 1) return false;
        await queueMessage(trx, engine, {
          vendorId: profile.vendor_id,
          channel: 'email',
          to: profile.email!,
          userId: Number(profile.user_id),
          template: 'billing_profile_expiring',
          locale: profile.language ?? profile.vendor_language,
          params: {
            first_name: profile.first_name.trim() || profile.email!,
            vendor_name: profile.vendor_name,
            brand: profile.brand,
            last4: profile.last4,
            expiry: `${String(profile.expiry_month).padStart(2, '0')}/${profile.expiry_year}`,
          },
        });
        return true;
      });
      if (sent) queued += 1;
    }
    if (due.length < BATCH) return { queued };
    afterId = due[due.length - 1]!.id;
  }
}
