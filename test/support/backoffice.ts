import { expect } from 'vitest';
import { acceptInvitation } from '../../src/core/staff/accept-invitation';
import { addOwner } from '../../src/core/staff/add-owner';
import { inviteStaff } from '../../src/core/staff/invite-staff';
import { authenticateStaffSession } from '../../src/core/staff/staff-sessions';
import { issueStaffToken } from '../../src/core/staff/staff-tokens';
import type { StaffRole } from '../../src/shared/staff-roles';
import { http, type HttpReply, type TestNode } from './test-node';

// Staff of a test node's vendors, signed in, for the back-office API tests and flows.

export const STAFF_PASSWORD = 'correct horse battery';

export interface SignedInStaff {
  id: number;
  email: string;
  token: string;
}

let counter = 0;
const uniqueEmail = (role: string) => `${role}.${process.pid}.${++counter}@staff.test`;

/** An owner made as `punchcard init --owner` makes one, signed in over HTTP. */
export async function ownerOf(node: TestNode, vendorId: number): Promise<SignedInStaff> {
  const email = uniqueEmail('owner');
  const { staff } = await addOwner(node.engine, { vendorId, email, password: STAFF_PASSWORD });
  return { id: staff.id, email, token: await signIn(node, email) };
}

/** A staff member invited by `owner` who accepted (the token is taken from the node, not the mail). */
export async function invitedStaff(node: TestNode, owner: SignedInStaff, role: StaffRole, storeId: number | null = null): Promise<SignedInStaff> {
  const inviter = await authenticateStaffSession(node.engine, owner.token);
  const email = uniqueEmail(role);
  const staff = await inviteStaff(node.engine, inviter, { email, name: `The ${role}`, role, storeId, linkBase: `${node.url}/admin` });
  const { token } = await issueStaffToken(node.engine.db, node.engine, { id: staff.id, vendor_id: staff.vendorId }, 'invitation');
  const session = await acceptInvitation(node.engine, { token, password: STAFF_PASSWORD });
  return { id: staff.id, email, token: session.token };
}

export async function signIn(node: TestNode, email: string, password = STAFF_PASSWORD): Promise<string> {
  const reply = await http(`${node.url}/backoffice/sign-in`, { method: 'POST', body: { email, password } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.token as string;
}

/** A back-office call with a staff session token. */
export function staffCall(node: TestNode, token: string | null, method: string, path: string, body?: unknown): Promise<HttpReply> {
  return http(`${node.url}${path}`, { method, ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
}
