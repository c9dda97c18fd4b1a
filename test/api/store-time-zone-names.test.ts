import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { startTestNode, type TestNode } from '../support/test-node';

// A store's time zone is kept as the owner wrote it. Node's ICU answers older names for some zones
// (Asia/Kolkata as Asia/Calcutta, Europe/Kyiv as Europe/Kiev), so the back office and every client
// read back a zone nobody chose. Over real HTTP; the node's clock is Saturday 21 November 2026,
// 09:30 UTC.

let node: TestNode;
let owner: SignedInStaff;
let storeId: number;

beforeAll(async () => {
  node = await startTestNode();
  const vendor = await node.addVendor('Chai Corner');
  owner = await ownerOf(node, vendor.vendorId);
  storeId = vendor.storeId;
});

afterAll(async () => {
  await node?.close();
});

const zoneTo = (time_zone: string) => staffCall(node, owner.token, 'PUT', `/backoffice/stores/${storeId}`, { time_zone, hours: { sat: '09:00-18:00' } });

describe('a store’s time zone name', () => {
  it('is kept as written: Asia/Kolkata, Europe/Kyiv, America/Nuuk, America/Argentina/Buenos_Aires; and the store is open by it', async () => {
    for (const zone of ['Asia/Kolkata', 'Europe/Kyiv', 'America/Nuuk', 'America/Argentina/Buenos_Aires']) {
      const reply = await zoneTo(zone);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.time_zone).toBe(zone);
      const read = await staffCall(node, owner.token, 'GET', `/backoffice/stores/${storeId}`);
      expect(read.body.time_zone).toBe(zone);
    }
    // 15:00 on Saturday in Kolkata (+05:30): open; 22:30 in Kiritimati (+14): closed.
    expect((await zoneTo('Asia/Kolkata')).body.open_now).toBe(true);
    expect((await zoneTo('Pacific/Kiritimati')).body.open_now).toBe(false);
  });

  it('written without its capitals takes ICU’s spelling; an unknown one is refused and changes nothing', async () => {
    expect((await zoneTo('america/new_york')).body.time_zone).toBe('America/New_York');
    const refused = await zoneTo('Mars/Olympus_Mons');
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([400, 'validation_failed', 'time_zone']);
    expect((await staffCall(node, owner.token, 'GET', `/backoffice/stores/${storeId}`)).body.time_zone).toBe('America/New_York');
  });
});
