/// <reference types="vite/client" />

// What the Electron preload exposes (src/preload/index.ts). Absent when the renderer is served by a
// headless store node to a plain browser: the page then talks to its own origin.
interface PunchcardBridge {
  readonly nodeUrl: string;
  readonly role: 'cashier' | 'kiosk';
  readonly credential: string;
  quit?(): Promise<void>;
}

interface Window {
  readonly punchcard?: PunchcardBridge;
}
