import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually';
import { freePort } from '../support/free-port';
import { jsonLines, nodesOfThisFile, run, stopWith } from '../support/processes';
import { http } from '../support/test-node';

// The engineer paged after an outage reads the store's log: when central came back, the line used to
// say `central reachable again: sending what waited` with `pending: 0` (counted after the round had
// sent them) — neither how long the store was offline nor how much had waited. Now it says both.

const { tempDir, start } = nodesOfThisFile('punchcard-reconnect-log-');

describe("a store's log when central comes back", () => {
  it('says how long the store was offline and how many changes waited and were sent', async () => {
    const centralDir = tempDir();
    const init = await run(['init', '--data', centralDir, '--vendor', 'Cafe Uno', '--json'], {}, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const program = JSON.parse(init.stdout.trim()) as Record<string, any>;
    const centralArgs = ['central', '--data', centralDir, '--port', String(await freePort())];
    let central = await start(centralArgs, 'central');
    const code = await run(['pair-code', '--data', centralDir, '--store', String(program.store_id), '--json'], {}, 120_000);
    expect(code.code, code.stderr).toBe(0);
    const store = await start(['store', '--data', tempDir(), '--port', '0', '--central', central.url, '--pair', JSON.parse(code.stdout).code], 'store');
    const status = async () => (await http(`${store.url}/sync/status`)).body;
    await eventually('the first sync', async () => ((await status()).first_sync.done && (await status()).link === 'up' ? true : undefined));

    expect((await stopWith(central.process, 'SIGTERM')).code).toBe(0);
    await eventually('the store offline', async () => ((await status()).link === 'down' ? true : undefined));
    // Sold offline: a newcomer registered and two sales.
    const json = { 'content-type': 'application/json' };
    const registered = await http(`${store.url}/onscreen/register?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { email: 'bo@example.com', first_name: 'Bo' } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    for (const receipt of ['R-1', 'R-2']) {
      const sold = await http(`${store.url}/order?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: 'bo@example.com', receipt_number: receipt, subtotal: 4 } });
      expect(sold.status, JSON.stringify(sold.body)).toBe(200);
    }
    const waiting = (await status()).pending as number;
    expect(waiting).toBeGreaterThanOrEqual(3);

    central = await start(centralArgs, 'central');
    await eventually('the store drained', async () => {
      const s = await status();
      return s.link === 'up' && s.pending === 0 ? true : undefined;
    }, 60_000);
    const back = await eventually('the line of the return', async () => jsonLines(store.process.stdout()).find((line) => String(line.msg).startsWith('central reachable again')));
    expect(back).toMatchObject({ level: 30, waited: waiting, sent: waiting, pending: 0, offline_seconds: expect.any(Number) });
    expect(back.msg).toMatch(new RegExp(`^central reachable again after \\d+ s offline \\(since [0-9T:.Z-]+\\): ${waiting} changes that waited sent$`));
  });
});
