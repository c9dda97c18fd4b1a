// `?asset` imports and friends, handled by electron-vite's main/preload build.
/// <reference types="electron-vite/node" />
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, type IpcMainInvokeEvent, screen, session } from 'electron';
import icon from '../../resources/icon.png?asset';
import { IPC_CREDENTIAL, IPC_QUIT, IPC_TOGGLE_FULL_SCREEN } from '../shared/desktop-bridge';
import { WindowCredentials } from './window-credentials';
import { type DesktopConfig, loadDesktopConfig } from './desktop-config';
import { type DesktopNode, startDesktopNode } from './desktop-node';
import { chooseKioskDisplay } from './displays';
import { resolveSqliteBinding } from './native-binding';
import { hardenSession, isAppUrl, type RendererSource } from './security';
import { createCashierWindow, createKioskWindow } from './window';

// Electron main: thin on purpose. Reads the terminal's config, boots the in-process store node (HID
// scanners on), opens the cashier window and, when configured, the kiosk window; closes the node on
// quit. Everything testable lives in the modules it imports (config, displays, keys, binding path).

const renderer: RendererSource =
  !app.isPackaged && process.env.ELECTRON_RENDERER_URL
    ? { kind: 'dev', url: process.env.ELECTRON_RENDERER_URL }
    : { kind: 'file', file: join(import.meta.dirname, '../renderer/index.html') };

let desktop: DesktopNode | null = null;
let cashier: BrowserWindow | null = null;
let kiosk: BrowserWindow | null = null;
let closing: Promise<void> | null = null;
let nodeClosed = false;
/** The windows' keys, handed to their preloads over IPC. */
const credentials = new WindowCredentials();

// Every web contents: no pop-ups, no navigation away from the app, no <webview>.
app.on('web-contents-created', (_event, contents) => {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url, renderer)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url, renderer)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

/** IPC only from the app's own pages. */
function appWindowOf(event: IpcMainInvokeEvent): BrowserWindow {
  const window = BrowserWindow.fromWebContents(event.sender);
  if (!window || !isAppUrl(event.senderFrame?.url, renderer)) throw new Error('only for the app windows');
  return window;
}

function openKiosk(config: DesktopConfig, node: DesktopNode, preload: string): void {
  const choice = chooseKioskDisplay(screen.getAllDisplays(), screen.getPrimaryDisplay().id, config.kiosk.display);
  if (!choice) return;
  if (choice.note) node.logger.warn(choice.note);
  kiosk = createKioskWindow({
    launch: { nodeUrl: new URL(node.node.url).origin, role: 'kiosk' },
    credential: node.keys.kiosk,
    credentials,
    preload,
    renderer,
    icon,
    bounds: choice.display.bounds,
  });
  kiosk.on('closed', () => {
    kiosk = null;
  });
}

async function start(): Promise<void> {
  const userData = app.getPath('userData');
  const { config, problems, file } = loadDesktopConfig(userData, process.argv);
  const sqlite = resolveSqliteBinding({
    isPackaged: app.isPackaged,
    root: join(import.meta.dirname, '../..'),
    electronVersion: process.versions.electron,
    platform: process.platform,
    arch: process.arch,
    exists: existsSync,
  });
  desktop = await startDesktopNode({ userDataDir: userData, config, sqliteNativeBinding: sqlite.binding });
  const { logger } = desktop;
  for (const problem of problems) logger.warn({ file }, `desktop config: ${problem}`);
  if (sqlite.warning) logger.warn(sqlite.warning);

  const nodeOrigin = new URL(desktop.node.url).origin;
  hardenSession(session.defaultSession, { node: nodeOrigin, renderer });

  ipcMain.on(IPC_CREDENTIAL, (event) => {
    event.returnValue = credentials.answer(event.sender.id, isAppUrl(event.senderFrame?.url, renderer));
  });
  ipcMain.handle(IPC_QUIT, (event) => {
    appWindowOf(event);
    app.quit();
  });
  ipcMain.handle(IPC_TOGGLE_FULL_SCREEN, (event) => {
    const window = appWindowOf(event);
    // The kiosk window leaves kiosk mode (staff maintenance) and comes back; the cashier's goes full screen.
    if (window === kiosk) window.setKiosk(!window.isKiosk());
    else window.setFullScreen(!window.isFullScreen());
    return window === kiosk ? window.isKiosk() : window.isFullScreen();
  });

  const preload = join(import.meta.dirname, '../preload/index.cjs');
  cashier = createCashierWindow({
    launch: { nodeUrl: nodeOrigin, role: 'cashier' },
    credential: desktop.keys.cashier,
    credentials,
    preload,
    renderer,
    icon,
  });
  cashier.on('closed', () => {
    cashier = null;
    // The kiosk window cannot be closed by a customer; closing the cashier window ends the app.
    app.quit();
  });
  if (config.kiosk.enabled) openKiosk(config, desktop, preload);

  // After pairing or unpairing from Settings the node runs on another database: each window gets
  // the key minted there and reloads (its preload asks for the key again).
  desktop.onKeysReplaced((keys) => {
    for (const [window, key] of [
      [cashier, keys.cashier],
      [kiosk, keys.kiosk],
    ] as const) {
      if (!window || window.isDestroyed()) continue;
      credentials.set(window.webContents.id, key);
      window.webContents.reload();
    }
  });
}

if (!app.requestSingleInstanceLock()) {
  // Another terminal instance owns the data folder: it gets focus (below), this one leaves.
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!cashier) return;
    if (cashier.isMinimized()) cashier.restore();
    cashier.focus();
  });

  app.on('window-all-closed', () => app.quit());

  // Close the node (scanners stop, requests finish, database closes) before the process goes away.
  app.on('before-quit', (event) => {
    // The kiosk window is not closable by hand; quitting must still be able to close it.
    kiosk?.setClosable(true);
    if (!desktop || nodeClosed) return;
    event.preventDefault();
    if (closing) return;
    const { node, logger } = desktop;
    closing = node
      .close()
      .catch((error: unknown) => logger.error({ err: error }, 'closing the store node failed'))
      .finally(() => {
        logger.flush();
        nodeClosed = true;
        app.quit();
      });
  });

  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      dialog.showErrorBox('Punchcard could not start', error instanceof Error ? error.message : String(error));
      app.exit(1);
    });
}
