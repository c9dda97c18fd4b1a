import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { postAt, registration, ROOMY_RATE_LIMITS } from '../support/customers';
import { startTestNode, type TestNode } from '../support/test-node';

// The program's country, chosen at `punchcard init`, is changed in the back office (it could not be:
// a merchant who set up in the wrong country was stuck with how phones were read). Over real HTTP:
// the change is in force at the next request, audited, refused clearly when wrong, and phones
// already saved keep their country.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let storeManager: SignedInStaff;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Café Quiteño');
  owner = await ownerOf(node, vendor.vendorId);
  storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
});

afterAll(async () => {
  await node?.close();
});

const changeCountry = (country: unknown, who: SignedInStaff = owner) => staffCall(node, who.token, 'PUT', '/backoffice/program/country', { country });
const programCountry = async () => (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body.country;
/** An app registration with a phone typed without its +code, as a customer types it. */
const registerWithPhone = (number: string) => postAt(node, '/user/register', registration(vendor.vendorId, { phone_number: { number } }));
const savedPhone = async (email: string) => (await node.engine.db.selectFrom('users').select('phone').where('email', '=', email).executeTakeFirstOrThrow()).phone;

describe("the program's country", () => {
  it('reads phones without a +code in the new country from the next request; saved phones keep theirs', async () => {
    // An Ecuadorian mobile as typed there: no US number.
    expect((await registerWithPhone('099 123 4567')).body.error.errors[0].reason).toBe('invalid_phone');
    const american = registration(vendor.vendorId, { phone_number: { number: '(415) 555-0101' } });
    expect((await postAt(node, '/user/register', american)).status).toBe(200);

    const changed = await changeCountry('ec');
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toEqual({ country: 'EC' });
    expect(await programCountry()).toBe('EC');

    const ecuadorian = registration(vendor.vendorId, { phone_number: { number: '099 123 4567' } });
    const registered = await postAt(node, '/user/register', ecuadorian);
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(await savedPhone(ecuadorian.email_address as string)).toBe('+593991234567');
    expect(await savedPhone(american.email_address as string)).toBe('+14155550101');

    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=program&limit=1')).body.items[0];
    expect(audit).toMatchObject({ action: 'program.change_country', before: { country: 'US' }, after: { country: 'EC' } });
  });

  it('refuses a code that is no country, and a store manager, changing nothing', async () => {
    const before = await programCountry();
    const unknown = await changeCountry('XX');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'validation_failed', field: 'country' });
    expect((await changeCountry('')).status).toBe(400);
    expect((await changeCountry(42)).status).toBe(400);
    expect((await changeCountry('US', storeManager)).status).toBe(403);
    expect(await programCountry()).toBe(before);
  });

  it('must be one of the countries a program serves, when it serves a list', async () => {
    await node.engine.db.updateTable('vendors').set({ countries: JSON.stringify(['CO', 'EC']) }).where('id', '=', vendor.vendorId).execute();
    try {
      const refused = await changeCountry('US');
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'validation_failed', field: 'country' });
      expect(refused.body.message).toContain('CO, EC');
      expect(await programCountry()).toBe('EC');
      expect((await changeCountry('CO')).body).toEqual({ country: 'CO' });
    } finally {
      await node.engine.db.updateTable('vendors').set({ countries: null }).where('id', '=', vendor.vendorId).execute();
    }
  });
});
