import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The import direction of docs/architecture.md is enforced by ESLint; these cases prove the rule
// fires on each forbidden edge and stays quiet on allowed ones.
const eslint = new ESLint({ cwd: process.cwd() });

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('import direction', () => {
  it.each([
    ['src/core/x.ts', "import { buildApp } from '../server/app';\nexport const x = buildApp;"],
    ['src/shared/x.ts', "import { startEngine } from '../core/engine';\nexport const x = startEngine;"],
    ['src/renderer/src/x.ts', "import { startEngine } from '../../core/engine';\nexport const x = startEngine;"],
    ['src/server/x.ts', "import * as m from '../main/index';\nexport const x = m;"],
    ['src/devices/x.ts', "import { buildApp } from '../server/app';\nexport const x = buildApp;"],
  ])('refuses %s importing a layer it must not see', async (filePath, code) => {
    expect(await violations(filePath, code)).toContain('import-x/no-restricted-paths');
  });

  it.each([
    ['src/core/x.ts', "import Fastify from 'fastify';\nexport const x = Fastify;"],
    ['src/shared/x.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;"],
  ])('keeps frameworks and Node out of %s', async (filePath, code) => {
    expect(await violations(filePath, code)).toContain('no-restricted-imports');
  });

  it.each([
    ['src/server/x.ts', "import { startEngine } from '../core/engine';\nexport const x = startEngine;"],
    ['src/core/x.ts', "import { ServiceError } from '../shared/errors';\nexport const x = ServiceError;"],
  ])('allows %s importing downward', async (filePath, code) => {
    expect(await violations(filePath, code)).toEqual([]);
  });
});
