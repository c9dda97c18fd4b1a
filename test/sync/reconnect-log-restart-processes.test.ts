import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually';
import { freePort } from '../support/free-port';
import { jsonLines, nodesOfThisFile, run, type Running, stopWith } from '../support/processes';
import { http } from '../support/test-node';

// One true line per outage in a store's log, across a restart of the store node. The line of the
// return used to be written only by a process that had itself seen central go: a node restarted
// with changes waiting and central already back sent them without a word, and one restarted
// during the outage counted only its own offline time. Now the line counts from central's last
// answer as the database recorded it, and the changes that waited when the node started.

const { tempDir, start } = nodesOfThisFile('punchcard-reconnect-restart-');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const json = { 'content-type': 'application/json' };

/** A central and a store paired to it and synced; central then stopped and the store sold offline. */
async function storeOffline() {
  const centralDir = tempDir();
  const init = await run(['init', '--data', centralDir, '--vendor', 'Cafe Uno', '--json'], {}, 120_000);
  expect(init.code, init.stderr).toBe(0);
  const program = JSON.parse(init.stdout.trim()) as Record<string, any>;
  const centralArgs = ['central', '--data', centralDir, '--port', String(await freePort())];
  const central = await start(centralArgs, 'central');
  const code = await run(['pair-code', '--data', centralDir, '--store', String(program.store_id), '--json'], {}, 120_000);
  expect(code.code, code.stderr).toBe(0);
  const storeDir = tempDir();
  const store = await start(['store', '--data', storeDir, '--port', '0', '--central', central.url, '--pair', JSON.parse(code.stdout).code], 'store');
  const status = async (url: string) => (await http(`${url}/sync/status`)).body;
  await eventually('the first sync', async () => {
    const s = await status(store.url);
    return s.first_sync.done && s.link === 'up' ? true : undefined;
  });
  const centralStoppedAt = Date.now();
  expect((await stopWith(central.process, 'SIGTERM')).code).toBe(0);
  await eventually('the store offline', async () => ((await status(store.url)).link === 'down' ? true : undefined));
  const registered = await http(`${store.url}/onscreen/register?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { email: 'bo@example.com', first_name: 'Bo' } });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  const sold = await http(`${store.url}/order?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: 'bo@example.com', receipt_number: 'R-1', subtotal: 4 } });
  expect(sold.status, JSON.stringify(sold.body)).toBe(200);
  const waiting = (await status(store.url)).pending as number;
  expect(waiting).toBeGreaterThanOrEqual(2);
  return { program, centralArgs, storeDir, store, status, centralStoppedAt, waiting };
}

/** The line of the return in a store process's log, once the store has sent all that waited. */
async function lineOfReturn(store: { process: Running; url: string }, status: (url: string) => Promise<any>) {
  await eventually('the store drained', async () => {
    const s = await status(store.url);
    return s.link === 'up' && s.pending === 0 ? true : undefined;
  }, 60_000);
  return eventually('the line of the return', async () => jsonLines(store.process.stdout()).find((line) => String(line.msg).startsWith('central reachable again')));
}

// Each test runs a central and two store processes in turn: minutes on a busy machine.
describe("a store's log of an outage across a restart of the store node", () => {
  it('tells the outage when the node restarts with changes waiting and central already back', async () => {
    const { centralArgs, storeDir, store, status, centralStoppedAt, waiting } = await storeOffline();
    expect((await stopWith(store.process, 'SIGTERM')).code).toBe(0);
    await start(centralArgs, 'central');
    const restartedAt = Date.now();
    const again = await start(['store', '--data', storeDir, '--port', '0'], 'store');

    const back = await lineOfReturn(again, status);
    expect(back).toMatchObject({ level: 30, waited: waiting, sent: waiting, pending: 0 });
    // Since central's last answer, before it stopped: not since this process started.
    expect(Date.parse(back.offline_since)).toBeLessThanOrEqual(centralStoppedAt);
    expect(back.offline_seconds).toBeGreaterThanOrEqual(Math.floor((restartedAt - centralStoppedAt) / 1000));
    expect(back.msg).toMatch(new RegExp(`^central reachable again after \\d+ s offline \\(since ${back.offline_since}\\): ${waiting} changes that waited sent$`));
   }, 180_000);

  it("counts the outage from central's last answer when the node restarted during it", async () => {
    const { program, centralArgs, storeDir, store, status, centralStoppedAt, waiting } = await storeOffline();
    // Long enough offline before the restart that the restarted process's own offline time (its
    // start, then central's start and the loop's backoff) falls well short of the outage.
    await sleep(20_000);
    expect((await stopWith(store.process, 'SIGTERM')).code).toBe(0);
    const again = await start(['store', '--data', storeDir, '--port', '0'], 'store');
    await eventually('the restarted store offline', async () => ((await status(again.url)).link === 'down' ? true : undefined));
    const sold = await http(`${again.url}/order?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: 'bo@example.com', receipt_number: 'R-2', subtotal: 4 } });
    expect(sold.status, JSON.stringify(sold.body)).toBe(200);
    const centralStartedAt = Date.now();
    await start(centralArgs, 'central');

    const back = await lineOfReturn(again, status);
    expect(back).toMatchObject({ level: 30, waited: waiting + 1, sent: waiting + 1, pending: 0 });
    expect(back.offline_seconds).toBeGreaterThanOrEqual(Math.floor((centralStartedAt - centralStoppedAt) / 1000));
    expect(Date.parse(back.offline_since)).toBeLessThanOrEqual(centralStoppedAt);
    // The one line of this outage: the restarted process wrote no other.
    expect(jsonLines(again.process.stdout()).filter((line) => String(line.msg).startsWith('central reachable again'))).toHaveLength(1);
   }, 180_000);
});
