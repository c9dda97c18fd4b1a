import { contextBridge, ipcRenderer } from 'electron';
import { decodeLaunchArg, IPC_QUIT } from '../shared/desktop-bridge';

// Sandboxed preload: bundled to one CommonJS file (out/preload/index.cjs), may require only 'electron'.
// Exposes the node's URL, the window's role and its credential, plus quit(). Nothing else.
const args = decodeLaunchArg(process.argv);

if (args) {
  contextBridge.exposeInMainWorld('punchcard', {
    nodeUrl: args.nodeUrl,
    role: args.role,
    credential: args.credential,
    quit: (): Promise<void> => ipcRenderer.invoke(IPC_QUIT),
  });
}
