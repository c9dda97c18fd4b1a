import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';

// electron-builder cannot run here (no Electron binary), so its config is checked against the JSON
// schema electron-builder itself validates with (app-builder-lib/scheme.json), plus what the
// terminal needs from it.

const require = createRequire(import.meta.url);
const yaml = require('js-yaml') as { load(text: string): unknown };
const config = yaml.load(readFileSync('electron-builder.yml', 'utf8')) as Record<string, any>;

describe('electron-builder.yml', () => {
  it('is valid for the installed electron-builder', () => {
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8'));
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    expect(validate(config), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('builds AppImage + deb (needing libusb), nsis and dmg, with native addons outside the asar', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.deb.depends).toContain('libusb-1.0-0');
    expect(config.deb.depends).toContain('libgtk-3-0'); // the default list is replaced, not extended: keep it
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['node_modules/better-sqlite3/**/*', 'node_modules/node-hid/**/*']));
    expect(config.npmRebuild).toBe(true);
    expect(config.files).toEqual(expect.arrayContaining(['out/**/*', 'resources/**/*']));
  });

  it('has an npm script that packages with the maintainer and homepage from configuration', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(pkg.scripts.dist).toBe('node scripts/dist.js');
    const dist = readFileSync('scripts/dist.js', 'utf8');
    expect(dist).toMatch(/'electron-vite', 'build'/);
    expect(dist).toMatch(/'electron-builder', \.\.\.electronBuilderArgs\(meta\)/);
    expect(dist).toMatch(/'rebuild', 'better-sqlite3'/);
    // electron-vite leaves "dependencies" external: the addons must be there to be packaged and rebuilt.
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['better-sqlite3', 'node-hid']));
  });
});
