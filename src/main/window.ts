import { BrowserWindow } from 'electron';
import { encodeLaunchArg, type LaunchArgs } from '../shared/desktop-bridge';
import type { RendererSource } from './security';

export interface WindowOptions {
  launch: LaunchArgs;
  preload: string;
  renderer: RendererSource;
  icon: string;
}

/** The cashier window. Locked down: no Node, sandboxed, isolated, web security on. */
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
    webPreferences: {
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
    },
  });
  window.once('ready-to-show', () => window.show());
  if (options.renderer.kind === 'dev') void window.loadURL(options.renderer.url);
  else void window.loadFile(options.renderer.file);
  return window;
}
