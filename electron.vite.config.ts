import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

// electron-vite 6 (Vite 8 / Rolldown). Paths are relative to the repository root (where this file is).
// - main: ESM (package.json has "type": "module"), out/main/index.js = package.json "main".
// - preload: one CommonJS file, out/preload/index.cjs. A sandboxed preload is not loaded by Node's
//   module system: it cannot be ESM and cannot require chunks, so code splitting is off.
// - renderer: the React app in src/renderer, out/renderer/index.html.
// `build.externalizeDeps` (default true in electron-vite 6; the old externalizeDepsPlugin is deprecated)
// leaves every package.json "dependencies" entry (better-sqlite3, fastify, pino, kysely, pg…) to be
// required at run time from node_modules; electron and Node builtins are always external.
const root = import.meta.dirname;

/**
 * A baseline CSP in the built index.html. The Electron main process also sends an exact CSP header
 * (connect-src = the node's origin and port); both apply, so the stricter wins. The meta one still
 * holds where no header is added: a file:// load if webRequest misses it, or the page served by a
 * headless node to a LAN browser ('self' is then the node). Build only: Vite's dev server needs
 * inline scripts and its WebSocket.
 */
function baselineCsp(): Plugin {
  const policy = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self' http://127.0.0.1:* http://localhost:*",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return {
    name: 'punchcard:baseline-csp',
    apply: 'build',
    transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: policy }, injectTo: 'head-prepend' }],
  };
}

export default defineConfig({
  main: {
    build: {
      externalizeDeps: true,
      rolldownOptions: {
        input: { index: resolve(root, 'src/main/index.ts') },
      },
    },
  },
  preload: {
    build: {
      externalizeDeps: true,
      rolldownOptions: {
        input: { index: resolve(root, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src/renderer'),
    plugins: [react(), baselineCsp()],
    build: {
      // Tablets on the store's Wi-Fi load it from a headless node: keep it small.
      minify: true,
      rolldownOptions: {
        input: { index: resolve(root, 'src/renderer/index.html') },
      },
    },
  },
});
