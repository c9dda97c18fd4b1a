import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The direction of imports is the architecture (docs/architecture.md):
//   renderer, preload -> shared;  server, devices -> core -> shared;  main -> server, devices, core, shared.
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

// Frameworks stay at the edges: the engine and the shared wire types know no HTTP, Electron or React.
const frameworkBan = (names) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: names, message: 'This layer must stay framework-free.' }] }],
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
  { files: ['src/core/**', 'src/devices/**'], rules: frameworkBan(['fastify', '@fastify/*', 'electron', 'react', 'react-dom', 'zustand']) },
  { files: ['src/shared/**'], rules: frameworkBan(['fastify', '@fastify/*', 'electron', 'react', 'kysely', 'pg', 'better-sqlite3', 'node:*']) },
  { files: ['src/renderer/**'], rules: frameworkBan(['node:*', 'kysely', 'pg', 'better-sqlite3', 'fastify', 'electron']) },
  { files: ['bin/**', 'scripts/**', '.ci/**'], languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } } },
);
