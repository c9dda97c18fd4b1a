import type { Selectable } from 'kysely';
import type { Sealer } from '../credentials/secrets';
import type { UserCardsTable } from '../storage/schema';
import type { CardRow } from './card-access';

/** A card linked to a customer (user_cards) with the card itself. */
export interface UserCardRecord {
  id: number;
  /** ACTIVE while linked. */
  status: string;
  createdAt: number;
  updatedAt: number;
  card: { id: number; number: string; pin: string | null; status: string };
}

export type UserCardRow = Selectable<UserCardsTable>;

export function toUserCardRecord(link: Pick<UserCardRow, 'id' | 'status' | 'created_at' | 'updated_at'>, card: Pick<CardRow, 'id' | 'number' | 'pin_sealed' | 'status'>, sealer: Sealer): UserCardRecord {
  return {
    id: link.id,
    status: link.status,
    createdAt: link.created_at,
    updatedAt: link.updated_at,
    card: { id: card.id, number: card.number, pin: card.pin_sealed === null ? null : sealer.open(card.pin_sealed), status: card.status },
  };
}
