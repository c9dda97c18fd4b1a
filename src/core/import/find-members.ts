import type { Kysely } from 'kysely';
import { cardNumberKey } from '../cards/card';
import { emailKey } from '../customers/contact';
import type { DB } from '../storage/schema';
import type { CardRow } from '../user-cards/card-access';
import type { MemberRow } from './member-row';
import { formerHoldersOfCards, type MemberFound } from './write-member';

/**
 * What the program holds of every row of a batch, in six reads whatever the batch's size: the
 * accounts of its emails and phones, the program's cards of its numbers, their active links and
 * the former holders of those without one, and which of the accounts found are members. Each row gets what findMember would read for it
 * alone (the file's rows share no email, phone or card: a second one is refused before).
 */
export async function findMembers(trx: Kysely<DB>, vendorId: number, rows: readonly MemberRow[]): Promise<MemberFound[]> {
  const emailKeys = unique(rows.map((row) => (row.email ? emailKey(row.email) : null)));
  const phones = unique(rows.map((row) => row.phone));
  const cardKeys = unique(rows.map((row) => (row.card ? cardNumberKey(row.card) : null)));

  const byEmail = firstBy(emailKeys.length === 0 ? [] : await trx.selectFrom('users').selectAll().where('email_key', 'in', emailKeys).orderBy('id').execute(), (user) => user.email_key);
  const byPhone = firstBy(phones.length === 0 ? [] : await trx.selectFrom('users').selectAll().where('phone', 'in', phones).where('status', '!=', 'deleted').orderBy('id').execute(), (user) => user.phone);
  const cards = firstBy(
    cardKeys.length === 0 ? [] : await trx.selectFrom('cards').selectAll().where('vendor_id', '=', vendorId).where('number_key', 'in', cardKeys).where('deleted_at', 'is', null).orderBy('id').execute(),
    (card) => card.number_key,
  );
  const cardIds = [...cards.values()].map((card) => card.id);
  const links = firstBy(cardIds.length === 0 ? [] : await trx.selectFrom('user_cards').selectAll().where('card_id', 'in', cardIds).where('removed_at', 'is', null).orderBy('id').execute(), (link) => String(link.card_id));
  const formerHolders = await formerHoldersOfCards(trx, cardIds.filter((id) => !links.has(String(id))));

  const found = rows.map((row) => {
    const card: CardRow | undefined = row.card ? cards.get(cardNumberKey(row.card)) : undefined;
    return {
      byEmail: row.email ? byEmail.get(emailKey(row.email)) : undefined,
      byPhone: row.phone ? byPhone.get(row.phone) : undefined,
      card,
      cardLink: card ? links.get(String(card.id)) : undefined,
      formerHolder: card ? formerHolders.get(card.id) : undefined,
    };
  });
  const accountIds = unique(found.flatMap((f) => [f.byEmail?.status === 'deleted' ? null : (f.byEmail?.id ?? null), f.byPhone?.id ?? null, f.cardLink?.user_id ?? null, f.formerHolder ?? null]));
  const members = new Set(
    accountIds.length === 0
      ? []
      : (await trx.selectFrom('user_vendors').select('user_id').where('vendor_id', '=', vendorId).where('user_id', 'in', accountIds).where('removed_at', 'is', null).execute()).map((m) => Number(m.user_id)),
  );
  return found.map((f) => ({ ...f, members }));
}

function unique<T>(values: ReadonlyArray<T | null>): T[] {
  return [...new Set(values.filter((value): value is T => value !== null))];
}

/** The first row of each key, in the order read. */
function firstBy<R>(rows: readonly R[], keyOf: (row: R) => string | null): Map<string, R> {
  const map = new Map<string, R>();
  for (const row of rows) {
    const key = keyOf(row);
    if (key !== null && !map.has(key)) map.set(key, row);
  }
  return map;
}

