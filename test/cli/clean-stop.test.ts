import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, killLeftovers, launch, listeningUrl, run, type Running, stopWith, withoutScreensWarning } from '../support/processes';
import { createServerDatabase } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// A clean stop of `punchcard central` (the machine's PostgreSQL at PG_URL; an SQLite file when
// unset) while stores pull: requests under way finish, then the database closes. It used to close
// the database under them ("driver has already been destroyed", logged at level 50).

const dirs: Array<{ remove(): void }> = [];
let dropDatabase: (() => Promise<void>) | null = null;

afterAll(async () => {
  await killLeftovers();
  for (const d of dirs) d.remove();
  await dropDatabase?.();
});

async function centralDatabase(): Promise<Record<string, string>> {
  const serverUrl = process.env.PG_URL;
  if (!serverUrl) return {};
  const scratch = await createServerDatabase(serverUrl, 'punchcard_stop');
  dropDatabase = scratch.drop;
  return { PUNCHCARD_DATABASE_URL: scratch.url };
}

const json = { 'content-type': 'application/json' };

describe('punchcard central stopped while stores pull', () => {
  it('answers the pulls under way, logs no error, and exits 0', async () => {
    const env = await centralDatabase();
    const dir = makeTempDir('punchcard-stop-');
    dirs.push(dir);
    const init = await run(['init', '--data', dir.path, '--vendor', 'Chain Coffee', '--json'], env, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const program = JSON.parse(init.stdout.trim()) as Record<string, any>;
    const central: Running = launch(['central', '--data', dir.path, '--port', '0'], undefined, env);
    const url = await listeningUrl(central, 'central');
    const code = await http(`${url}/sync/pairing-codes`, { method: 'POST', headers: { authorization: `Bearer ${program.access_token}`, ...json }, body: { store: program.store_id } });
    const paired = await http(`${url}/sync/pair`, { method: 'POST', headers: json, body: { code: code.body.code } });
    expect(paired.status, JSON.stringify(paired.body)).toBe(201);
    const auth = { authorization: `Bearer ${paired.body.credential}` };
    // A poke stream stays open, as a store's does.
    const stream = fetch(`${url}/sync/stream`, { headers: auth }).then(async (reply) => {
      for await (const chunk of reply.body!) void chunk;
    });
    stream.catch(() => undefined);

    // Eight stores pulling back to back until central is gone.
    const statuses: number[] = [];
    const refusals: unknown[] = [];
    let stopping = false;
    const puller = async () => {
      while (!stopping || statuses.length < 400) {
        try {
          const reply = await fetch(`${url}/sync/pull?after=0&limit=500`, { headers: auth });
          const body = await reply.text();
          statuses.push(reply.status);
          if (reply.status === 503) refusals.push(JSON.parse(body));
        } catch {
          return; // central stopped listening
        }
      }
    };
    const pullers = Array.from({ length: 8 }, puller);
    while (statuses.length < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    stopping = true;
    const stopped = await stopWith(central, 'SIGTERM');
    await Promise.all(pullers);

    const errors = jsonLines(central.stdout()).filter((line) => Number(line.level) >= 50);
    expect(errors, central.stdout()).toEqual([]);
    expect(withoutScreensWarning(central.stderr())).toBe('');
    expect(stopped.code).toBe(0);
    expect(jsonLines(central.stdout()).map((line) => String(line.msg))).toContain('stopped');
    // What was answered was answered in full; refused ones are 503s, never a 500.
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    // A pull arriving once the stop began is refused in the resource envelope, as any 503 is.
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) expect(refusal).toMatchObject({ code: 'service_unavailable', message: expect.stringContaining('stopping') });
  }, 180_000);
});

describe('a stop whose close waits on something that does not hold the process', () => {
  it('still ends with "stopped" (the process exited mid-close, code 0, without it)', async () => {
    const { spawnSync } = await import('node:child_process');
    // A close that waits on an unref'd timer: nothing else keeps the loop alive once SIGTERM came.
    const script = `import { runUntilSignal } from ${JSON.stringify(new URL('../../src/server/cli/run-until-signal.ts', import.meta.url).pathname)};
      const node = { close: () => new Promise((resolve) => setTimeout(resolve, 300).unref()) };
      // The server's socket holds a real node until its close: here an interval, let go at the signal.
      const serving = setInterval(() => undefined, 1000);
      void runUntilSignal(node, (line) => { clearInterval(serving); console.log(line); });
      setTimeout(() => process.kill(process.pid, 'SIGTERM'), 50);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout.trim().split('\n')).toEqual(['SIGTERM received, shutting down', 'stopped']);
  }, 60_000);
});
