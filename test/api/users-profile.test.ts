import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { customerApi, expectLegacyError, FORM, freshEmail, PASSWORD, ROOMY_RATE_LIMITS } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// GET and PUT /user/profile over real HTTP: every field of the User profile, and the rules of an
// update (only what is sent changes, everything is checked first, password and email need the
// current password).

const SPANISH = { object: 'language', id: 2, name: 'Español', code: 'es' };
const ENGLISH = { object: 'language', id: 1, name: 'English', code: 'en' };
const ECUADOR = { country_id: 218, code: 'EC', name: 'Ecuador' };
const PICHINCHA = { region_id: 218_350_000, code: 'EC-P', name: 'Pichincha' };

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

// ---------------------------------------------------------------------------------------------
// helpers

const { vendor, nowSec, freshPhone, post, signUp, login, loginOk, getProfile, profileOk, putProfile } = customerApi(() => node, { vendorName: 'Tienda' });

async function putOk(key: string, body: unknown, headers?: Record<string, string>): Promise<void> {
  const reply = await putProfile(key, body, headers);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body).toStrictEqual({});
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------------------------------------

describe('GET /user/profile', () => {
  it('answers every field of the User profile', async () => {
    const v = await vendor();
    node.clock.advance(2_500);
    const at = nowSec();
    const c = await signUp(v.vendorId, { first_name: 'Lucía', last_name: 'Andrade', birthdate: 631_152_000, contact_consent: 1 });
    const link = await node.engine.db.selectFrom('user_vendors').select('id').where('user_id', '=', c.userId).where('vendor_id', '=', v.vendorId).executeTakeFirstOrThrow();
    node.clock.advance(10_000);

    const body = await profileOk(c.key);
    expect(body).toStrictEqual({
      object: 'user_vendor',
      id: String(link.id),
      anonymous: false,
      billing_profile: null,
      contact_consent: 1,
      created: at,
      updated: at,
      flagged: false,
      is_verified: { status: false, methods: { 'No Verification': false, Email: false, Sms: false } },
      language: null,
      metadata: [],
      newsletters: {},
      online_order_token: null,
      push_endpoints: { gcm: [], apns: [] },
      referral_url: expect.stringMatching(new RegExp(`^${escapeRegExp(node.url)}/join\\?vendor=${v.vendorId}&ref=[A-Za-z0-9_-]{8}$`)),
      reload_amount: 0,
      reload_threshold: 0,
      status: { status_id: 1, name: 'Active' },
      user: {
        object: 'user',
        id: c.userId,
        cid: null,
        facebook_identifier: null,
        email_address: c.email,
        first_name: 'Lucía',
        last_name: 'Andrade',
        phone_number: '',
        passport_number: null,
        address: { address1: null, address2: null, city: '', region: null, country: null, postal_code: '' },
        birthdate: 631_152_000,
        pet: null,
        created: at,
        updated: at,
        status: { id: 1, name: 'Active' },
      },
      vendor: {},
    });
    expect(Number.isInteger(body.user.id)).toBe(true);
  });

  it('shows birthdate null when none was given, and the language chosen at registration', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId, { language: 2 });
    const body = await profileOk(c.key);
    expect(body.user.birthdate).toBeNull();
    expect(body.language).toStrictEqual(SPANISH);
  });

  it('keeps one referral URL per vendor link, different between vendors', async () => {
    const a = await vendor();
    const b = await vendor();
    const c = await signUp(a.vendorId);
    const atB = await loginOk(c.email, PASSWORD, b.vendorId);
    const first = (await profileOk(c.key)).referral_url;
    expect((await profileOk(c.key)).referral_url).toBe(first);
    const other = (await profileOk(atB.session_identifier)).referral_url;
    expect(other).toMatch(new RegExp(`^${escapeRegExp(node.url)}/join\\?vendor=${b.vendorId}&ref=`));
    expect(new URL(other).searchParams.get('ref')).not.toBe(new URL(first).searchParams.get('ref'));
  });

  it('builds the referral URL on the node\'s public URL when it has one, whatever Host the app sent', async () => {
    const published = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS, publicUrl: 'https://loyalty.example.com/shop/' });
    try {
      const api = customerApi(() => published, { vendorName: 'Tienda' });
      const c = await api.signUp((await api.vendor()).vendorId);
      const reply = await http(`${published.url}/user/profile?session_identifier=${c.key}`, { headers: { host: 'attacker.example' } });
      expect(reply.body.referral_url).toMatch(/^https:\/\/loyalty\.example\.com\/shop\/join\?vendor=\d+&ref=/);
    } finally {
      await published.close();
    }
  });

  it('shows the vendor link of the session: another vendor has its own id, consent and language', async () => {
    const a = await vendor();
    const b = await vendor();
    const c = await signUp(a.vendorId, { contact_consent: 3, language: 2 });
    const atB = await loginOk(c.email, PASSWORD, b.vendorId);
    const pa = await profileOk(c.key);
    const pb = await profileOk(atB.session_identifier);
    expect(pa.id).not.toBe(pb.id);
    expect([pa.contact_consent, pb.contact_consent]).toEqual([3, 0]);
    expect([pa.language, pb.language]).toEqual([SPANISH, null]);
    expect(pb.user).toStrictEqual(pa.user);
  });
});

describe('PUT /user/profile', () => {
  it('changes only the fields sent and answers {}', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId, { birthdate: 631_152_000, contact_consent: 2, language: 2 });
    const phone = freshPhone();
    await putOk(c.key, { address1: 'Av. Amazonas N23', city: 'Quito', country: 218, region: 218_350_000, postal_code: '170150', phone_number: { number: phone.national, code: '593' }, metadata: { favourite: 'latte' } });
    const before = await profileOk(c.key);

    node.clock.advance(60_000);
    await putOk(c.key, { first_name: '  Ana   María ' });
    const after = await profileOk(c.key);
    expect(after).toStrictEqual({ ...before, user: { ...before.user, first_name: 'Ana María', updated: nowSec() } });

    node.clock.advance(60_000);
    await putOk(c.key, { city: 'Cumbayá' });
    const cityOnly = await profileOk(c.key);
    expect(cityOnly).toStrictEqual({ ...after, user: { ...after.user, address: { ...after.user.address, city: 'Cumbayá' }, updated: nowSec() } });

    // A change of the vendor link (consent) moves the link's `updated`, not the person's.
    node.clock.advance(60_000);
    await putOk(c.key, { contact_consent: 0 });
    expect(await profileOk(c.key)).toStrictEqual({ ...cityOnly, contact_consent: 0, updated: nowSec() });

    // An empty update changes nothing.
    node.clock.advance(60_000);
    const unchanged = await profileOk(c.key);
    await putOk(c.key, {});
    expect(await profileOk(c.key)).toStrictEqual(unchanged);
  });

  it('sets the address: country 218 + region EC-P + postal code -> references in the profile', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    await putOk(c.key, { address1: 'Av. Amazonas N23', city: 'Quito', country: 218, region: 218_350_000, postal_code: '170150' });
    expect((await profileOk(c.key)).user.address).toStrictEqual({
      address1: 'Av. Amazonas N23',
      address2: null,
      city: 'Quito',
      region: PICHINCHA,
      country: ECUADOR,
      postal_code: '170150',
    });
    // The region alone changes within the stored country; the postal code alone is checked against it.
    await putOk(c.key, { region: 218_260_000 });
    expect((await profileOk(c.key)).user.address.region).toStrictEqual({ region_id: 218_260_000, code: 'EC-G', name: 'Guayas' });
    await putOk(c.key, { postal_code: '090150' });
    expect((await profileOk(c.key)).user.address.postal_code).toBe('090150');
    // null clears them (it was coerced to 0: "No region has id 0.")
    await putOk(c.key, { region: null });
    expect((await profileOk(c.key)).user.address.region).toBeNull();
    await putOk(c.key, { country: null });
    expect((await profileOk(c.key)).user.address.country).toBeNull();
  });

  it('accepts form fields with bracket nesting (phone_number[number], phone_number[code])', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const phone = freshPhone();
    const form = `phone_number[number]=${phone.national}&phone_number[code]=593&country=218&region=218350000&city=Quito`;
    await putOk(c.key, form, FORM);
    const body = await profileOk(c.key);
    expect(body.user.phone_number).toBe(phone.e164);
    expect(body.user.address.country).toStrictEqual(ECUADOR);
    expect(body.user.address.region).toStrictEqual(PICHINCHA);
    expect(body.user.address.city).toBe('Quito');
  });

  it('reads a form’s empty region or country as cleared, not as a number to refuse', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    await putOk(c.key, 'country=218&region=218350000&city=Quito', FORM);
    await putOk(c.key, 'country=218&region=&city=Quito&contact_consent=', FORM);
    const body = await profileOk(c.key);
    expect(body.user.address.region).toBeNull();
    expect(body.user.address.country).toStrictEqual(ECUADOR);
    await putOk(c.key, 'country=&region=&city=', FORM);
    expect((await profileOk(c.key)).user.address).toMatchObject({ country: null, region: null, city: '' });
  });

  it('checks everything before writing anything', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    const before = await profileOk(c.key);
    node.clock.advance(1_000);
    expectLegacyError(await putProfile(c.key, { first_name: 'Changed', city: 'Quito', metadata: { a: 'b' }, country: 999 }), 400, 'validation_failed', 'country');
    expectLegacyError(await putProfile(c.key, { first_name: 'Changed', contact_consent: 3, phone_number: { number: '123', code: '593' } }), 400, 'invalid_phone', 'phone_number');
    // a name's limits in the words the request schemas use (it read "must be 1 to 100 characters at most")
    const blank = await putProfile(c.key, { first_name: '   ' });
    expectLegacyError(blank, 400, 'validation_failed', 'first_name');
    expect(blank.body.error.errors[0].message).toBe('first_name must not be empty.');
    const long = await putProfile(c.key, { last_name: 'x'.repeat(101) });
    expectLegacyError(long, 400, 'validation_failed', 'last_name');
    expect(long.body.error.errors[0].message).toBe('last_name must be at most 100 characters.');
    expect(await profileOk(c.key)).toStrictEqual(before);
  });

  describe('phone number', () => {
    it('reads {number, code} with code as the calling code and stores E.164', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      await putOk(c.key, { phone_number: { number: '0991234567', code: '593' } });
      expect((await profileOk(c.key)).user.phone_number).toBe('+593991234567');
      await putOk(c.key, { phone_number: { number: '' } });
      expect((await profileOk(c.key)).user.phone_number).toBe('');
    });

    it('reads a national number without a code in the vendor\'s country', async () => {
      const ec = await setUpVendor(node.engine, { name: 'Tienda EC', currency: 'USD', country: 'EC', store: { name: 'Centro', address1: 'Av. 10', city: 'Quito' } });
      const c = await signUp(ec.vendorId);
      const phone = freshPhone();
      await putOk(c.key, { phone_number: { number: phone.national } });
      expect((await profileOk(c.key)).user.phone_number).toBe(phone.e164);
    });

    it('refuses an invalid number with 400 invalid_phone', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      expectLegacyError(await putProfile(c.key, { phone_number: { number: '12', code: '593' } }), 400, 'invalid_phone', 'phone_number');
      expectLegacyError(await putProfile(c.key, { phone_number: { number: '0991234567', code: '1' } }), 400, 'invalid_phone', 'phone_number');
      expect((await profileOk(c.key)).user.phone_number).toBe('');
    });

    it('refuses a number another account uses with 409 phone_taken', async () => {
      const v = await vendor();
      const one = await signUp(v.vendorId);
      const two = await signUp(v.vendorId);
      const phone = freshPhone();
      await putOk(one.key, { phone_number: { number: phone.national, code: '593' } });
      expectLegacyError(await putProfile(two.key, { phone_number: { number: phone.national, code: '593' } }), 409, 'phone_taken', 'phone_number');
      expectLegacyError(await putProfile(two.key, { phone_number: { number: phone.e164 } }), 409, 'phone_taken', 'phone_number');
      expect((await profileOk(two.key)).user.phone_number).toBe('');
      // The holder may send its own number again.
      await putOk(one.key, { phone_number: { number: phone.national, code: '593' } });
    });
  });

  describe('country, region and postal code', () => {
    it('refuses a region of another country with 400', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      expectLegacyError(await putProfile(c.key, { country: 218, region: 840_222_000 }), 400, 'validation_failed', 'region');
      await putOk(c.key, { country: 218 });
      expectLegacyError(await putProfile(c.key, { region: 840_222_000 }), 400, 'validation_failed', 'region');
      expectLegacyError(await putProfile(c.key, { region: 218_999_999 }), 400, 'validation_failed', 'region');
      expect((await profileOk(c.key)).user.address.region).toBeNull();
    });

    it('refuses a region without a country', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      expectLegacyError(await putProfile(c.key, { region: 218_350_000 }), 400, 'validation_failed', 'region');
    });

    it('refuses an unknown country with 400', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      expectLegacyError(await putProfile(c.key, { country: 999 }), 400, 'validation_failed', 'country');
      expect((await profileOk(c.key)).user.address.country).toBeNull();
    });

    it('refuses a postal code that does not fit the country with 400 invalid_postal_code', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      expectLegacyError(await putProfile(c.key, { country: 218, postal_code: '1701' }), 400, 'invalid_postal_code', 'postal_code');
      expect((await profileOk(c.key)).user.address.country).toBeNull();
      await putOk(c.key, { country: 218, postal_code: '170150' });
      expectLegacyError(await putProfile(c.key, { postal_code: 'ABC-123' }), 400, 'invalid_postal_code', 'postal_code');
      // Moving to a country the stored postal code does not fit is refused too.
      expectLegacyError(await putProfile(c.key, { country: 840 }), 400, 'invalid_postal_code', 'postal_code');
      expect((await profileOk(c.key)).user.address).toMatchObject({ country: ECUADOR, postal_code: '170150' });
    });

    it('changing the country clears a region that was not sent again', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      await putOk(c.key, { country: 218, region: 218_350_000 });
      await putOk(c.key, { country: 840 });
      expect((await profileOk(c.key)).user.address).toMatchObject({ country: { country_id: 840, code: 'US', name: 'United States of America' }, region: null });
    });

    it('refuses a country the vendor does not serve', async () => {
      const ec = await setUpVendor(node.engine, { name: 'Solo Ecuador', currency: 'USD', country: 'EC', countries: ['EC'], store: { name: 'Centro', address1: 'Av. 10', city: 'Quito' } });
      const c = await signUp(ec.vendorId);
      expectLegacyError(await putProfile(c.key, { country: 840 }), 400, 'validation_failed', 'country');
      expect((await profileOk(c.key)).user.address.country).toBeNull();
      await putOk(c.key, { country: 218 });
      expect((await profileOk(c.key)).user.address.country).toStrictEqual(ECUADOR);
    });
  });

  describe('password', () => {
    it('needs current_password: missing 400 validation_failed, wrong 403 wrong_current_password', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      expectLegacyError(await putProfile(c.key, { password: 'a new password' }), 400, 'validation_failed', 'current_password');
      expectLegacyError(await putProfile(c.key, { password: 'a new password', current_password: '' }), 400, 'validation_failed', 'current_password');
      expectLegacyError(await putProfile(c.key, { password: 'a new password', current_password: 'not my password' }), 403, 'wrong_current_password', 'current_password');
      expectLegacyError(await putProfile(c.key, { password: 'short', current_password: PASSWORD }), 400, 'weak_password', 'password');
      // Nothing changed.
      await loginOk(c.email, PASSWORD, v.vendorId);
    });

    it('changes it: the old one fails, the new one works, other sessions end, this one lives', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      const other = await loginOk(c.email, PASSWORD, v.vendorId);
      const elsewhere = await vendor();
      const otherVendor = await loginOk(c.email, PASSWORD, elsewhere.vendorId);

      await putOk(c.key, { password: 'a brand new password', current_password: PASSWORD });
      expect((await getProfile(c.key)).status).toBe(200);
      expectLegacyError(await getProfile(other.session_identifier), 401, 'session_ended');
      expectLegacyError(await getProfile(otherVendor.session_identifier), 401, 'session_ended');
      expectLegacyError(await login(c.email, PASSWORD, v.vendorId), 401, 'invalid_credentials');
      await loginOk(c.email, 'a brand new password', v.vendorId);
      await loginOk(c.email, 'a brand new password', elsewhere.vendorId);
    });
  });

  describe('email address', () => {
    it('needs current_password', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      const next = freshEmail('next');
      expectLegacyError(await putProfile(c.key, { email_address: next }), 400, 'validation_failed', 'current_password');
      expectLegacyError(await putProfile(c.key, { email_address: next, current_password: 'wrong one!' }), 403, 'wrong_current_password', 'current_password');
      expect((await profileOk(c.key)).user.email_address).toBe(c.email);
    });

    it('changes it: the new email logs in, the old one no longer does; sessions stay', async () => {
      const v = await vendor();
      const c = await signUp(v.vendorId);
      const other = await loginOk(c.email, PASSWORD, v.vendorId);
      const next = freshEmail('next');
      await putOk(c.key, { email_address: next, current_password: PASSWORD });
      expect((await profileOk(c.key)).user.email_address).toBe(next);
      expect((await getProfile(other.session_identifier)).status).toBe(200);
      expectLegacyError(await login(c.email, PASSWORD, v.vendorId), 401, 'invalid_credentials');
      await loginOk(next, PASSWORD, v.vendorId);
      // The old email is free again.
      const reuse = await post('/user/register', { first_name: 'Otra', last_name: 'Persona', email_address: c.email, password: PASSWORD, terms: true, vendor: v.vendorId });
      expect(reuse.status, JSON.stringify(reuse.body)).toBe(200);
    });

    it('refuses an email another account has (any case) with 409 email_taken, and a bad one with 400', async () => {
      const v = await vendor();
      const one = await signUp(v.vendorId);
      const two = await signUp(v.vendorId);
      expectLegacyError(await putProfile(two.key, { email_address: one.email.toUpperCase(), current_password: PASSWORD }), 409, 'email_taken', 'email_address');
      expectLegacyError(await putProfile(two.key, { email_address: 'not-an-email', current_password: PASSWORD }), 400, 'invalid_email', 'email_address');
      expect((await profileOk(two.key)).user.email_address).toBe(two.email);
    });
  });

  it('sets the language by id or by reference; null clears it; an unknown one is 400', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    await putOk(c.key, { language: 2 });
    expect((await profileOk(c.key)).language).toStrictEqual(SPANISH);
    await putOk(c.key, { language: { id: 1 } });
    expect((await profileOk(c.key)).language).toStrictEqual(ENGLISH);
    await putOk(c.key, { language: { id: 2, object: 'language', name: 'Español', code: 'es' } });
    expect((await profileOk(c.key)).language).toStrictEqual(SPANISH);
    await putOk(c.key, { language: '1' });
    expect((await profileOk(c.key)).language).toStrictEqual(ENGLISH);
    expectLegacyError(await putProfile(c.key, { language: 9 }), 400, 'validation_failed', 'language');
    expectLegacyError(await putProfile(c.key, { language: { id: 9 } }), 400, 'validation_failed', 'language');
    // Numbers are strict here too: what Number() would read as 1 is not a language id.
    for (const loose of [true, '0x1', ' 1 ', '1e0', [1], { id: true }]) {
      expectLegacyError(await putProfile(c.key, { language: loose }), 400, 'validation_failed', 'language');
    }
    expect((await profileOk(c.key)).language).toStrictEqual(ENGLISH);
    await putOk(c.key, { language: null });
    expect((await profileOk(c.key)).language).toBeNull();
  });

  it('sets contact_consent 0-3 and refuses others', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    for (const consent of [3, 2, 1, 0]) {
      await putOk(c.key, { contact_consent: consent });
      expect((await profileOk(c.key)).contact_consent).toBe(consent);
    }
    expectLegacyError(await putProfile(c.key, { contact_consent: 4 }), 400, 'validation_failed', 'contact_consent');
    expectLegacyError(await putProfile(c.key, { contact_consent: -1 }), 400, 'validation_failed', 'contact_consent');
    expect((await profileOk(c.key)).contact_consent).toBe(0);
  });

  it('sets metadata fields; null removes one', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    await putOk(c.key, { metadata: { favourite: 'latte', visits: 3, vip: true } });
    const body = await profileOk(c.key);
    expect(body.metadata).toStrictEqual([
      { user_metadata_id: expect.stringMatching(/^\d+$/), user_metadataField_id: expect.any(Number), field: 'favourite', value: 'latte', validation: null, input_type: null },
      { user_metadata_id: expect.stringMatching(/^\d+$/), user_metadataField_id: expect.any(Number), field: 'vip', value: 'true', validation: null, input_type: null },
      { user_metadata_id: expect.stringMatching(/^\d+$/), user_metadataField_id: expect.any(Number), field: 'visits', value: '3', validation: null, input_type: null },
    ]);
    for (const entry of body.metadata) expect(Number.isInteger(entry.user_metadataField_id)).toBe(true);

    await putOk(c.key, { metadata: { favourite: 'flat white' } });
    const changed = await profileOk(c.key);
    expect(changed.metadata.find((m: any) => m.field === 'favourite')).toStrictEqual({ ...body.metadata[0], value: 'flat white' });
    expect(changed.metadata).toHaveLength(3);

    await putOk(c.key, { metadata: { favourite: null } });
    expect((await profileOk(c.key)).metadata.map((m: any) => m.field)).toEqual(['vip', 'visits']);
    await putOk(c.key, { metadata: { vip: null, visits: null } });
    expect((await profileOk(c.key)).metadata).toStrictEqual([]);
  });

  it('shares a vendor\'s metadata fields between its customers, and keeps values per customer', async () => {
    const v = await vendor();
    const one = await signUp(v.vendorId);
    const two = await signUp(v.vendorId);
    await putOk(one.key, { metadata: { favourite: 'latte' } });
    await putOk(two.key, { metadata: { favourite: 'mocha' } });
    const [a] = (await profileOk(one.key)).metadata;
    const [b] = (await profileOk(two.key)).metadata;
    expect(a.user_metadataField_id).toBe(b.user_metadataField_id);
    expect([a.value, b.value]).toEqual(['latte', 'mocha']);
    expect(a.user_metadata_id).not.toBe(b.user_metadata_id);
  });

  it('refuses bad metadata', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await putProfile(c.key, { metadata: { nested: { a: 1 } } }), 400, 'validation_failed', 'metadata');
    expectLegacyError(await putProfile(c.key, { metadata: { long: 'x'.repeat(1001) } }), 400, 'validation_failed', 'metadata');
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'v']));
    expectLegacyError(await putProfile(c.key, { metadata: many }), 400, 'validation_failed', 'metadata');
    expect((await profileOk(c.key)).metadata).toStrictEqual([]);
  });

  it('accepts status Active only: {id: 2} is 400', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    expectLegacyError(await putProfile(c.key, { status: { id: 2 } }), 400, 'validation_failed', 'status');
    expectLegacyError(await putProfile(c.key, { status: 3 }), 400, 'validation_failed', 'status');
    for (const loose of [true, '0x1', { id: '1.0' }]) expectLegacyError(await putProfile(c.key, { status: loose }), 400, 'validation_failed', 'status');
    await putOk(c.key, { status: { id: 1, name: 'Active' } });
    await putOk(c.key, { status: { status_id: 1 } });
    const body = await profileOk(c.key);
    expect(body.status).toStrictEqual({ status_id: 1, name: 'Active' });
    expect(body.user.status).toStrictEqual({ id: 1, name: 'Active' });
  });

  it('needs a live session', async () => {
    expectLegacyError(await putProfile('pcsk_unknown-session-key-0000000000000000000000', { first_name: 'X' }), 401, 'invalid_session');
    expectLegacyError(await http(`${node.url}/user/profile`, { method: 'PUT', body: { first_name: 'X' } }), 401, 'missing_credentials');
  });
});
