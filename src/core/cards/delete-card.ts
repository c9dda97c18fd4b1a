import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { findCardRow } from './card-store';

/** The card is 404 afterwards and its number can be issued again; the row stays for history. */
export function deleteCard(engine: Engine, scope: VendorScope, publicId: string): Promise<void> {
  return transact(engine, async (trx) => {
    const row = await findCardRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('card_not_found');
    const now = engine.clock.now();
    await trx.updateTable('cards').set({ deleted_at: now, updated_at: now }).where('id', '=', row.id).execute();
  });
}
