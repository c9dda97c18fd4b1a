import { ServiceError } from '../../shared/errors';
import type { Engine, VendorScope } from '../engine';
import { type CardRecord, toCardRecord } from './card';
import { findCardRow } from './card-store';

export async function getCard(engine: Engine, scope: VendorScope, publicId: string): Promise<CardRecord> {
  const row = await findCardRow(engine.db, scope.vendorId, publicId);
  if (!row) throw new ServiceError('card_not_found');
  return toCardRecord(row, engine.sealer);
}
