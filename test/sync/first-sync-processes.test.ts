import { describe, expect, it } from 'vitest';
import { nodesOfThisFile, run } from '../support/processes';
import { seededPoints, seedMembersWithPoints } from '../support/seed-customers';
import { http } from '../support/test-node';

// A store paired with a big central (real processes, HTTP, SQLite files) serves a customer the
// first sync has not brought yet: the check-in asks central for them (docs/sync.md, "A customer
// before their turn"), long before the customers and balances are all in.

const CUSTOMERS = 100_000;
const { tempDir, start } = nodesOfThisFile('punchcard-first-sync-');

describe('first sync with real processes', () => {
  it('checks in the chain’s last customer while the snapshot is still on its way, with their balance', async () => {
    const centralDir = tempDir();
    const init = await run(['init', '--data', centralDir, '--vendor', 'Chain Coffee', '--json'], {}, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const program = JSON.parse(init.stdout.trim()) as { store_id: number; api_key: string };
    seedMembersWithPoints(`${centralDir}/punchcard.db`, CUSTOMERS);
    // Port 0: central never restarts here, and a port picked beforehand can be taken before it binds.
    const { url: centralUrl } = await start(['central', '--data', centralDir, '--port', '0'], 'central');
    const pairCode = await run(['pair-code', '--data', centralDir, '--store', String(program.store_id), '--json'], {}, 120_000);
    expect(pairCode.code, pairCode.stderr).toBe(0);
    const { url: storeUrl } = await start(['store', '--data', tempDir(), '--port', '0', '--central', centralUrl, '--pair', (JSON.parse(pairCode.stdout) as { code: string }).code], 'store');

    const last = CUSTOMERS - 1;
    const checkIn = (email: string) => http(`${storeUrl}/onscreen?api_key=${program.api_key}`, { method: 'POST', body: { card_number: email } });
    const status = async () => (await http(`${storeUrl}/sync/status`)).body as { first_sync: { done: boolean; ready: boolean } };
    let checkedIn: Awaited<ReturnType<typeof checkIn>> | null = null;
    const deadline = Date.now() + 60_000;
    while (!checkedIn && Date.now() < deadline) {
      const reply = await checkIn(`customer${last}@bench.example`);
      // Until the program's keys and tables are in: 401 (the key is not here yet), then 503.
      if (reply.status === 201) checkedIn = reply;
      else expect([401, 503], JSON.stringify(reply.body)).toContain(reply.status);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(checkedIn, 'the last customer checked in within a minute').not.toBeNull();
    // Served before their turn: the customers and balances are not all here yet.
    expect((await status()).first_sync).toMatchObject({ ready: false, done: false });
    const hash = (checkedIn!.body as { pos_session: { hash: string } }).pos_session.hash;
    const panel = await http(`${storeUrl}/onscreen?api_key=${program.api_key}&pos_session_hash=${hash}`);
    expect(panel.status).toBe(200);
    expect(panel.body.user.email_address).toBe(`customer${last}@bench.example`);
    expect(panel.body.loyalty_balance.data).toEqual([expect.objectContaining({ amount: seededPoints(last) })]);
    // Someone central does not know either is really unknown, even now.
    const stranger = await checkIn('nobody@chain.test');
    expect(stranger.status).toBe(404);
    expect(JSON.stringify(stranger.body)).toContain('"reason":"customer_not_found"');

    // The snapshot goes on over the customer already here; at the end everyone is, with their balance.
    for (;;) {
      if ((await status()).first_sync.done) break;
      if (Date.now() > deadline + 60_000) throw new Error('first sync not done within two minutes');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const again = await http(`${storeUrl}/onscreen?api_key=${program.api_key}&pos_session_hash=${hash}`);
    expect(again.body.loyalty_balance.data).toEqual([expect.objectContaining({ amount: seededPoints(last) })]);
    const other = await checkIn('customer1234@bench.example');
    expect(other.status).toBe(201);
    const otherPanel = await http(`${storeUrl}/onscreen?api_key=${program.api_key}&pos_session_hash=${(other.body as { pos_session: { hash: string } }).pos_session.hash}`);
    expect(otherPanel.body.loyalty_balance.data).toEqual([expect.objectContaining({ amount: seededPoints(1234) })]);
  }, 240_000);
});
