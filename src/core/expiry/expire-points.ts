import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { type Engine, transact } from '../engine';
import { accountBalance, postEntry } from '../ledger/ledger';
import { lockRow } from '../storage/dialect';
import { getMeta, setMeta } from '../storage/node-meta';
import type { DB } from '../storage/schema';
import { recordPointsExpired } from '../webhooks/events';

/** Credits that come in lots with a date (points earned by orders, points a promotion awarded). */
const LOT_KINDS = ['earn', 'promotion'];
const LOT_REVERSALS = LOT_KINDS.map((kind) => `${kind}_reversal`);

/**
 * The points-expiry job. Spending uses the soonest-expiring points first (the same rule the
 * "expiring" collections follow), so what is left to expire in an account is: the points of lots
 * whose expiry has passed (net of voids), minus everything spent (net of refunds), minus what
 * already expired — never more than the balance. Each account gets one `expiry` entry per run;
 * a run that finds nothing new writes nothing, so running it twice is harmless.
 *
 * What is due in an account grows only when one of its lots reaches its date or an entry lands in
 * it (a refund, a void, a lot that arrived from a store already past its date), and every entry
 * moves its account's `updated_at`. So a run examines the accounts with a lot dated since the last
 * run and the accounts changed since, not every account that ever had points expire (the first
 * run, with no last run, examines all). `examined` says how many.
 */
export async function expirePoints(engine: Engine): Promise<{ accounts: number; points: number; examined: number }> {
  const now = engine.clock.now();
  const last = await getMeta(engine.db, EXPIRY_CHECKED_AT);
  const candidates = await accountsToExamine(engine.db, now, last === null ? null : Number(last) - CLOCK_MARGIN_MS);
  let accounts = 0;
  let points = 0;
  for (const accountId of candidates) {
    const expired = await transact(engine, async (trx) => {
      // The account's row first: another central process's run may be expiring it now, and what
      // is due must be read after its expiry, not before (SQLite runs one writer at a time).
      await lockRow(trx, engine.dialect, 'ledger_accounts', accountId);
      const row = await trx
        .selectFrom('ledger_entries as e')
        .leftJoin('ledger_entries as lot', 'lot.id', 'e.reverses_id')
        .select((eb) => [
          // Lots past their expiry, net of their reversals.
          eb.fn.sum<number>(sql`case when e.kind in (${sql.join(LOT_KINDS)}) and e.expires_at <= ${now} then e.amount
            when e.kind in (${sql.join(LOT_REVERSALS)}) and lot.expires_at <= ${now} then e.amount else 0 end`).as('expired_lots'),
          // Everything spent, net of refunds (reversals of spends and redemptions).
          eb.fn.sum<number>(sql`case when e.amount < 0 and e.kind not in (${sql.join(['expiry', ...LOT_REVERSALS])}) then -e.amount
            when e.amount > 0 and e.kind in ('spend_reversal', 'redeem_reversal') then -e.amount else 0 end`).as('spent'),
          eb.fn.sum<number>(sql`case when e.kind = 'expiry' then -e.amount else 0 end`).as('expired'),
          eb.fn.sum<number>(sql`case when e.kind = 'expiry_return' then e.amount else 0 end`).as('returned'),
          // Points of lots voided once their date had passed: what expired of them was taken twice.
          eb.fn.sum<number>(sql`case when e.kind in (${sql.join(LOT_REVERSALS)}) and lot.expires_at <= e.created_at then -e.amount else 0 end`).as('voided_after_date'),
        ])
        .where('e.account_id', '=', accountId)
        .where(standingEntry)
        .executeTakeFirstOrThrow();
      const expired = Number(row.expired ?? 0);
      const returned = Number(row.returned ?? 0);
      // A lot voided after it expired lost its points twice (to the expiry and to the void's
      // reversal): what expired comes back, at most once, so only points earned and then spent stay
      // below zero. Spending from newer lots after older ones expired is not that, and returns nothing.
      const toReturn = Math.min(Number(row.voided_after_date ?? 0), expired) - returned;
      if (toReturn > 0) {
        await postEntry(trx, engine, accountId, { amount: toReturn, kind: 'expiry_return', referenceType: 'expiry', referenceId: String(now) });
        return 0;
      }
      const due = Number(row.expired_lots ?? 0) - Number(row.spent ?? 0) - (expired - returned);
      const amount = Math.min(await accountBalance(trx, accountId), due);
      if (amount <= 0) return 0;
      const after = await postEntry(trx, engine, accountId, { amount: -amount, kind: 'expiry', referenceType: 'expiry', referenceId: String(now) });
      const account = await trx.selectFrom('ledger_accounts').select(['vendor_id', 'holder_type', 'holder_id', 'currency_id']).where('id', '=', accountId).executeTakeFirstOrThrow();
      if (account.holder_type === 'user') {
        await recordPointsExpired(trx, engine, { vendorId: account.vendor_id, userId: account.holder_id, currencyId: account.currency_id, points: amount, balance: after.balance });
      }
      return amount;
    });
    if (expired > 0) {
      accounts += 1;
      points += expired;
    }
  }
  await setMeta(engine.db, EXPIRY_CHECKED_AT, String(now));
  return { accounts, points, examined: candidates.size };
}

/**
 * Leaves out a void's reversal that central undid as a repeat of another node's void, and the
 * `void_repeated` entry that undid it (sync/central/repeated-void.ts): together they moved nothing.
 */
export function standingEntry(eb: ExpressionBuilder<DB & { e: DB['ledger_entries'] }, 'e'>) {
  return eb.and([
    eb('e.kind', '!=', 'void_repeated'),
    eb.not(
      eb.exists(
        eb.selectFrom('ledger_entries as undone').select('undone.id').whereRef('undone.account_id', '=', 'e.account_id').whereRef('undone.reverses_id', '=', 'e.id').where('undone.kind', '=', 'void_repeated'),
      ),
    ),
  ]);
}

/** node_meta: when the last run began (this node's clock). */
export const EXPIRY_CHECKED_AT = 'points_expiry_checked_at';
/** A node's clock may step back a little (NTP): what changed this long before the last run is read again. */
const CLOCK_MARGIN_MS = 10 * 60_000;

async function accountsToExamine(db: Kysely<DB>, now: number, since: number | null): Promise<Set<number>> {
  // Each account once, in JavaScript: asked for distinct accounts, the database walks the index of
  // entries by account (all of them) instead of the range of the expiring ones.
  const ids = new Set((await expiredEarningsQuery(db, now, since).execute()).map((row) => Number(row.account_id)));
  if (since !== null) {
    for (const row of await changedAccountsQuery(db, now, since).execute()) ids.add(Number(row.id));
  }
  return ids;
}

/**
 * Earned entries whose date passed by `now` (and after `since`, when given): a range of the index on
 * expires_at. Exported for the test of its plan.
 */
export function expiredEarningsQuery(db: Kysely<DB>, now: number, since: number | null = null) {
  const query = db.selectFrom('ledger_entries').select('account_id').where('expires_at', '<=', now).where('kind', 'in', LOT_KINDS);
  return since === null ? query : query.where('expires_at', '>', since);
}

/** Accounts changed after `since` that hold a lot whose date has passed: a range of the index on updated_at. Exported for the test of its plan. */
export function changedAccountsQuery(db: Kysely<DB>, now: number, since: number) {
  return db
    .selectFrom('ledger_accounts as a')
    .select('a.id')
    .where('a.updated_at', '>', since)
    .where((eb) => eb.exists(eb.selectFrom('ledger_entries as e').select('e.id').whereRef('e.account_id', '=', 'a.id').where('e.kind', 'in', LOT_KINDS).where('e.expires_at', '<=', now)));
}
