#!/usr/bin/env node
// CI: a newcomer's first start on this fresh clone. Runs `npm start -- --headless` (which must build
// the screens it lacks and say so), waits for the demo banner, opens `/` in Chromium, signs in with
// the printed cashier key and waits for the cashier screen; then stops the node. Exit 1 on any miss.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const BANNER_TIMEOUT_MS = 10 * 60_000; // the first start builds the screens: minutes on a slow runner
const UI_TIMEOUT_MS = 30_000;
const data = mkdtempSync(join(tmpdir(), 'punchcard-first-start-'));

const child = spawn('npm', ['start', '--', '--headless', '--port', '0', '--data', data], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
let out = '';
child.stdout.setEncoding('utf8').on('data', (chunk) => {
  out += chunk;
  process.stdout.write(chunk);
});

function stop() {
  // npm start runs under its own process group: end all of it.
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

async function banner() {
  const deadline = Date.now() + BANNER_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const url = /demo store node: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    const cashierKey = /cashier key\s+(pcak_\S+)/.exec(out)?.[1];
    if (url && cashierKey) return { url, cashierKey };
    if (child.exitCode !== null) throw new Error(`npm start ended (exit ${child.exitCode}) before its banner`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('npm start printed no banner in time');
}

let failure = null;
let browser = null;
try {
  const { url, cashierKey } = await banner();
  if (!/building the screens with `electron-vite build` \(out\/renderer is missing\)/.test(out)) throw new Error('npm start did not say it built the screens (is out/ left from an earlier build?)');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage();
  page.setDefaultTimeout(UI_TIMEOUT_MS);
  const reply = await page.goto(url);
  if (reply?.status() !== 200) throw new Error(`GET / answered ${reply?.status()}`);
  await page.getByLabel('Store key').fill(cashierKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('login').waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Settings' }).waitFor();
  console.log(`first start: ${url}/ shows the sign-in screen and, with the cashier key, the cashier screen`);
} catch (error) {
  failure = error;
} finally {
  await browser?.close();
  stop();
  rmSync(data, { recursive: true, force: true });
}
if (failure) {
  console.error(`first start failed: ${failure.message}`);
  process.exit(1);
}
