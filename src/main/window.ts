import { BrowserWindow, type Rectangle } from 'electron';
import { encodeLaunchArg, type LaunchArgs } from '../shared/desktop-bridge';
import type { RendererSource } from './security';
import type { WindowCredentials } from './window-credentials';

export interface WindowOptions {
  launch: LaunchArgs;
  /** The window's key, handed to its preload over IPC (never on the command line). */
  credential: string;
  credentials: WindowCredentials;
  preload: string;
  renderer: RendererSource;
  icon: string;
}

/** Locked down for every window: no Node, sandboxed, isolated, web security on. */
function webPreferences(options: WindowOptions): Electron.WebPreferences {
  return {
    preload: options.preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
    additionalArguments: [encodeLaunchArg(options.launch)],
  };
}

/** Registers the window's key before its page loads; forgotten when the window goes. */
function handOver(window: BrowserWindow, options: WindowOptions): void {
  const id = window.webContents.id;
  options.credentials.set(id, options.credential);
  window.once('closed', () => options.credentials.forget(id));
}

function load(window: BrowserWindow, renderer: RendererSource): void {
  window.once('ready-to-show', () => window.show());
  if (renderer.kind === 'dev') void window.loadURL(renderer.url);
  else void window.loadFile(renderer.file);
}

/** The cashier window. */
export function createCashierWindow(options: WindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    title: 'Punchcard',
    width: 1280,
    height: 800,
    minWidth: 800,
    minHeight: 600,
    show: false,
    icon: options.icon,
    autoHideMenuBar: true,
    webPreferences: webPreferences(options),
  });
  handOver(window, options);
  load(window, options.renderer);
  return window;
}

/**
 * The self check-in window: full screen in kiosk mode on the given screen, no menu, not closable by
 * the customer (quitting the app closes it). Its credential is a kiosk-role key.
 */
export function createKioskWindow(options: WindowOptions & { bounds: Rectangle }): BrowserWindow {
  const window = new BrowserWindow({
    title: 'Punchcard kiosk',
    x: options.bounds.x,
    y: options.bounds.y,
    width: options.bounds.width,
    height: options.bounds.height,
    show: false,
    icon: options.icon,
    frame: false,
    fullscreen: true,
    kiosk: true,
    closable: false,
    minimizable: false,
    autoHideMenuBar: true,
    backgroundColor: '#ffffff',
    webPreferences: webPreferences(options),
  });
  window.setMenu(null);
  handOver(window, options);
  load(window, options.renderer);
  return window;
}
