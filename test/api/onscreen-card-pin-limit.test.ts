import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A card's pin guessed through POST /onscreen/register with a kiosk key (a leaked one): at most
// codeEntry's tries per card number, as GET /card/balance counts them; then 429, even for the right
// pin, and the card is linked to nobody.

let node: TestNode;
let v: VendorCredentials;

beforeAll(async () => {
  node = await startTestNode();
  v = await node.addVendor('Pin Shop');
});
afterAll(() => node?.close());

const register = (body: unknown) => http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(v.kioskApiKey)}`, { method: 'POST', body });

describe('pins tried at the kiosk', () => {
  it('are counted per card: the eleventh try is refused, the card stays unlinked', async () => {
    expect((await http(`${node.url}/cards`, { method: 'POST', token: v.accessToken, body: { number: 'GIFT77770001', pin: '4821' } })).status).toBe(201);
    const reasons: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const reply = await register({ phone_number: { number: `41555506${String(i).padStart(2, '0')}`, code: '1' }, card_number: 'GIFT77770001', card_pin: String(4700 + i) });
      reasons.push(`${reply.status} ${reply.body.error.errors[0].reason}`);
    }
    expect(new Set(reasons)).toEqual(new Set(['403 invalid_card_pin']));
    const right = await register({ phone_number: { number: '4155550699', code: '1' }, card_number: 'GIFT77770001', card_pin: '4821' });
    expect([right.status, right.body.error.errors[0].reason, right.headers.get('retry-after') !== null]).toEqual([429, 'rate_limited', true]);
    const links = await node.engine.db.selectFrom('user_cards as l').innerJoin('cards as c', 'c.id', 'l.card_id').select('l.id').where('c.number', '=', 'GIFT77770001').execute();
    expect(links).toEqual([]);
    // Registering without a card is not counted against anyone.
    expect((await register({ phone_number: { number: '4155550698', code: '1' } })).status).toBe(201);
  });
});
