import { ServiceError } from '../../shared/errors';
import { MAX_AMOUNT } from '../../shared/schemas/rules';
import { type Engine, transact, type VendorScope } from '../engine';
import { type ListPage, type ListRequest, planList } from '../listing/list-plan';
import { assertDateRange, cleanName, cleanText, loyaltyCurrency, parseInstant, wholeOrNull } from '../rules/rule-fields';
import { isUniqueViolation } from '../storage/errors';
import { newPublicId, nextObjectId } from '../storage/ids';
import { codeKey, loadPromotion, parsePromotionStatus, type PromotionRecord, toPromotionRecord } from './promotion';

const CODE = /^[A-Za-z0-9][A-Za-z0-9 -]{2,39}$/;
const MAX_CAP = 10_000_000;

export interface NewPromotion {
  code: string;
  name: string;
  description?: string | undefined;
  /** Points in `currency` (a loyalty currency's public id; default: the program's first loyalty currency)… */
  points?: number | undefined;
  currency?: string | undefined;
  /** …or a reward (`rwd_` id): exactly one of the two. */
  reward?: string | undefined;
  startsAt?: string | null | undefined;
  endsAt?: string | null | undefined;
  totalCap?: number | null | undefined;
  perCustomerCap?: number | undefined;
  status?: string | undefined;
}

export interface PromotionChanges {
  name?: string | undefined;
  description?: string | undefined;
  startsAt?: string | null | undefined;
  endsAt?: string | null | undefined;
  totalCap?: number | null | undefined;
  perCustomerCap?: number | undefined;
  status?: string | undefined;
}

/** POST /promotions: a new promotion; a code another promotion of the program uses is a 409. */
export async function createPromotion(engine: Engine, scope: VendorScope, input: NewPromotion): Promise<PromotionRecord> {
  const code = input.code.trim();
  if (!CODE.test(code)) throw new ServiceError('validation_failed', 'code must be 3 to 40 letters, digits, spaces or dashes.', 'code');
  const name = cleanName(input.name);
  const startsAt = parseInstant(input.startsAt, 'starts_at') ?? null;
  const endsAt = parseInstant(input.endsAt, 'ends_at') ?? null;
  assertDateRange(startsAt, endsAt);
  const totalCap = wholeOrNull(input.totalCap ?? null, 'total_cap', 1, MAX_CAP);
  const perCustomerCap = wholeOrNull(input.perCustomerCap ?? 1, 'per_customer_cap', 1, 1000)!;
  const status = input.status === undefined ? 'ACTIVE' : parsePromotionStatus(input.status);
  if ((input.points === undefined) === (input.reward === undefined)) throw new ServiceError('validation_failed', 'Send either points (with currency) or reward.', 'points');
  if (input.reward !== undefined && input.currency !== undefined) throw new ServiceError('validation_failed', 'A reward promotion takes no currency: the reward has its own.', 'currency');
  try {
    return await transact(engine, async (trx) => {
      let currencyId: number | null = null;
      let rewardId: number | null = null;
      if (input.points !== undefined) {
        wholeOrNull(input.points, 'points', 1, MAX_AMOUNT);
        if (input.currency !== undefined) currencyId = (await loyaltyCurrency(trx, scope.vendorId, input.currency)).id;
        else {
          const first = await trx.selectFrom('currencies').select('id').where('vendor_id', '=', scope.vendorId).where('code', 'is', null).where('deleted_at', 'is', null).orderBy('id').executeTakeFirst();
          if (!first) throw new ServiceError('unknown_currency', 'The program has no loyalty currency.', 'currency');
          currencyId = first.id;
        }
      } else {
        const reward = await trx.selectFrom('spending_rules').select('id').where('vendor_id', '=', scope.vendorId).where('public_id', '=', input.reward!.trim()).where('deleted_at', 'is', null).executeTakeFirst();
        if (!reward) throw new ServiceError('reward_not_found', undefined, 'reward');
        rewardId = reward.id;
      }
      const id = await nextObjectId(trx, engine.nodeId);
      const now = engine.clock.now();
      await trx
        .insertInto('promotions')
        .values({
          id,
          public_id: newPublicId('promo'),
          vendor_id: scope.vendorId,
          code,
          code_key: codeKey(code),
          name,
          description: cleanText(input.description),
          points: input.points ?? null,
          currency_id: currencyId,
          reward_id: rewardId,
          starts_at: startsAt,
          ends_at: endsAt,
          total_cap: totalCap,
          per_customer_cap: perCustomerCap,
          awarded_count: 0,
          status,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return loadPromotion(trx, scope.vendorId, { id });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ServiceError('promotion_code_taken', undefined, 'code');
    throw error;
  }
}

/** PUT /promotions/:id: pause or resume (status), or change the name, window and caps. Code and prize never change. */
export function updatePromotion(engine: Engine, scope: VendorScope, publicId: string, changes: PromotionChanges): Promise<PromotionRecord> {
  return transact(engine, async (trx) => {
    const current = await loadPromotion(trx, scope.vendorId, { publicId });
    const startsAt = parseInstant(changes.startsAt, 'starts_at');
    const endsAt = parseInstant(changes.endsAt, 'ends_at');
    const next = {
      name: changes.name === undefined ? current.name : cleanName(changes.name),
      description: changes.description === undefined ? current.description : cleanText(changes.description),
      starts_at: startsAt === undefined ? current.startsAt : startsAt,
      ends_at: endsAt === undefined ? current.endsAt : endsAt,
      total_cap: changes.totalCap === undefined ? current.totalCap : wholeOrNull(changes.totalCap, 'total_cap', 1, MAX_CAP),
      per_customer_cap: changes.perCustomerCap === undefined ? current.perCustomerCap : wholeOrNull(changes.perCustomerCap, 'per_customer_cap', 1, 1000)!,
      status: changes.status === undefined ? current.status : parsePromotionStatus(changes.status),
      updated_at: engine.clock.now(),
    };
    assertDateRange(next.starts_at, next.ends_at);
    await trx.updateTable('promotions').set(next).where('id', '=', current.id).execute();
    return loadPromotion(trx, scope.vendorId, { id: current.id });
  });
}

/** GET /promotions: newest first; filters `s:` status, `n:` code starts with. */
export async function listPromotions(engine: Engine, scope: VendorScope, request: ListRequest): Promise<ListPage<PromotionRecord>> {
  const plan = planList(request, { filterKeys: ['n', 's'], sortFields: ['date_created', 'code'], defaultSort: 'date_created' });
  let query = engine.db
    .selectFrom('promotions as p')
    .leftJoin('currencies as c', 'c.id', 'p.currency_id')
    .leftJoin('spending_rules as r', 'r.id', 'p.reward_id')
    .selectAll('p')
    .select(['c.public_id as currency_public_id', 'r.public_id as reward_public_id'])
    .where('p.vendor_id', '=', scope.vendorId);
  if (plan.filters.s !== undefined) query = query.where('p.status', '=', parsePromotionStatus(plan.filters.s));
  if (plan.filters.n !== undefined) query = query.where('p.code_key', 'like', `${codeKey(plan.filters.n).replace(/[%_]/g, '')}%`);
  const rows = await query
    .orderBy(plan.sort === 'code' ? 'p.code_key' : 'p.created_at', plan.direction)
    .orderBy('p.id', plan.direction)
    .limit(plan.limit + 1)
    .offset((plan.page - 1) * plan.limit)
    .execute();
  return { items: rows.slice(0, plan.limit).map(toPromotionRecord), page: plan.page, limit: plan.limit, hasMore: rows.length > plan.limit };
}
