import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { assertStatusMove, parseStatus } from '../lifecycle/status';
import { type CardRecord, serialiseCardData, toCardRecord } from './card';
import { findCardRow } from './card-store';

export interface CardChanges {
  data?: Record<string, unknown> | null | undefined;
  status?: string | undefined;
  /** Not changeable: accepted only when equal to the stored value (clients echo whole objects back). */
  number?: string | undefined;
  pin?: string | null | undefined;
}

export function updateCard(engine: Engine, scope: VendorScope, publicId: string, changes: CardChanges): Promise<CardRecord> {
  return transact(engine, async (trx) => {
    const row = await findCardRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('card_not_found');
    const current = toCardRecord(row, engine.sealer);
    for (const field of ['number', 'pin'] as const) {
      if (changes[field] !== undefined && changes[field] !== current[field]) {
        throw new ServiceError('card_field_not_updatable', `The ${field} of a card cannot be changed; only data and status can.`, field);
      }
    }
    const next = { ...current };
    let dataText = row.data;
    if (changes.data !== undefined) {
      dataText = serialiseCardData(changes.data);
      next.data = JSON.parse(dataText) as Record<string, unknown>;
    }
    if (changes.status !== undefined) {
      next.status = parseStatus(changes.status);
      assertStatusMove(current.status, next.status);
    }
    next.updatedAt = engine.clock.now();
    await trx.updateTable('cards').set({ data: dataText, status: next.status, updated_at: next.updatedAt }).where('id', '=', current.id).execute();
    return next;
  });
}
