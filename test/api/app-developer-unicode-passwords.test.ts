import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hash } from '@node-rs/argon2';
import { customerApi, expectLegacyError, ROOMY_RATE_LIMITS, withSessionKey } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A customer signs up on one phone and logs in on another. A password with an accent comes
// composed (U+00E9) from one keyboard and decomposed (`e` + U+0301) from the other: the same
// password to the person typing it.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const { vendor, registerOk, login, loginOk } = customerApi(() => node, { vendorName: 'Pâtisserie' });

const COMPOSED = 'Crème brûlée 2026'.normalize('NFC');
const DECOMPOSED = COMPOSED.normalize('NFD');

describe('a password in either Unicode form is the same password', () => {
  it('signed up decomposed, logs in composed (and the other way round)', async () => {
    expect(DECOMPOSED).not.toBe(COMPOSED);
    const v = await vendor();
    const one = await registerOk(v.vendorId, { password: DECOMPOSED });
    await loginOk(one.email, COMPOSED, v.vendorId);
    const two = await registerOk(v.vendorId, { password: COMPOSED });
    await loginOk(two.email, DECOMPOSED, v.vendorId);
    expectLegacyError(await login(two.email, 'Creme brulee 2026', v.vendorId), 401, 'invalid_credentials');
  });

  it('changes the password with the current one typed in the other form', async () => {
    const v = await vendor();
    const { email } = await registerOk(v.vendorId, { password: COMPOSED });
    const session = await loginOk(email, COMPOSED, v.vendorId);
    const changed = await http(`${node.url}${withSessionKey('/user/password', session.session_identifier)}`, { method: 'PUT', body: { current_password: DECOMPOSED, password: 'plain new one 1' } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await loginOk(email, 'plain new one 1', v.vendorId);
  });

  it('an account whose hash was made from the decomposed text as typed still logs in with it', async () => {
    const v = await vendor();
    const { email, user } = await registerOk(v.vendorId, { password: 'placeholder 123' });
    await node.engine.db.updateTable('users').set({ password_hash: await hash(DECOMPOSED) }).where('id', '=', Number(user.id)).execute();
    await loginOk(email, DECOMPOSED, v.vendorId);
  });
});
