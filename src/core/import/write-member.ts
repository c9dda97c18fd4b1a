import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { addCard } from '../cards/create-card';
import { cardNumberKey } from '../cards/card';
import { emailKey } from '../customers/contact';
import { findUserByEmail, findUserByPhone, findUserVendor, insertUser, linkUserToVendor } from '../customers/customer-store';
import type { Engine } from '../engine';
import { holderBalance, openAccount, postEntry } from '../ledger/ledger';
import { recordTransaction } from '../orders/record-transaction';
import type { DB } from '../storage/schema';
import { activeLinkOfCard } from '../user-cards/card-access';
import { linkCard } from '../user-cards/link-card';
import type { MemberRow } from './member-row';

/** The ledger kind (and history record kind) of a balance brought from the old system. */
export const IMPORT_KIND = 'import';

/** What the import writes into: the program and the currencies the file's balances go to. */
export interface ImportProgram {
  vendorId: number;
  points: { id: number; name: string } | null;
  quickPay: { id: number; name: string } | null;
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

/**
 * One row, in the caller's transaction: the member the row's email, phone or card already finds is
 * reported and left as it is (so a file imported twice adds nothing), otherwise a new customer,
 * their membership, their card (made when the program has no card of that number, linked either
 * way) and their opening balances as ledger entries of kind `import`, with one history record
 * that says where the balances came from. Everything is read and checked before the first write.
 */
export async function writeMember(trx: Kysely<DB>, engine: Engine, program: ImportProgram, row: MemberRow): Promise<MemberOutcome> {
  const { vendorId } = program;
  const byEmail = row.email ? await findUserByEmail(trx, emailKey(row.email)) : undefined;
  const byPhone = row.phone ? await findUserByPhone(trx, row.phone) : undefined;
  const card = row.card ? await trx.selectFrom('cards').selectAll().where('vendor_id', '=', vendorId).where('number_key', '=', cardNumberKey(row.card)).where('deleted_at', 'is', null).executeTakeFirst() : undefined;
  const cardLink = card ? await activeLinkOfCard(trx, card.id) : undefined;

  const found = new Map<number, string[]>();
  const note = (userId: number | undefined, by: string) => {
    if (userId !== undefined) found.set(userId, [...(found.get(userId) ?? []), by]);
  };
  note(byEmail?.status === 'deleted' ? undefined : byEmail?.id, 'email');
  note(byPhone?.id, 'phone');
  note(cardLink?.user_id, 'card');
  const matchedBy = [...found.values()].flat();
  for (const userId of found.keys()) {
    if (await findUserVendor(trx, userId, vendorId)) return { outcome: 'already_member', customerId: userId, matchedBy };
  }
  // An account of another program (or one that left this one): the file cannot prove it is theirs.
  if (found.size > 0) {
    throw new RowRefused('account_not_member', matchedBy[0]!, `The ${matchedBy.join(' and ')} belong${matchedBy.length > 1 ? '' : 's'} to an account that is not a member of this program: enrol them at the counter, where they show who they are.`);
  }
  if (card && card.status !== 'ACTIVE') throw new RowRefused('card_not_active', 'card', `Card ${card.number} is ${card.status.toLowerCase()} in this program: only an active card can be linked.`);
  if (row.points > 0 && !program.points) throw new RowRefused('no_points_currency', 'points', 'The program has no loyalty currency to hold these points.');

  const user = await insertUser(trx, engine, {
    email: row.email,
    email_key: row.email ? emailKey(row.email) : null,
    password_hash: null,
    first_name: row.firstName,
    last_name: row.lastName,
    phone: row.phone,
    cedula: null,
    birthdate: null,
    first_vendor_id: vendorId,
  });
  await linkUserToVendor(trx, engine, { userId: user.id, vendorId, via: 'import' });
  if (row.card) {
    const cardRow = card ?? (await trx.selectFrom('cards').selectAll().where('id', '=', (await addCard(trx, engine, { vendorId }, { number: row.card })).id).executeTakeFirstOrThrow());
    await linkCard(trx, engine, { vendorId, userId: user.id, card: cardRow, storeId: null });
  }
  await postOpeningBalances(trx, engine, program, user.id, row);
  return { outcome: 'imported', customerId: user.id };
}

/** The row's balances as entries of kind `import` (their reference: the run and the line), and the history record that explains them. */
async function postOpeningBalances(trx: Kysely<DB>, engine: Engine, program: ImportProgram, userId: number, row: MemberRow): Promise<void> {
  const reference = { referenceType: IMPORT_KIND, referenceId: `${program.runId}:${row.line}` };
  const credit = async (currencyId: number, amount: number) => {
    const accountId = await openAccount(trx, engine, { vendorId: program.vendorId, currencyId, holderType: 'user', holderId: userId });
    await postEntry(trx, engine, accountId, { amount, kind: IMPORT_KIND, ...reference });
  };
  if (row.points > 0 && program.points) await credit(program.points.id, row.points);
  if (row.quickPay > 0 && program.quickPay) await credit(program.quickPay.id, row.quickPay);
  if (row.points === 0 && row.quickPay === 0) return;
  await recordTransaction(trx, engine, {
    vendorId: program.vendorId,
    userId,
    storeId: null,
    orderId: null,
    kind: IMPORT_KIND,
    occurredAt: engine.clock.now(),
    total: 0,
    quickPayUsed: 0,
    quickPayLoaded: row.quickPay,
    quickPayBalance: program.quickPay ? await holderBalance(trx, { holderType: 'user', holderId: userId, currencyId: program.quickPay.id }) : 0,
    items: [],
    taxes: [],
    receipts: [],
    rewards: row.points > 0 && program.points ? [{ object: 'reward', kind: IMPORT_KIND, name: 'Balance brought from the previous program', amount: row.points, currency: program.points.name }] : [],
    status: 'Complete',
  });
}

/** A ServiceError met while writing a row (a card whose value another account claimed…) as the row's refusal. */
export function refusalOf(error: unknown): RowRefused | null {
  if (error instanceof RowRefused) return error;
  if (error instanceof ServiceError) return new RowRefused(error.code, error.field ?? null, error.message);
  return null;
}
