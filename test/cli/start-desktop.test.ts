import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript script without types
import { electronBindingPath } from '../../scripts/electron-native.js';
import { freshClone } from '../support/fresh-clone';
import { killLeftovers, launch, ROOT, stopWith, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `npm start -- --kiosk --store=2` used to drop the desktop app's switches (only punchcard.json set
// them from a checkout) and, on the headless path, failed on `--kiosk` as an unknown option of
// `punchcard demo`. Here a fake Electron in a fresh clone stands in for the real one: run as node
// (ELECTRON_RUN_AS_NODE=1, start.js's better-sqlite3 probe) it is node; launched as the app it
// writes the arguments it got to a file and exits.

delete process.env.DISPLAY;
delete process.env.WAYLAND_DISPLAY;
const FIRST_START_MS = 300_000; // the first start builds main, preload and renderer
const clone = makeTempDir('punchcard-start-desktop-');
const data = makeTempDir('punchcard-start-desktop-data-');
const electronArgv = join(clone.path, 'electron-argv.txt');
let START = '';

/** The clone's electron package gets an executable that records its arguments (or is node, to probe). */
function installFakeElectron(root: string): void {
  const electron = join(root, 'node_modules', 'electron');
  const version = (JSON.parse(readFileSync(join(electron, 'package.json'), 'utf8')) as { version: string }).version;
  mkdirSync(join(electron, 'dist'));
  const binary = join(electron, 'dist', 'electron');
  writeFileSync(
    binary,
    [
      '#!/bin/sh',
      `if [ "$ELECTRON_RUN_AS_NODE" = "1" ]; then exec ${JSON.stringify(process.execPath)} "$@"; fi`,
      `printf '%s\\n' "$@" > ${JSON.stringify(electronArgv)}`,
      '',
    ].join('\n'),
  );
  chmodSync(binary, 0o755);
  writeFileSync(join(electron, 'path.txt'), 'electron');
  // The Electron build of better-sqlite3 is already "there" (node's, which the fake runs): no network.
  const binding = electronBindingPath(root, version, process.platform, process.arch) as string;
  mkdirSync(dirname(binding), { recursive: true });
  copyFileSync(join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), binding);
}

beforeAll(() => {
  freshClone(clone.path);
  installFakeElectron(clone.path);
  START = join(clone.path, 'scripts', 'start.js');
});
afterEach(killLeftovers);
afterAll(async () => {
  await killLeftovers();
  clone.remove();
  data.remove();
});

describe('npm start -- <desktop switches>', () => {
  it('passes the desktop switches to Electron, and only them', async () => {
    const running = launch(['--kiosk', '--store=2', '--port', '0'], START, { DISPLAY: ':99' });
    const timer = setTimeout(() => running.child.kill('SIGKILL'), FIRST_START_MS);
    const { code } = await running.exited;
    clearTimeout(timer);
    const out = `${running.stdout()}${running.stderr()}`;
    expect(code, out).toBe(0);
    expect(out).not.toContain("can't open");
    expect(out).not.toContain('not usable'); // the probe ran the fake as node and passed
    expect(existsSync(electronArgv), out).toBe(true);
    // electron-vite launches `<electron> . <switches>`: the app's entry, then exactly the switches.
    expect(readFileSync(electronArgv, 'utf8').split('\n').filter(Boolean)).toEqual(['.', '--kiosk', '--store=2']);
    expect(out).toContain('punchcard: ignored by the desktop app: --port 0 (options of the headless node: `npm start -- --headless --port 0`).');
  }, FIRST_START_MS + 10_000);

  it('on the headless path, says where the kiosk screen is instead of failing on --kiosk', async () => {
    const running = launch(['--headless', '--kiosk', '--store=2', '--data', data.path, '--port', '0'], START);
    const banner = await waitFor(
      'the demo banner',
      () => {
        const url = /demo store node: (http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())?.[1];
        const kioskKey = /kiosk key\s+(pcak_\S+)/.exec(running.stdout())?.[1];
        return url && kioskKey ? { url, kioskKey } : undefined;
      },
      running,
      FIRST_START_MS, // when run alone, it builds the screens
    );
    const out = running.stdout();
    expect(out).toContain(`Starting the headless store node instead (node bin/punchcard.js demo --data ${data.path} --port 0).`);
    expect(out).toContain(
      "punchcard: --kiosk: the headless node opens no kiosk window; the kiosk screen is the node's address (below) in a browser, signed in with the kiosk key (below).",
    );
    expect(out).toContain('punchcard: --store=2: the headless node serves every store in its data folder;');
    // What the note points at works: the kiosk key signs a screen in as the kiosk.
    expect((await http(`${banner.url}/app/terminal?api_key=${banner.kioskKey}`)).body.role).toBe('kiosk');
    expect((await stopWith(running, 'SIGTERM')).code).toBe(0);
  }, FIRST_START_MS + 30_000);

  it('refuses a value switch without its value, before starting anything', async () => {
    const running = launch(['--headless', '--store', '--data', data.path], START);
    const { code } = await running.exited;
    expect(code).toBe(2);
    expect(running.stderr()).toContain('punchcard: --store needs a value (--store=ID).');
    expect(running.stdout()).not.toContain('Starting the headless store node');
  }, 60_000);
});
