import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import type { DB } from '../storage/schema';
import { prepared } from '../storage/prepared';
import { postInboxMessage } from './post-message';
import { type ProgramMessageKind, programMessage } from './program-messages';

// The program's own inbox messages, posted inside the transaction of what caused them.

interface Member {
  vendorId: number;
  userId: number;
}

/** The member's language with the vendor, else the vendor's, and the vendor's name. */
async function memberContext(db: Kysely<DB>, member: Member): Promise<{ locale: string; vendor: string }> {
  const row = await db
    .selectFrom('vendors as v')
    .leftJoin('user_vendors as uv', (join) => join.onRef('uv.vendor_id', '=', 'v.id').on('uv.user_id', '=', member.userId).on('uv.removed_at', 'is', null))
    .select(['v.name', 'v.language as vendor_language', 'uv.language'])
    .where('v.id', '=', member.vendorId)
    .executeTakeFirstOrThrow();
  return { locale: row.language ?? row.vendor_language, vendor: row.name };
}

async function announce(db: Kysely<DB>, engine: Engine, member: Member, kind: ProgramMessageKind, params: Record<string, string>, dedupeKey: string | null): Promise<void> {
  const context = await memberContext(db, member);
  const text = programMessage(kind, context.locale, { vendor: context.vendor, ...params });
  await postInboxMessage(db, engine, { ...member, kind, ...text, dedupeKey });
}

/** A new member of the program: once per membership. */
export function welcomeMember(db: Kysely<DB>, engine: Engine, member: Member): Promise<void> {
  return announce(db, engine, member, 'welcome', {}, 'welcome');
}

/** The member moved up to a tier: once per tier. */
export function announceTier(db: Kysely<DB>, engine: Engine, member: Member, tier: { id: number; name: string }): Promise<void> {
  return announce(db, engine, member, 'tier', { tier: tier.name }, `tier:${tier.id}`);
}

/**
 * Rewards that became redeemable: for each reward in force priced in `currencyId` whose cost the
 * balance crossed (before < cost <= after), a message.
 */
const rewardsCrossed = prepared((db, vendorId: number, currencyId: number, before: number, after: number, startedBy: number, endsAfter: number) =>
  db
    .selectFrom('spending_rules as r')
    .innerJoin('currencies as c', 'c.id', 'r.currency_id')
    .select(['r.id', 'r.name', 'c.name as currency'])
    .where('r.vendor_id', '=', vendorId)
    .where('r.currency_id', '=', currencyId)
    .where('r.status', '=', 'ACTIVE')
    .where('r.deleted_at', 'is', null)
    .where('r.cost', '>', before)
    .where('r.cost', '<=', after)
    .where((eb) => eb.or([eb('r.starts_at', 'is', null), eb('r.starts_at', '<=', startedBy)]))
    .where((eb) => eb.or([eb('r.ends_at', 'is', null), eb('r.ends_at', '>', endsAfter)]))
    .orderBy('r.cost'),
);

export async function announceRewardsReady(db: Kysely<DB>, engine: Engine, member: Member, change: { currencyId: number; before: number; after: number }): Promise<void> {
  if (change.after <= change.before) return;
  const now = engine.clock.now();
  const rewards = await rewardsCrossed(db, member.vendorId, change.currencyId, change.before, change.after, now, now);
  for (const reward of rewards) await announce(db, engine, member, 'reward', { reward: reward.name, currency: reward.currency }, null);
}

/** An eGift was sent to a member of the program (by email address). */
export function announceEgift(db: Kysely<DB>, engine: Engine, member: Member, gift: { buyer: string; amount: string }): Promise<void> {
  return announce(db, engine, member, 'egift', gift, null);
}
