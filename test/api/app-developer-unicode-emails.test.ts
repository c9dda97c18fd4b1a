import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import { signIn, STAFF_PASSWORD } from '../support/backoffice';
import { customerApi, expectLegacyError, PASSWORD, ROOMY_RATE_LIMITS } from '../support/customers';
import { startTestNode, type TestNode } from '../support/test-node';

// One address reaches the node in two Unicode forms: `é` typed on a phone's keyboard is U+00E9
// (composed, NFC); pasted from a Mac's file name or some Android keyboards it is `e` + U+0301
// (decomposed, NFD). The app sends what the text field holds. Both are the same mailbox.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const { vendor, register, registerOk, login, loginOk, lookupOk, profileOk, putProfile, requestReset } = customerApi(() => node, { vendorName: 'Crêperie' });

let count = 0;
/** A fresh address with accents in both parts, in the form asked for. */
function accented(form: 'NFC' | 'NFD'): { nfc: string; nfd: string; sent: string } {
  const nfc = `renée.${++count}+app@exämple.test`.normalize('NFC');
  const nfd = nfc.normalize('NFD');
  return { nfc, nfd, sent: form === 'NFC' ? nfc : nfd };
}

describe('an email address in either Unicode form is one account', () => {
  it('a decomposed sign-up is stored composed, and the composed form cannot open a second account', async () => {
    const v = await vendor();
    const email = accented('NFD');
    expect(email.nfd).not.toBe(email.nfc);
    const { user } = await registerOk(v.vendorId, { email_address: email.nfd });
    expect(user.email_address).toBe(email.nfc);

    expectLegacyError(await register(v.vendorId, { email_address: email.nfc }), 409, 'email_taken', 'email_address');
    expectLegacyError(await register(v.vendorId, { email_address: email.nfd.toUpperCase() }), 409, 'email_taken', 'email_address');
  });

  it('logs in and is found by the exists check in the other form', async () => {
    const v = await vendor();
    const email = accented('NFC');
    await registerOk(v.vendorId, { email_address: email.nfc });

    const session = await loginOk(email.nfd, PASSWORD, v.vendorId);
    expect(typeof session.session_identifier).toBe('string');
    const exists = await lookupOk('/user/email/exists', { email: email.nfd, vendor: v.vendorId });
    expect(exists.exists).toBe(true);
  });

  it('an address changed in the profile is stored composed and logs in typed either way', async () => {
    const v = await vendor();
    const first = accented('NFC');
    const { email } = await registerOk(v.vendorId, { email_address: first.nfc });
    const session = await loginOk(email, PASSWORD, v.vendorId);
    const next = accented('NFD');

    const changed = await putProfile(session.session_identifier, { email_address: next.nfd, current_password: PASSWORD });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await profileOk(session.session_identifier)).user.email_address).toBe(next.nfc);
    await loginOk(next.nfc, PASSWORD, v.vendorId);
    expectLegacyError(await login(first.nfc, PASSWORD, v.vendorId), 401, 'invalid_credentials');
  });

  it('a reset asked for in the other form reaches the account', async () => {
    const v = await vendor();
    const email = accented('NFC');
    await registerOk(v.vendorId, { email_address: email.nfc });
    const reply = await requestReset(email.nfd, v.vendorId);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const codes = await node.engine.db
      .selectFrom('one_time_codes')
      .innerJoin('users', 'users.id', 'one_time_codes.user_id')
      .select('users.email')
      .where('one_time_codes.purpose', '=', 'password_reset')
      .where('users.email', '=', email.nfc)
      .execute();
    expect(codes).toHaveLength(1);
  });

  it('a back-office owner signs in with the address in the other form', async () => {
    const v = await vendor();
    const email = accented('NFC');
    await addOwner(node.engine, { vendorId: v.vendorId, email: email.nfc, password: STAFF_PASSWORD });
    expect(await signIn(node, email.nfd)).toMatch(/\S/);
  });

  it('an account keyed decomposed before this change still logs in and resets with the address as its owner types it', async () => {
    const v = await vendor();
    const email = accented('NFC');
    const { user } = await registerOk(v.vendorId, { email_address: email.nfc });
    // As the node stored it before emails were composed: the text as sent, lower-cased.
    await node.engine.db.updateTable('users').set({ email: email.nfd, email_key: email.nfd.toLowerCase() }).where('id', '=', Number(user.id)).execute();

    await loginOk(email.nfd, PASSWORD, v.vendorId);
    expect((await requestReset(email.nfd, v.vendorId)).status).toBe(200);
    const codes = await node.engine.db.selectFrom('one_time_codes').select('id').where('user_id', '=', Number(user.id)).where('purpose', '=', 'password_reset').execute();
    expect(codes).toHaveLength(1);
  });
});
