import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronSqliteBindingPath, resolveSqliteBinding } from '../../src/main/native-binding';
// @ts-expect-error plain JavaScript script without types
import { electronBindingPath } from '../../scripts/electron-native.js';

// Two builds of better-sqlite3 from one checkout: node_modules' for Node, .native/'s for Electron.

describe('better-sqlite3 binding for the desktop app', () => {
  const context = { isPackaged: false, root: '/repo', electronVersion: '41.7.1', platform: 'linux', arch: 'x64' };

  it('uses the Electron build in .native/ when it exists', () => {
    const expected = join('/repo', '.native', 'electron-41.7.1-linux-x64', 'better_sqlite3.node');
    expect(resolveSqliteBinding({ ...context, exists: (p) => p === expected })).toEqual({ binding: expected });
  });

  it('warns (and leaves the default) when it was never built', () => {
    const choice = resolveSqliteBinding({ ...context, exists: () => false });
    expect(choice.binding).toBeUndefined();
    expect(choice.warning).toContain('scripts/electron-native.js');
  });

  it('leaves a packaged app (rebuilt by electron-builder) and plain Node to node_modules', () => {
    expect(resolveSqliteBinding({ ...context, isPackaged: true, exists: () => true })).toEqual({ binding: undefined });
    expect(resolveSqliteBinding({ ...context, electronVersion: undefined, exists: () => true })).toEqual({ binding: undefined });
  });

  it('puts the build where the build script puts it', () => {
    expect(electronSqliteBindingPath('/repo', '41.7.1', 'win32', 'arm64')).toBe(electronBindingPath('/repo', '41.7.1', 'win32', 'arm64'));
  });
});

describe('openSqlite with a chosen addon', () => {
  it('loads the addon it is given (here node_modules’ own build), and fails on a missing one', async () => {
    const { createRequire } = await import('node:module');
    const { dirname } = await import('node:path');
    const { sql } = await import('kysely');
    const { openSqlite } = await import('../../src/core/storage/database');
    const own = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    const database = openSqlite(':memory:', { nativeBinding: own });
    try {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
    }
    expect(() => openSqlite(':memory:', { nativeBinding: '/nonexistent/better_sqlite3.node' })).toThrow();
  });
});
