import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Store hours that contradict themselves are refused as 400 validation_failed naming hours.<day>,
// with nothing changed: overlapping ranges in a day, an empty day, and a range running past
// midnight into the next day's first hours (Sunday's into Monday's). Ranges that only touch, a
// late range ending as the next day opens, and "00:00-24:00" are accepted. Hours stored before
// these checks do not stop a change of another field, and are still read for open_now.

let node: TestNode;
let vendor: VendorCredentials;

// The test clock: Saturday 2026-11-21 09:30 UTC; the stores keep the default time zone, UTC.
const STORE = { name: 'Hours Store', address: '1 Clock St', city: 'Springfield', country: 'US' };

beforeAll(async () => {
  node = await startTestNode();
  vendor = await node.addVendor('Hours Coffee');
});

afterAll(async () => {
  await node?.close();
});

const create = (hours: Record<string, string>) => http(`${node.url}/stores`, { method: 'POST', token: vendor.accessToken, body: { ...STORE, hours } });
const storeCount = async () => (await http(`${node.url}/stores`, { token: vendor.accessToken })).body.items.length as number;

describe('store hours that contradict themselves', () => {
  it.each([
    [{ mon: '08:00-12:00,11:00-14:00' }, 'hours.mon', 'hours.mon: 08:00-12:00 and 11:00-14:00 overlap. Write them as one range, or fix the times.'],
    [{ tue: '11:00-14:00,08:00-12:00' }, 'hours.tue', 'hours.tue: 08:00-12:00 and 11:00-14:00 overlap. Write them as one range, or fix the times.'],
    [{ wed: '08:00-23:00,22:00-02:00' }, 'hours.wed', 'hours.wed: 08:00-23:00 and 22:00-02:00 overlap. Write them as one range, or fix the times.'],
    [{ thu: '09:00-17:00,09:00-17:00' }, 'hours.thu', 'hours.thu: 09:00-17:00 and 09:00-17:00 overlap. Write them as one range, or fix the times.'],
    [{ mon: '' }, 'hours.mon', 'hours.mon is empty: write "closed", or leave the day out.'],
    [{ fri: '   ' }, 'hours.fri', 'hours.fri is empty: write "closed", or leave the day out.'],
    [{ mon: '20:00-09:00', tue: '08:00-12:00' }, 'hours.mon', "hours.mon: 20:00-09:00 runs past midnight into tue's 08:00-12:00. End it by 08:00, or fix the times."],
    [{ sun: '23:00-03:00', mon: '02:00-10:00' }, 'hours.sun', "hours.sun: 23:00-03:00 runs past midnight into mon's 02:00-10:00. End it by 02:00, or fix the times."],
    [{ sat: '22:00-02:00', sun: '00:00-24:00' }, 'hours.sat', "hours.sat: 22:00-02:00 runs past midnight into sun's 00:00-24:00. End it by 00:00, or fix the times."],
  ])('%j: 400 naming %s, nothing made', async (hours, field, message) => {
    const before = await storeCount();
    const reply = await create(hours);
    expect([reply.status, reply.body.code, reply.body.field, reply.body.message]).toEqual([400, 'validation_failed', field, message]);
    expect(await storeCount()).toBe(before);
  });

  it('a change to them is refused the same way, the stored hours kept', async () => {
    const made = await create({ mon: '08:00-12:00' });
    expect(made.status).toBe(201);
    const reply = await http(`${node.url}/stores/${made.body.id}`, { method: 'PUT', token: vendor.accessToken, body: { hours: { mon: '08:00-12:00,10:00-11:00' } } });
    expect([reply.status, reply.body.code, reply.body.field]).toEqual([400, 'validation_failed', 'hours.mon']);
    expect((await http(`${node.url}/stores/${made.body.id}`, { token: vendor.accessToken })).body.hours).toEqual({ mon: '08:00-12:00' });
  });
});

describe('store hours that hold together', () => {
  it.each([
    [{ mon: '08:00-12:00,12:00-14:00' }],
    [{ mon: '22:00-02:00', tue: '02:00-06:00' }],
    [{ sun: '18:00-03:00', mon: '03:00-12:00' }],
    [{ fri: '22:00-05:00', sat: '10:00-14:00', sun: 'closed' }],
    [{ wed: '00:00-24:00', thu: 'Closed' }],
    [{ mon: '14:00-18:00,08:00-12:00,22:00-01:00', tue: '07:00-09:00' }],
  ])('%j is accepted as written', async (hours) => {
    const reply = await create(hours);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body.hours).toEqual(hours);
  });

  it('hours stored before these checks do not stop a change of another field, and are still read', async () => {
    const made = await create({ sat: '08:00-12:00' });
    const oldHours = { sat: '08:00-12:00,11:00-14:00', sun: '' };
    await node.engine.db.updateTable('stores').set({ hours: JSON.stringify(oldHours) }).where('id', '=', made.body.id).execute();
    const renamed = await http(`${node.url}/stores/${made.body.id}`, { method: 'PUT', token: vendor.accessToken, body: { name: 'Renamed Hours Store' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed Hours Store', hours: oldHours, open_now: true });
    // Sending them again is a change of hours: checked.
    const resent = await http(`${node.url}/stores/${made.body.id}`, { method: 'PUT', token: vendor.accessToken, body: { hours: oldHours } });
    expect([resent.status, resent.body.field]).toEqual([400, 'hours.sat']);
  });
});
