import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, killLeftovers, launch, listeningUrl, run, stopWith } from '../support/processes';
import { fillDisk, mountSmallDisk } from '../support/small-disk';
import { http } from '../support/test-node';

// `punchcard store` whose data folder is on a real, tiny file system (a tmpfs: needs root) that
// fills up: a write answers 503 storage_unavailable with Retry-After, the log says what to fix, and
// the node writes again once there is room. (A read-only remount is refused while the node holds its
// files open; database-unavailable.test.ts shows SQLITE_READONLY with the write connection's query_only.)

const disk = mountSmallDisk('h-dbdown-disk-', 'size=16m');
const mountPoint = disk.path;

afterAll(async () => {
  await killLeftovers();
  disk.remove();
});

describe.runIf(disk.mounted)('punchcard store on a disk that fills up (root: a tmpfs)', () => {
  it('answers 503 storage_unavailable with Retry-After, logs what to fix, and writes again once there is room', async () => {
    const data = `${mountPoint}/data`;
    const init = await run(['init', '--data', data, '--vendor', 'Corner Shop', '--json'], {}, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const token = (JSON.parse(init.stdout.trim()) as { access_token: string }).access_token;
    const store = launch(['store', '--data', data, '--port', '0']);
    const url = await listeningUrl(store, 'store');
    let n = 0;
    const addCard = () => http(`${url}/cards`, { method: 'POST', token, body: { number: `FULL${++n}` } });
    expect((await addCard()).status).toBe(201);

    // Full.
    const filler = `${mountPoint}/filler`;
    fillDisk(filler);
    let reply = await addCard();
    for (let i = 0; reply.status === 201 && i < 2_000; i += 1) reply = await addCard();
    expect(reply.status, JSON.stringify(reply.body)).toBe(503);
    expect(reply.body).toMatchObject({ code: 'storage_unavailable', message: expect.stringMatching(/try again/i) });
    expect(reply.headers.get('retry-after')).toBe('30');
    expect(JSON.stringify(reply.body)).not.toMatch(/SQLITE|disk|\/tmp/);
    expect((await http(`${url}/cards`, { token })).status).toBe(200);
    rmSync(filler);
    expect((await addCard()).status).toBe(201);

    await stopWith(store, 'SIGTERM');
    const lines = jsonLines(store.stdout()).filter((line) => line.code === 'storage_unavailable');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.every((line) => Number(line.level) === 50)).toBe(true);
    expect(String(lines[0]!.cause)).toMatch(/^SQLITE_FULL/);
    expect(String(lines[0]!.msg)).toMatch(/is full/);
  }, 180_000);
});
