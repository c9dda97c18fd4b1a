import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { electronBuilderArgs, packagingMetadata } from '../../scripts/packaging-metadata.js';
import { ROOT } from '../support/processes';

// Packaging metadata from configuration (issue 17, item 9): the maintainer and homepage come from
// packaging.json or the environment, placeholders are refused, and electron-builder receives them.

const REAL = { PUNCHCARD_MAINTAINER_NAME: 'Corner Café Ltd', PUNCHCARD_MAINTAINER_EMAIL: 'it@cornercafe.co', PUNCHCARD_HOMEPAGE: 'https://cornercafe.co/terminal' };

describe('packaging metadata', () => {
  it('reads packaging.json, the environment winning, and hands it to electron-builder', () => {
    const meta = packagingMetadata({ env: { PUNCHCARD_HOMEPAGE: 'https://shop.example.io' }, file: { maintainer: { name: 'Shop', email: 'ops@shop.example.io' }, homepage: 'https://ignored.io' } });
    expect(meta).toEqual({ ok: true, maintainer: { name: 'Shop', email: 'ops@shop.example.io' }, homepage: 'https://shop.example.io' });
    expect(electronBuilderArgs(meta)).toEqual([
      '--config.extraMetadata.author.name=Shop',
      '--config.extraMetadata.author.email=ops@shop.example.io',
      '--config.extraMetadata.homepage=https://shop.example.io',
      '--config.linux.maintainer=Shop <ops@shop.example.io>',
    ]);
  });

  it('refuses missing values, placeholders and a plain-http homepage', () => {
    expect(packagingMetadata({}).ok).toBe(false);
    const placeholders = packagingMetadata({ env: { PUNCHCARD_MAINTAINER_NAME: 'Dev', PUNCHCARD_MAINTAINER_EMAIL: 'dev@punchcard.local', PUNCHCARD_HOMEPAGE: 'https://punchcard.local' } });
    expect(placeholders.problems).toEqual([expect.stringContaining('placeholder'), expect.stringContaining('placeholder')]);
    expect(packagingMetadata({ env: { ...REAL, PUNCHCARD_HOMEPAGE: 'http://cornercafe.co' } }).problems).toEqual(['the homepage must be an https:// URL']);
    expect(packagingMetadata({ env: REAL }).ok).toBe(true);
  });

  it('`npm run dist` stops before building when the configuration is missing', () => {
    const env = { ...process.env };
    for (const name of Object.keys(REAL)) delete env[name];
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'dist.js')], { cwd: ROOT, env, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/cannot package yet:[\s\S]*maintainer name is missing/);
  });
});
