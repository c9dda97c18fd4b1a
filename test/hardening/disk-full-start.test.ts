import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftovers, launch, listeningUrl, run, stopWith, withoutScreensWarning } from '../support/processes';
import { fillDisk, mountSmallDisk } from '../support/small-disk';
import { http } from '../support/test-node';

// A till restarted after its disk filled (a Windows update, a camera's recordings): `punchcard
// store` on a data folder whose disk has no byte left cannot even make SQLite's shared-memory file
// (SQLITE_IOERR_SHMSIZE). It was a stack trace ("SqliteError: disk I/O error"); it is one line
// saying the disk is full and what to do, exit 1 — and once space is freed the same command
// starts and sells. Needs root for the tmpfs (CI runs as root); skipped otherwise.

const disk = mountSmallDisk('h-disk-start-', 'size=8m');
const mountPoint = disk.path;

afterAll(async () => {
  await killLeftovers();
  disk.remove();
});

describe.runIf(disk.mounted)('punchcard store started on a full disk (root: a tmpfs)', () => {
  it('says in one line that the disk is full and exits 1, then starts once there is room', async () => {
    const data = `${mountPoint}/data`;
    const init = await run(['init', '--data', data, '--vendor', 'Corner Shop', '--json'], {}, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const token = (JSON.parse(init.stdout.trim()) as { access_token: string }).access_token;

    const filler = `${mountPoint}/filler`;
    fillDisk(filler);
    const refused = await run(['store', '--data', data, '--port', '0'], {}, 60_000);
    const stderr = withoutScreensWarning(refused.stderr);
    expect(refused.code, stderr).toBe(1);
    expect(stderr).toMatch(/^punchcard: the data folder's database cannot be used \(SQLITE_[A-Z_]+\): the disk holding the database is full.*free space there.*run it again/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/^\s+at /m);

    rmSync(filler);
    const store = launch(['store', '--data', data, '--port', '0']);
    const url = await listeningUrl(store, 'store');
    expect((await http(`${url}/cards`, { method: 'POST', token, body: { number: 'AFTER1' } })).status).toBe(201);
    expect((await stopWith(store, 'SIGTERM')).code).toBe(0);
  }, 120_000);
});
