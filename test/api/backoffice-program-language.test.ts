import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The program's language, set at `punchcard init` (from its country unless told), is changed in the
// back office: a merchant in Spain who wanted English mail, or a program set up in English before
// init followed the country, was stuck with it. Over real HTTP: in force at the next request,
// audited, refused clearly when wrong.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let storeManager: SignedInStaff;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Café Lupe');
  owner = await ownerOf(node, vendor.vendorId);
  storeManager = await invitedStaff(node, owner, 'store_manager', vendor.storeId);
});

afterAll(async () => {
  await node?.close();
});

const changeLanguage = (language: unknown, who: SignedInStaff = owner) => staffCall(node, who.token, 'PUT', '/backoffice/program/language', { language });
const programLanguage = async () => (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body.language;
/** A content page as a customer's app asks for it, in no language of its own: the program's. */
const faqLanguage = async () => (await http(`${node.url}/vendor/content/faq?vendor=${vendor.vendorId}`)).body.language;

describe("the program's language", () => {
  it("is what customers' pages default to from the next request, and is audited", async () => {
    expect(await programLanguage()).toBe('en');
    expect(await faqLanguage()).toBe('en');

    const changed = await changeLanguage('ES');
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toEqual({ language: 'es' });
    expect(await programLanguage()).toBe('es');
    expect(await faqLanguage()).toBe('es');
    // A page asked for in a language keeps it.
    expect((await http(`${node.url}/vendor/content/faq?vendor=${vendor.vendorId}&language=en`)).body.language).toBe('en');

    const audit = (await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=program&limit=1')).body.items[0];
    expect(audit).toMatchObject({ action: 'program.change_language', before: { language: 'en' }, after: { language: 'es' } });
  });

  it('refuses a language the program cannot speak, and a store manager, changing nothing', async () => {
    const before = await programLanguage();
    const french = await changeLanguage('fr');
    expect(french.status).toBe(400);
    expect(french.body).toMatchObject({ code: 'validation_failed', field: 'language' });
    expect(french.body.message).toContain('en, es');
    expect((await changeLanguage('')).status).toBe(400);
    expect((await changeLanguage(2)).status).toBe(400);
    expect((await changeLanguage('en', storeManager)).status).toBe(403);
    expect(await programLanguage()).toBe(before);
    expect(await faqLanguage()).toBe(before);
  });
});
