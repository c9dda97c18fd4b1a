import { ServiceError } from '../../shared/errors';
import { loadVendor } from '../customers/customer-store';
import type { Engine } from '../engine';
import { activeLinkOfCard, findVendorCard, unlockCard } from '../user-cards/card-access';
import { activeCurrencies, type HeldBalance, holderAccounts } from './balance-store';

export interface CardBalance {
  number: string;
  status: string;
  /** One entry per ACTIVE currency of the vendor, in minor units (0 when the card holds none). */
  balances: HeldBalance[];
}

/**
 * GET /card/balance: the balance of a card nobody has linked (a gift card), for whoever holds the
 * card and its pin. A linked card's value is its owner's business: 403 card_linked_to_account.
 */
export async function cardBalance(engine: Engine, input: { vendorId: number; number: string; pin?: string | null | undefined }): Promise<CardBalance> {
  await loadVendor(engine.db, input.vendorId);
  const card = await findVendorCard(engine.db, input.vendorId, input.number);
  unlockCard(engine, card, input.pin);
  if (await activeLinkOfCard(engine.db, card.id)) throw new ServiceError('card_linked_to_account');
  const [currencies, accounts] = await Promise.all([activeCurrencies(engine.db, input.vendorId), holderAccounts(engine.db, input.vendorId, 'card', card.id)]);
  return {
    number: card.number,
    status: card.status,
    balances: currencies.map((currency) => ({ currency, balance: accounts.get(currency.id)?.balance ?? 0 })),
  };
}
