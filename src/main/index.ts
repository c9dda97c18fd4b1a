import { join } from 'node:path';
import { app, type BrowserWindow, dialog, ipcMain, session } from 'electron';
import icon from '../../resources/icon.png?asset';
import { IPC_QUIT } from '../shared/desktop-bridge';
import { type DesktopNode, startDesktopNode } from './desktop-node';
import { hardenSession, isAppUrl, type RendererSource } from './security';
import { createCashierWindow } from './window';

// Electron main: thin on purpose. Boots the in-process store node, opens the cashier window,
// closes the node on quit. Everything testable lives in src/server, src/core and src/renderer.

const renderer: RendererSource =
  !app.isPackaged && process.env.ELECTRON_RENDERER_URL
    ? { kind: 'dev', url: process.env.ELECTRON_RENDERER_URL }
    : { kind: 'file', file: join(import.meta.dirname, '../renderer/index.html') };

let desktop: DesktopNode | null = null;
let cashier: BrowserWindow | null = null;
let closing: Promise<void> | null = null;
let nodeClosed = false;

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

async function start(): Promise<void> {
  desktop = await startDesktopNode(app.getPath('userData'));
  const nodeOrigin = new URL(desktop.node.url).origin;
  hardenSession(session.defaultSession, { node: nodeOrigin, renderer });

  ipcMain.handle(IPC_QUIT, (event) => {
    if (!isAppUrl(event.senderFrame?.url, renderer)) throw new Error('quit is only for the app window');
    app.quit();
  });

  cashier = createCashierWindow({
    launch: { nodeUrl: nodeOrigin, role: 'cashier', credential: desktop.cashierCredential },
    preload: join(import.meta.dirname, '../preload/index.cjs'),
    renderer,
    icon,
  });
  cashier.on('closed', () => {
    cashier = null;
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

  // Close the node (requests finish, database closes) before the process goes away.
  app.on('before-quit', (event) => {
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
