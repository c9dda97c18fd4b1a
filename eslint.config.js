import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The direction of imports is the architecture (docs/architecture.md):
//   renderer, preload -> shared;  server -> devices -> core -> shared (server -> core too);  main -> server, devices, core, shared.
// Nothing imports main or renderer. This rule keeps that picture true.
const layers = ['shared', 'core', 'server', 'devices', 'main', 'preload', 'renderer'];
const allowed = {
  shared: [],
  core: ['shared'],
  devices: ['core', 'shared'],
  server: ['core', 'devices', 'shared'],
  main: ['server', 'devices', 'core', 'shared'],
  preload: ['shared'],
  renderer: ['shared'],
};
const zones = layers.map((layer) => ({
  target: `./src/${layer}`,
  from: layers.filter((other) => other !== layer && !allowed[layer].includes(other)).map((other) => `./src/${other}`),
  message: `src/${layer} may import only from ${allowed[layer].map((l) => `src/${l}`).join(', ') || 'itself'} (see docs/architecture.md).`,
}));

// Packages stay in their layer: the engine and the shared wire types know no HTTP, Electron or React;
// only src/main and src/preload see Electron, only the renderer React; node-hid lives in src/devices.
// One list per layer (a file gets one no-restricted-imports setting: the last block matching it wins).
// test/architecture/layer-packages.test.ts proves each list fires.
const nodeBuiltins = ['node:*', ...builtinModules.filter((name) => !name.startsWith('_'))];
const ui = ['react', 'react-dom', 'zustand', '@mantine/*', 'recharts'];
// Anchored at the start of the specifier, so a folder of our own named like a package ('../events')
// is not mistaken for it; `*` stands for one path segment ('node:*', '@fastify/*').
const pattern = (names) => names.map((name) => name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '[^/]+')).join('|');
const ban = (names, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ regex: `^(${pattern(names)})(/|$)`, message }] }],
});
// An allow-list: anything but a relative path and the named packages is refused.
const only = (names, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ regex: `^(?!\\.\\.?/|(${pattern(names)})(/|$))`, message }] }],
});

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': ['error', { maxDepth: 8 }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['src/core/**'], rules: ban(['fastify', '@fastify/*', 'electron', 'node-hid', ...ui], 'src/core stays framework-free: no HTTP, Electron, React or node-hid.') },
  { files: ['src/devices/**'], rules: ban(['fastify', '@fastify/*', 'electron', ...ui], 'src/devices is plain Node: no HTTP, Electron or React.') },
  { files: ['src/server/**'], rules: ban(['electron', 'node-hid', ...ui], 'src/server knows no Electron or React, and reaches scanners through src/devices.') },
  { files: ['src/main/**'], rules: ban(['node-hid', ...ui], 'src/main reaches scanners through src/devices and draws nothing itself.') },
  { files: ['src/shared/**'], rules: only(['typebox'], 'src/shared runs everywhere, the renderer included: TypeBox and its own files only.') },
  { files: ['src/preload/**'], rules: only(['electron'], 'The sandboxed preload sees Electron and src/shared only.') },
  { files: ['src/renderer/**'], rules: ban([...nodeBuiltins, 'kysely', 'pg', 'better-sqlite3', 'fastify', '@fastify/*', 'electron', 'node-hid', 'pino', 'nodemailer'], 'The renderer is a browser client of the node: no Node builtins or server packages.') },
  { files: ['bin/**', 'scripts/**', '.ci/**'], languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } } },
);
