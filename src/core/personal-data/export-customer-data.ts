import { recordAudit } from '../audit/record-audit';
import { checkCustomerAccess } from '../customer-care/customer-access';
import { survivingCustomerId } from '../customers/customer-store';
import { type Engine, ownsProgramData, transact } from '../engine';
import { ServiceError } from '../../shared/errors';
import { actorOf, storeLimit } from '../staff/authorize';
import { readReport } from '../storage/report-snapshot';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { type PersonalData, personalDataDocument } from './personal-data-document';

/**
 * Staff hand a member the copy of their data the program holds (GDPR Art. 15 and 20: someone who
 * asks at the counter or by letter). Only members of the staff member's program (a person erased,
 * or who left, is not found: the program holds nothing of them to give); the route admits owners
 * and managers only ('customers.export'). Audited: who exported whose data, when. A paired store
 * refuses: it lacks what stays at central (saved cards, payments, messages…) and what it has not
 * pulled yet, and its staff are its own, so the call cannot go to central as a customer's does.
 */
export async function exportCustomerData(engine: Engine, staff: StaffPrincipal, requestedId: number): Promise<PersonalData> {
  if (!ownsProgramData(engine)) throw new ServiceError('personal_data_managed_by_central');
  const userId = await survivingCustomerId(engine.db, requestedId);
  await checkCustomerAccess(engine.db, staff.vendorId, storeLimit(staff), userId);
  // A regular's years of history: read off the node's event loop (storage/report-snapshot.ts).
  const document = await readReport(engine, (reads) => personalDataDocument(reads, staff.vendorId, userId, 'staff'));
  await transact(engine, (trx) =>
    recordAudit(trx, engine, actorOf(staff), {
      action: 'customer.data_exported',
      objectType: 'customer',
      objectId: userId,
      before: null,
      after: { format: document.format, version: document.version },
    }),
  );
  return document;
}
