import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Engine, transact } from '../engine';
import { accountBalance, postEntry } from '../ledger/ledger';
import { lockRow } from '../storage/dialect';
import { getMeta, setMeta } from '../storage/node-meta';
import type { DB } from '../storage/schema';
import { recordPointsExpired } from '../webhooks/events';
import { LOT_KINDS, pointsDueToHaveExpired } from './points-due-to-expire';
import { recordBalanceNote } from '../history/balance-note';

/**
 * The points-expiry job. What should have expired of an account by now is found by replaying its
 * entries (pointsDueToHaveExpired: spending uses the soonest-expiring points first, the rule the
 * "expiring" collections follow; a voided lot or spend counts as never made); the job posts the
 * difference from what its runs already took — an `expiry` never beyond the balance, or an
 * `expiry_return` when a void made less due than was taken. A run that finds nothing new writes
 * nothing, so running it twice is harmless.
 *
 * What is due in an account grows only when one of its lots reaches its date or an entry lands in
 * it (a refund, a void, a lot that arrived from a store already past its date), and every entry
 * moves its account's `updated_at`. So a run examines the accounts with a lot dated since the last
 * run and the accounts changed since, not every account that ever had points expire (the first
 * run, with no last run, examines all). `examined` says how many. `between` runs after each
 * account (the node's jobs let requests in there); false stops the run.
 */
export async function expirePoints(engine: Engine, between?: () => Promise<boolean>): Promise<{ accounts: number; points: number; examined: number }> {
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
      const entries = await trx
        .selectFrom('ledger_entries as e')
        .select(['e.id', 'e.amount', 'e.kind', 'e.expires_at', 'e.reverses_id', 'e.created_at'])
        .where('e.account_id', '=', accountId)
        .where(standingEntry)
        .execute();
      const due = pointsDueToHaveExpired(
        entries.map((e) => ({ id: Number(e.id), amount: Number(e.amount), kind: e.kind, expiresAt: e.expires_at === null ? null : Number(e.expires_at), reversesId: e.reverses_id === null ? null : Number(e.reverses_id), createdAt: Number(e.created_at) })),
        now,
      );
      const recorded = entries.reduce((sum, e) => sum + (e.kind === 'expiry' || e.kind === 'expiry_return' ? -Number(e.amount) : 0), 0);
      // More expired than is due now (a lot voided after its date lost its points to the expiry and
      // to the void): the difference comes back.
      if (recorded > due) {
        await postEntry(trx, engine, accountId, { amount: recorded - due, kind: 'expiry_return', referenceType: 'expiry', referenceId: String(now) });
        await noteInHistory(trx, engine, accountId, 'expiry_return', recorded - due);
        return 0;
      }
      const amount = Math.min(await accountBalance(trx, accountId), due - recorded);
      if (amount <= 0) return 0;
      const after = await postEntry(trx, engine, accountId, { amount: -amount, kind: 'expiry', referenceType: 'expiry', referenceId: String(now) });
      const account = await noteInHistory(trx, engine, accountId, 'expiry', -amount);
      if (account.holder_type === 'user') {
        await recordPointsExpired(trx, engine, { vendorId: account.vendor_id, userId: account.holder_id, currencyId: account.currency_id, points: amount, balance: after.balance });
      }
      return amount;
    });
    if (expired > 0) {
      accounts += 1;
      points += expired;
    }
    // Requests in between (SQLite's commits answer at once: 19,000 accounts after a clock jump held
    // the node 18 s); a stop leaves the run unrecorded, so the next one examines them all again.
    if (between && !(await between())) return { accounts, points, examined: candidates.size };
  }
  await setMeta(engine.db, EXPIRY_CHECKED_AT, String(now));
  return { accounts, points, examined: candidates.size };
}

/** A customer's account (not a card's): the move goes in their history too. The account, for its owner. */
async function noteInHistory(db: Kysely<DB>, engine: Engine, accountId: number, kind: 'expiry' | 'expiry_return', amount: number) {
  const account = await db
    .selectFrom('ledger_accounts as a')
    .innerJoin('currencies as c', 'c.id', 'a.currency_id')
    .select(['a.vendor_id', 'a.holder_type', 'a.holder_id', 'a.currency_id', 'c.name'])
    .where('a.id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (account.holder_type === 'user') {
    await recordBalanceNote(db, engine, { kind, vendorId: account.vendor_id, userId: Number(account.holder_id), currency: { id: Number(account.currency_id), name: account.name }, amount });
  }
  return account;
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
