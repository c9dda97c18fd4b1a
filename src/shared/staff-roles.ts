// Who may do what in the back office. The node enforces this table (src/core/staff/authorize.ts);
// the screens read it only to leave out what a role could not use anyway.

export const STAFF_ROLES = ['owner', 'manager', 'store_manager'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export const STAFF_PERMISSIONS = [
  'staff.manage',
  'audit.read',
  'program.read',
  'program.write',
  'customers.read',
  'customers.write',
  /** A copy of everything the program holds about a person (GDPR access and portability): owners and managers. */
  'customers.export',
  'stores.read',
  'stores.write',
  'keys.manage',
  'dashboard.read',
  'webhooks.manage',
  'payments.manage',
  /** Importing members from another system's file (owners only: thousands of customers and their balances at once). */
  'customers.import',
  /** Every member of the program as one CSV file (their contacts, consents and balances): owners only. */
  'customers.export_all',
] as const;
export type StaffPermission = (typeof STAFF_PERMISSIONS)[number];

/**
 * owner: everything (importing members, and downloading them all, only them). manager: program, customers (a copy of a person's data too), stores, webhooks, payment exceptions (not staff).
 * store manager: their own store only (its keys, its customers' check-ins and orders, its
 * dashboard), the program read-only; not payment exceptions, which belong to no store.
 */
export const ROLE_PERMISSIONS: Record<StaffRole, readonly StaffPermission[]> = {
  owner: STAFF_PERMISSIONS,
  manager: ['audit.read', 'program.read', 'program.write', 'customers.read', 'customers.write', 'customers.export', 'stores.read', 'stores.write', 'keys.manage', 'dashboard.read', 'webhooks.manage', 'payments.manage'],
  store_manager: ['program.read', 'customers.read', 'stores.read', 'keys.manage', 'dashboard.read'],
};

export function roleAllows(role: StaffRole, permission: StaffPermission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}
