import { ServiceError } from '../../shared/errors';
import { roleAllows, type StaffPermission } from '../../shared/staff-roles';
import type { Actor } from '../audit/record-audit';
import type { StaffPrincipal } from './staff-sessions';

/** Refuses a call the staff member's role does not allow. */
export function requirePermission(staff: StaffPrincipal, permission: StaffPermission): void {
  if (!roleAllows(staff.role, permission)) throw new ServiceError('forbidden', `A ${staff.role.replace('_', ' ')} may not do this.`);
}

/** Refuses a store manager anything about a store other than their own. */
export function requireStoreAccess(staff: StaffPrincipal, storeId: number): void {
  if (staff.role === 'store_manager' && staff.storeId !== storeId) throw new ServiceError('forbidden', 'A store manager sees only their own store.');
}

/** The one store a store manager is limited to; null for roles that see the whole program. */
export function storeLimit(staff: StaffPrincipal): number | null {
  return staff.role === 'store_manager' ? staff.storeId : null;
}

export function actorOf(staff: StaffPrincipal): Actor {
  return { vendorId: staff.vendorId, staffId: staff.staffId, label: staff.email };
}
