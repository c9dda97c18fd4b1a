import { spawnSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './processes';

/** Debian's Chromium (apt-get install chromium); Playwright never downloads a browser here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Builds main, preload and the renderer from the current sources into out/ (about 2 s). */
export function buildRenderer(): string {
  const result = spawnSync(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`electron-vite build failed:\n${result.stdout}\n${result.stderr}`);
  return `${ROOT}out/renderer`;
}
