import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { makeTempDir } from './temp-dir';

// A real, tiny file system for the tests of a full disk: a tmpfs, which needs root and the right to
// mount (CI runs as root). Mounted when the test file is loaded, so `describe.runIf(disk.mounted)`
// can say whether its tests run; `remove()` unmounts and deletes it.

export interface SmallDisk {
  /** Where it is mounted (when `mounted`). */
  path: string;
  mounted: boolean;
  /** Unmounts it and removes its folder. */
  remove(): void;
}

/** A tmpfs of `options` (`size=8m`, `size=256k,nr_inodes=4`), or an unmounted folder where this user may not mount. */
export function mountSmallDisk(prefix: string, options: string): SmallDisk {
  const scratch = makeTempDir(prefix);
  const path = `${scratch.path}/disk`;
  mkdirSync(path);
  const mounted = (() => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', path], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  return {
    path,
    mounted,
    remove: () => {
      if (mounted) execFileSync('umount', ['-l', path]);
      scratch.remove();
    },
  };
}

/** Fills the file system with `file` until it has no byte left. */
export function fillDisk(file: string): void {
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
