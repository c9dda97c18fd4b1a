import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftovers, launch, listeningUrl, run, stopWith, withoutScreensWarning } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// A till restarted after its disk filled (a Windows update, a camera's recordings): `punchcard
// store` on a data folder whose disk has no byte left cannot even make SQLite's shared-memory file
// (SQLITE_IOERR_SHMSIZE). It was a stack trace ("SqliteError: disk I/O error"); it is one line
// saying the disk is full and what to do, exit 1 — and once space is freed the same command
// starts and sells. Needs root for the tmpfs (CI runs as root); skipped otherwise.

const scratch = makeTempDir('h-disk-start-');
const mountPoint = `${scratch.path}/disk`;
mkdirSync(mountPoint);
const mounted = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

afterAll(async () => {
  await killLeftovers();
  if (mounted) execFileSync('umount', ['-l', mountPoint]);
  scratch.remove();
});

/** Fills the file system with `file` until it has no byte left. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [64 * 1024, 4096, 512, 1]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size));
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!mounted)('punchcard store started on a full disk (root: a tmpfs)', () => {
  it('says in one line that the disk is full and exits 1, then starts once there is room', async () => {
    const data = `${mountPoint}/data`;
    const init = await run(['init', '--data', data, '--vendor', 'Corner Shop', '--json'], {}, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const token = (JSON.parse(init.stdout.trim()) as { access_token: string }).access_token;

    const filler = `${mountPoint}/filler`;
    fill(filler);
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
