import { ServiceError } from '../../../shared/errors';
import { type Engine, ownsProgramData } from '../../engine';
import { actorOf, requirePermission } from '../../staff/authorize';
import type { StaffPrincipal } from '../../staff/staff-sessions';
import { sendRefunds } from './pay-back-stored-value';
import { readCardPaybacks, type UnfinishedPayback } from './unfinished-card-paybacks';

/**
 * "Finish the refund" on the payment exceptions screen: asks the gateway again for a card
 * pay-back's pending refunds under their own keys (the money goes back once, whoever else — the
 * job, the customer's page — asks too) and closes it through the use case's guarded finish.
 * Audited as the job's close is (`customer.pay_back_finished`, and `customer.pay_back_refused` for
 * a returned part), by the staff member. 404 for another program's, 409 once finished (nothing
 * sent), 503 with the pay-back left `refunding` when the gateway still does not answer.
 */
export async function finishCardPaybackAsStaff(engine: Engine, staff: StaffPrincipal, id: number): Promise<UnfinishedPayback> {
  requirePermission(staff, 'payments.manage');
  if (!ownsProgramData(engine)) throw new ServiceError('payback_managed_by_central');
  const [found] = await readCardPaybacks(engine, staff.vendorId, [id]);
  if (!found) throw new ServiceError('payback_not_found');
  if (found.status !== 'refunding') throw new ServiceError('invalid_status_transition', 'This pay-back is finished already: nothing was sent now.');
  const { closed } = await sendRefunds(engine, actorOf(staff), id, { auditFinish: true });
  const [after] = await readCardPaybacks(engine, staff.vendorId, [id]);
  // Finished by someone else between the read and the finish: said as for any finished one.
  if (!closed && after!.status !== 'refunding') throw new ServiceError('invalid_status_transition', 'This pay-back was finished meanwhile: nothing was sent now.');
  return after!;
}
