import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes';

/**
 * A fresh clone of the working tree (tracked and new files, no out/), sharing this checkout's
 * node_modules, except electron: a copy of the package without its binary, so the clone is a
 * machine where the download never happened whatever this one has.
 */
export function freshClone(into: string): void {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    try {
      cpSync(join(ROOT, file), join(into, file));
    } catch {
      // listed but deleted in the working tree
    }
  }
  const modules = join(into, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name !== 'electron') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  cpSync(join(ROOT, 'node_modules', 'electron'), join(modules, 'electron'), {
    recursive: true,
    filter: (source) => !/[\\/]electron[\\/](dist|path\.txt)/.test(source.slice(ROOT.length)),
  });
}
