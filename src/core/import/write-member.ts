import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { addCard } from '../cards/create-card';
import { cardNumberKey } from '../cards/card';
import { emailKey } from '../customers/contact';
import { findUserByEmail, findUserByPhone, findUserVendor, insertUser, linkUserToVendor, type UserRow } from '../customers/customer-store';
import type { Engine } from '../engine';
import { earnedPointsExpireAt } from '../expiry/points-due-to-expire';
import { holderBalance, openAccount, postEntry } from '../ledger/ledger';
import { type NewTransaction, recordTransaction } from '../orders/record-transaction';
import type { DB } from '../storage/schema';
import { activeLinkOfCard, type CardRow } from '../user-cards/card-access';
import { linkCard } from '../user-cards/link-card';
import type { UserCardRow } from '../user-cards/user-card';
import type { CurrencyPoints, MemberRow } from './member-row';

/** The ledger kind (and history record kind) of a balance brought from the old system. */
export const IMPORT_KIND = 'import';

/** What the import writes into: the program and the currencies the file's balances go to. */
export interface ImportProgram {
  vendorId: number;
  points: { id: number; name: string } | null;
  quickPay: { id: number; name: string } | null;
  /** The program's points expiry (vendors.points_expiry_days): imported points follow it as if earned at the import; null: they never expire. */
  pointsExpiryDays: number | null;
  /** Names this run in its entries' references and its audit records (the time it started, epoch ms). */
  runId: string;
}

export type MemberOutcome = { outcome: 'imported'; customerId: number } | { outcome: 'already_member'; customerId: number; matchedBy: string[] };

/** A row refused by what the program holds (its reason code, the field, the words). */
export class RowRefused extends Error {
  constructor(
    readonly reason: string,
    readonly field: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** What the program holds of a row's email, phone and card, read before anything is written. */
export interface MemberFound {
  /** The account of the email (any status: a deleted one finds nobody). */
  byEmail: UserRow | undefined;
  /** An account (not deleted) with the phone. */
  byPhone: UserRow | undefined;
  /** The program's card of that number (any letter case), not deleted. */
  card: CardRow | undefined;
  /** The card's active link. */
  cardLink: UserCardRow | undefined;
  /**
   * A card with no active link: the account its latest link was for, unless erased (a card, like an
   * email, of an erased person finds nobody). One no longer a member is refused as an email of theirs
   * is: a row known by that card is them, and they left.
   */
  formerHolder: number | undefined;
  /** Which of the accounts found are members of the program now (a former holder's among them). */
  members: ReadonlySet<number>;
}

/** A row the program takes: a new customer, with the card found (to link) or none (one is made when the row has a number). */
export interface NewMember {
  outcome: 'new';
  card: CardRow | undefined;
}

/** One row's identifiers looked up one by one (find-members.ts reads a whole batch's at once, the same way). */
export async function findMember(trx: Kysely<DB>, vendorId: number, row: MemberRow): Promise<MemberFound> {
  const byEmail = row.email ? await findUserByEmail(trx, emailKey(row.email)) : undefined;
  const byPhone = row.phone ? await findUserByPhone(trx, row.phone) : undefined;
  const card = row.card ? await trx.selectFrom('cards').selectAll().where('vendor_id', '=', vendorId).where('number_key', '=', cardNumberKey(row.card)).where('deleted_at', 'is', null).executeTakeFirst() : undefined;
  const cardLink = card ? await activeLinkOfCard(trx, card.id) : undefined;
  const formerHolder = card && !cardLink ? (await formerHoldersOfCards(trx, [card.id])).get(card.id) : undefined;
  const members = new Set<number>();
  for (const userId of new Set([byEmail?.status === 'deleted' ? undefined : byEmail?.id, byPhone?.id, cardLink?.user_id, formerHolder])) {
    if (userId !== undefined && (await findUserVendor(trx, userId, vendorId))) members.add(userId);
  }
  return { byEmail, byPhone, card, cardLink, formerHolder, members };
}

/**
 * What a row comes to against what the program holds: the member its email, phone or card already
 * finds (reported and left as they are, so a file imported twice adds nothing), a refusal, or a
 * new member.
 */
export function decideMember(program: ImportProgram, row: MemberRow, found: MemberFound): Extract<MemberOutcome, { outcome: 'already_member' }> | RowRefused | NewMember {
  const byUser = new Map<number, string[]>();
  const note = (userId: number | undefined, by: string) => {
    if (userId !== undefined) byUser.set(userId, [...(byUser.get(userId) ?? []), by]);
  };
  note(found.byEmail?.status === 'deleted' ? undefined : found.byEmail?.id, 'email');
  note(found.byPhone?.id, 'phone');
  note(found.cardLink?.user_id, 'card');
  // A card's holder who left is found by it (one still a member swapped it for another: it is free).
  if (found.formerHolder !== undefined && !found.members.has(found.formerHolder)) note(found.formerHolder, 'card');
  const matchedBy = [...byUser.values()].flat();
  for (const userId of byUser.keys()) {
    if (found.members.has(userId)) return { outcome: 'already_member', customerId: userId, matchedBy };
  }
  // An account of another program (or one that left this one): the file cannot prove it is theirs.
  if (byUser.size > 0) {
    return new RowRefused('account_not_member', matchedBy[0]!, `The ${matchedBy.join(' and ')} belong${matchedBy.length > 1 ? '' : 's'} to an account that is not a member of this program: enrol them at the counter, where they show who they are.`);
  }
  const { card } = found;
  if (card && card.status !== 'ACTIVE') return new RowRefused('card_not_active', 'card', `Card ${card.number} is ${card.status.toLowerCase()} in this program: only an active card can be linked.`);
  if (row.points > 0 && !program.points) return new RowRefused('no_points_currency', 'points', 'The program has no loyalty currency to hold these points.');
  return { outcome: 'new', card };
}

/**
 * One row, in the caller's transaction, read and decided on its own (decideMember), then written:
 * a new customer, their membership, their card (made when the program has no card of that number,
 * linked either way) and their opening balances as ledger entries of kind `import`, with one
 * history record that says where the balances came from. Everything is read and checked before
 * the first write. add-new-members.ts writes many new members at once the same way.
 */
export async function writeMember(trx: Kysely<DB>, engine: Engine, program: ImportProgram, row: MemberRow): Promise<MemberOutcome> {
  const { vendorId } = program;
  const decision = decideMember(program, row, await findMember(trx, vendorId, row));
  if (decision instanceof RowRefused) throw decision;
  if (decision.outcome !== 'new') return decision;
  const { card } = decision;

  const user = await insertUser(trx, engine, {
    email: row.email,
    email_key: row.email ? emailKey(row.email) : null,
    password_hash: null,
    first_name: row.firstName,
    last_name: row.lastName,
    phone: row.phone,
    cedula: null,
    birthdate: row.birthdate,
    first_vendor_id: vendorId,
  });
  await linkUserToVendor(trx, engine, { userId: user.id, vendorId, contactConsent: row.contactConsent, language: row.language, via: 'import' });
  if (row.card) {
    const cardRow = card ?? (await trx.selectFrom('cards').selectAll().where('id', '=', (await addCard(trx, engine, { vendorId }, { number: row.card })).id).executeTakeFirstOrThrow());
    await linkCard(trx, engine, { vendorId, userId: user.id, card: cardRow, storeId: null });
  }
  await postOpeningBalances(trx, engine, program, user.id, row);
  return { outcome: 'imported', customerId: user.id };
}

/** The row's balances as entries of kind `import` (their reference: the run and the line), and the history record that explains them. */
async function postOpeningBalances(trx: Kysely<DB>, engine: Engine, program: ImportProgram, userId: number, row: MemberRow): Promise<void> {
  const reference = openingReference(program, row);
  const credit = async (currencyId: number, amount: number, expiresAt: number | null) => {
    const accountId = await openAccount(trx, engine, { vendorId: program.vendorId, currencyId, holderType: 'user', holderId: userId });
    await postEntry(trx, engine, accountId, { amount, kind: IMPORT_KIND, expiresAt, ...reference });
  };
  const points = openingPoints(program, row, engine.clock.now());
  for (const lot of points) await credit(lot.currency.id, lot.points, lot.expiresAt);
  if (row.quickPay > 0 && program.quickPay) await credit(program.quickPay.id, row.quickPay, null);
  if (points.length === 0 && row.quickPay === 0) return;
  const quickPayBalance = program.quickPay ? await holderBalance(trx, { holderType: 'user', holderId: userId, currencyId: program.quickPay.id }) : 0;
  await recordTransaction(trx, engine, openingHistory(program, userId, row, quickPayBalance, engine.clock.now()));
}

/**
 * A row's opening points, one lot per loyalty currency: the `points` column's, then each other
 * currency's from its own columns. Each expires on the old system's date when the file gives one,
 * else by the program's rule as if the points were earned now (what an order's earning follows).
 */
export function openingPoints(program: ImportProgram, row: MemberRow, now: number): CurrencyPoints[] {
  const rule = () => earnedPointsExpireAt(program.pointsExpiryDays, now);
  return [
    ...(row.points > 0 && program.points ? [{ currency: program.points, points: row.points, expiresAt: row.pointsExpireAt ?? rule() }] : []),
    ...row.currencyPoints.map((lot) => ({ ...lot, expiresAt: lot.expiresAt ?? rule() })),
  ];
}

/** The reference of a row's opening entries: the run and the file's line. */
export function openingReference(program: ImportProgram, row: MemberRow): { referenceType: string; referenceId: string } {
  return { referenceType: IMPORT_KIND, referenceId: `${program.runId}:${row.line}` };
}

/** The history record of a row's opening balances (a row with none has none). */
export function openingHistory(program: ImportProgram, userId: number, row: MemberRow, quickPayBalance: number, now: number): NewTransaction {
  return {
    vendorId: program.vendorId,
    userId,
    storeId: null,
    orderId: null,
    kind: IMPORT_KIND,
    occurredAt: now,
    total: 0,
    quickPayUsed: 0,
    quickPayLoaded: row.quickPay,
    quickPayBalance,
    items: [],
    taxes: [],
    receipts: [],
    rewards: openingPoints(program, row, now).map((lot) => ({ object: 'reward', kind: IMPORT_KIND, name: 'Balance brought from the previous program', amount: lot.points, currency: lot.currency.name })),
    status: 'Complete',
  };
}

/** A ServiceError met while writing a row (a card whose value another account claimed…) as the row's refusal. */
export function refusalOf(error: unknown): RowRefused | null {
  if (error instanceof RowRefused) return error;
  if (error instanceof ServiceError) return new RowRefused(error.code, error.field ?? null, error.message);
  return null;
}

/**
 * The account each card's latest link was for, of cards with no active link (`formerHolder`), leaving
 * out erased accounts: by card id.
 */
export async function formerHoldersOfCards(trx: Kysely<DB>, cardIds: readonly number[]): Promise<Map<number, number>> {
  if (cardIds.length === 0) return new Map();
  const links = await trx
    .selectFrom('user_cards as l')
    .innerJoin('users as u', 'u.id', 'l.user_id')
    .select(['l.card_id', 'l.user_id', 'u.status'])
    .where('l.card_id', 'in', cardIds)
    .where('l.removed_at', 'is not', null)
    .orderBy('l.removed_at', 'desc')
    .orderBy('l.id', 'desc')
    .execute();
  const holders = new Map<number, number>();
  const seen = new Set<number>();
  for (const link of links) {
    const cardId = Number(link.card_id);
    if (seen.has(cardId)) continue;
    seen.add(cardId);
    if (link.status !== 'deleted') holders.set(cardId, Number(link.user_id));
  }
  return holders;
}
