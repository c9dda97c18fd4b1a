import { ServiceError } from '../../shared/errors';
import { type Engine, transact } from '../engine';
import type { Kysely } from 'kysely';
import { holderBalance, openAccount, postEntry } from '../ledger/ledger';
import type { DB } from '../storage/schema';
import { recordTransaction } from '../orders/record-transaction';
import { registerCustomer } from './register-customer';

export interface Referrer {
  vendorId: number;
  vendorName: string;
  userId: number;
  firstName: string;
  /** What the referrer earns per friend who joins (the program's rule). */
  referralPoints: number;
}

/** The member and program behind a referral code (the `ref`/`code` of a profile's referral_url). */
export async function findReferrer(engine: Engine, code: string): Promise<Referrer> {
  const row = await engine.db
    .selectFrom('user_vendors as uv')
    .innerJoin('vendors as v', 'v.id', 'uv.vendor_id')
    .innerJoin('users as u', 'u.id', 'uv.user_id')
    .select(['uv.vendor_id', 'v.name', 'uv.user_id', 'u.first_name', 'v.referral_points'])
    .where('uv.referral_code', '=', code.trim())
    .where('uv.removed_at', 'is', null)
    .where('u.status', '!=', 'deleted')
    .executeTakeFirst();
  if (!row) throw new ServiceError('referral_not_found', undefined, 'code');
  return { vendorId: row.vendor_id, vendorName: row.name, userId: row.user_id, firstName: row.first_name, referralPoints: Number(row.referral_points) };
}

/**
 * Referral credits a member earns at most in REFERRAL_WINDOW_DAYS: sign-ups cost an attacker only an
 * email each (20 made-up friends earned 1,000 points in a minute), a real member rarely brings more.
 */
export const REFERRAL_CREDITS_PER_WINDOW = 10;
export const REFERRAL_WINDOW_DAYS = 30;

/**
 * The /join page's sign-up: registers the friend with the referrer's program (the same rules as
 * POST /user/register), then credits the referrer the program's referral points in its first
 * loyalty currency, with a history record "referral". A program whose rule is 0 credits nothing;
 * nor does a friend past the referrer's REFERRAL_CREDITS_PER_WINDOW (the friend joins all the same).
 */
export async function joinByReferral(
  engine: Engine,
  input: { code: string; firstName: string; lastName: string; email: string; password: string; language: number },
): Promise<{ referrer: Referrer; userId: number; credited: number }> {
  const referrer = await findReferrer(engine, input.code);
  const { user } = await registerCustomer(engine, {
    vendorId: referrer.vendorId,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email,
    password: input.password,
    terms: true,
    language: input.language,
  });
  if (referrer.referralPoints <= 0 || user.id === referrer.userId) return { referrer, userId: user.id, credited: 0 };
  const credited = await transact(engine, async (trx) => {
    const currency = await trx
      .selectFrom('currencies')
      .select(['id', 'name'])
      .where('vendor_id', '=', referrer.vendorId)
      .where('code', 'is', null)
      .where('status', '=', 'ACTIVE')
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
    if (!currency) return 0;
    const account = await openAccount(trx, engine, { vendorId: referrer.vendorId, currencyId: currency.id, holderType: 'user', holderId: referrer.userId });
    const since = engine.clock.now() - REFERRAL_WINDOW_DAYS * 86_400_000;
    const recent = await trx.selectFrom('ledger_entries').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', account).where('kind', '=', 'referral').where('created_at', '>', since).executeTakeFirstOrThrow();
    if (Number(recent.n) >= REFERRAL_CREDITS_PER_WINDOW) return 0;
    const entry = await postEntry(trx, engine, account, { amount: referrer.referralPoints, kind: 'referral', referenceType: 'user', referenceId: String(user.id) });
    await recordTransaction(trx, engine, {
      // The record names the friend; it takes its entry's id, the entry naming the friend's account,
      // so that the friend's erasure finds it (account-deletion.ts, forgetFriendInReferrals).
      id: entry.id,
      vendorId: referrer.vendorId,
      userId: referrer.userId,
      storeId: null,
      orderId: null,
      kind: 'referral',
      occurredAt: engine.clock.now(),
      total: 0,
      quickPayUsed: 0,
      quickPayLoaded: 0,
      quickPayBalance: await quickPayBalanceOf(trx, referrer),
      items: [],
      taxes: [],
      receipts: [],
      rewards: [{ object: 'reward', kind: 'referral', name: `${user.first_name} joined`, amount: referrer.referralPoints, currency: currency.name }],
      status: 'Complete',
    });
    return referrer.referralPoints;
  });
  return { referrer, userId: user.id, credited };
}

async function quickPayBalanceOf(db: Kysely<DB>, member: { vendorId: number; userId: number }): Promise<number> {
  const vendor = await db.selectFrom('vendors').select('quick_pay_currency_id').where('id', '=', member.vendorId).executeTakeFirstOrThrow();
  return vendor.quick_pay_currency_id === null ? 0 : holderBalance(db, { holderType: 'user', holderId: member.userId, currencyId: vendor.quick_pay_currency_id });
}
