import { ServiceError } from '../../shared/errors';
import { OBJECT_STATUSES, type ObjectStatus } from '../../shared/schemas/common';

// Currencies and cards share one lifecycle:
//   ACTIVE    in use.
//   INACTIVE  paused: kept and shown, not usable for earning, spending or check-in; can return to ACTIVE.
//   ARCHIVED  retired: kept for history. The interface lets it come back to ACTIVE, but pausing
//             something retired means nothing, so ARCHIVED -> INACTIVE is refused.
const REFUSED_MOVES: ReadonlyArray<readonly [ObjectStatus, ObjectStatus]> = [['ARCHIVED', 'INACTIVE']];

export function parseStatus(value: string, field = 'status'): ObjectStatus {
  const upper = value.trim().toUpperCase();
  if (!(OBJECT_STATUSES as readonly string[]).includes(upper)) {
    throw new ServiceError('validation_failed', `status must be one of ${OBJECT_STATUSES.join(', ')}.`, field);
  }
  return upper as ObjectStatus;
}

export function assertStatusMove(from: ObjectStatus, to: ObjectStatus): void {
  if (REFUSED_MOVES.some(([a, b]) => a === from && b === to)) {
    throw new ServiceError('invalid_status_transition', `An ${from} object cannot become ${to}; make it ACTIVE instead.`);
  }
}
