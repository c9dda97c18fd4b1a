import { join } from 'node:path';

// better-sqlite3 12 is a NAN addon, built for one ABI. node_modules keeps the Node build (tests, CLI,
// headless node); `npm start` builds an Electron copy once into .native/ (scripts/electron-native.js)
// and the desktop app opens SQLite with it through better-sqlite3's `nativeBinding` option. A packaged
// app needs none: electron-builder rebuilds its own node_modules copy for Electron (npmRebuild).

/** Where the Electron build lives: one folder per Electron version, platform and architecture. */
export function electronSqliteBindingPath(root: string, electronVersion: string, platform: string, arch: string): string {
  return join(root, '.native', `electron-${electronVersion}-${platform}-${arch}`, 'better_sqlite3.node');
}

export interface BindingContext {
  isPackaged: boolean;
  /** The checkout's root (in development, two folders above out/main). */
  root: string;
  electronVersion: string | undefined;
  platform: string;
  arch: string;
  exists: (path: string) => boolean;
}

export type BindingChoice =
  | { binding: string | undefined; warning?: undefined }
  | { binding: undefined; warning: string };

/** The addon the desktop app should load, or undefined for node_modules' own copy. */
export function resolveSqliteBinding(context: BindingContext): BindingChoice {
  if (context.isPackaged || !context.electronVersion) return { binding: undefined };
  const path = electronSqliteBindingPath(context.root, context.electronVersion, context.platform, context.arch);
  if (context.exists(path)) return { binding: path };
  return {
    binding: undefined,
    warning: `no Electron build of better-sqlite3 at ${path}; run \`node scripts/electron-native.js\` (npm start does it) — node_modules' copy is built for Node and will likely fail to load`,
  };
}
