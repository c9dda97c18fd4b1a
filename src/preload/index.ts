import { contextBridge, ipcRenderer } from 'electron';
import { decodeLaunchArg, IPC_CREDENTIAL, IPC_QUIT, IPC_TOGGLE_FULL_SCREEN, type PunchcardBridge } from '../shared/desktop-bridge';

// Sandboxed preload: bundled to one CommonJS file (out/preload/index.cjs), may require only 'electron'.
// Exposes the node's URL, the window's role and its credential, plus quit() and toggleFullScreen().
// Nothing else: the renderer talks to the node over HTTP like any browser.
const args = decodeLaunchArg(process.argv);
// The key is not on the command line (local users could read it in `ps`): main hands it over here.
const credential: unknown = args ? ipcRenderer.sendSync(IPC_CREDENTIAL) : null;

if (args && typeof credential === 'string') {
  const bridge: PunchcardBridge = {
    nodeUrl: args.nodeUrl,
    role: args.role,
    credential,
    quit: (): Promise<void> => ipcRenderer.invoke(IPC_QUIT),
    toggleFullScreen: (): Promise<boolean> => ipcRenderer.invoke(IPC_TOGGLE_FULL_SCREEN),
  };
  contextBridge.exposeInMainWorld('punchcard', bridge);
}
