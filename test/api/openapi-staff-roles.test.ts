import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { STAFF_ROLES, type StaffRole } from '../../src/shared/staff-roles';
import { invitedStaff, ownerOf, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Which staff roles may call each back-office operation (thirteenth round): /openapi.json says it
// per operation (x-staff-roles, x-staff-permission, and a sentence in the description), read from
// the permission the route's check asks. Held to reality: every back-office operation is called by
// an owner, a manager and a store manager, and a role is refused for want of permission exactly
// when the document leaves it out.

let node: TestNode;
let vendor: VendorCredentials;
const tokens = {} as Record<StaffRole, string>;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Roles Coffee');
  const owner = await ownerOf(node, vendor.vendorId);
  tokens.owner = owner.token;
  tokens.manager = (await invitedStaff(node, owner, 'manager')).token;
  tokens.store_manager = (await invitedStaff(node, owner, 'store_manager', vendor.storeId)).token;
});

afterAll(async () => {
  await node?.close();
});

async function staffOperations(): Promise<Array<{ method: string; path: string; op: any }>> {
  const doc = (await http(`${node.url}/openapi.json`)).body;
  return Object.entries(doc.paths as Record<string, Record<string, any>>)
    .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })))
    .filter(({ op }) => op.security.some((requirement: object) => 'staff' in requirement));
}

/** A refusal for the role's want of permission (requirePermission), not for another store. */
const refusedForRole = (reply: { status: number; body: any }) => reply.status === 403 && reply.body?.code === 'forbidden' && /may not do this/.test(reply.body.message);

describe('staff roles in /openapi.json', () => {
  it('names, on every back-office operation, the roles it takes and the permission it checks, in words too', async () => {
    const operations = await staffOperations();
    expect(operations.length).toBeGreaterThan(40);
    for (const { method, path, op } of operations) {
      const key = `${method} ${path}`;
      expect(op['x-staff-roles'], key).toEqual(expect.arrayContaining(['owner']));
      for (const role of op['x-staff-roles']) expect(STAFF_ROLES, key).toContain(role);
      if (op['x-staff-permission']) expect(op.description, key).toContain(`permission \`${op['x-staff-permission']}\``);
      expect(op.description, key).toMatch(/Staff: owners/);
    }
    const find = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)!.op;
    expect(find('GET', '/backoffice/staff')['x-staff-roles']).toEqual(['owner']);
    expect(find('POST', '/backoffice/webhooks')['x-staff-roles']).toEqual(['owner', 'manager']);
    expect(find('GET', '/backoffice/dashboard')['x-staff-roles']).toEqual(['owner', 'manager', 'store_manager']);
    expect(find('GET', '/backoffice/me')['x-staff-roles']).toEqual(['owner', 'manager', 'store_manager']);
    expect(find('GET', '/backoffice/me')['x-staff-permission']).toBeUndefined();
  });

  it('matches what each role is answered: refused for its role exactly where the document leaves it out', async () => {
    // Signing out ends the session the rest of the sweep uses: those go last.
    const operations = (await staffOperations()).sort((a, b) => Number(a.path.includes('sign-out')) - Number(b.path.includes('sign-out')));
    const wrong: string[] = [];
    for (const { method, path, op } of operations) {
      for (const role of STAFF_ROLES) {
        const reply = await staffCall(node, tokens[role], method, path.replace(/\{\w+\}/g, '1'), method === 'GET' ? undefined : {});
        const documented = (op['x-staff-roles'] as string[]).includes(role);
        if (documented === refusedForRole(reply)) wrong.push(`${method} ${path} as ${role}: documented ${documented}, answered ${reply.status} ${reply.body?.code}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 60_000);
});
