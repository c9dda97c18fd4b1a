import { describe, expect, it } from 'vitest';
import { outageLeftBy } from '../../src/server/sync/store-sync';

// A restarted store node tells, once central answers, an outage its previous process left open
// (store-sync.ts). Only a link last recorded down is one: changes waiting behind a link last seen up
// (stopped mid-backlog after central came back, or just after a sale) wrote a second "central
// reachable again" line at the next start.

const heard = { lastPushAt: 1_000, lastPullAt: 2_000, oldestPendingAt: 1_500 };

describe('the outage a previous process left open', () => {
  it('is the one its last round recorded: since central last answered, with the changes waiting now', () => {
    expect(outageLeftBy({ link: 'down' }, { ...heard, pending: 7 })).toEqual({ since: 2_000, waited: 7 });
    expect(outageLeftBy({ link: 'down' }, { ...heard, pending: 0 })).toEqual({ since: 2_000, waited: 0 });
  });

  it('counts from the oldest waiting change when central never answered', () => {
    expect(outageLeftBy({ link: 'down' }, { lastPushAt: null, lastPullAt: null, oldestPendingAt: 1_500, pending: 2 })).toEqual({ since: 1_500, waited: 2 });
  });

  it('is none behind a link last seen up, whatever still waits to be sent', () => {
    expect(outageLeftBy({ link: 'up' }, { ...heard, pending: 3_000 })).toBeNull();
    expect(outageLeftBy({ link: 'up' }, { ...heard, pending: 1 })).toBeNull();
    expect(outageLeftBy(null, { ...heard, pending: 1 })).toBeNull();
  });
});
