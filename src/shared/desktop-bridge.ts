// The main -> preload contract of the desktop app: what a window learns at launch. The node's
// address and the window's role travel as one command-line switch of its renderer process
// (webPreferences.additionalArguments); the window's key does not — process arguments are visible
// to every local user (`ps`) — the preload asks main for it once over IPC (IPC_CREDENTIAL). Web
// globals only (btoa/atob, TextEncoder/TextDecoder), so the sandboxed preload can use it too.

export type WindowRole = 'cashier' | 'kiosk';

export interface LaunchArgs {
  /** Origin of the store node's HTTP interface, e.g. http://127.0.0.1:43121 (no trailing slash). */
  nodeUrl: string;
  role: WindowRole;
}

export const LAUNCH_SWITCH = '--punchcard=';

/** IPC channels the preload may invoke. Keep this list tiny. */
/** Synchronous: the calling window's key (a string), or null for a window main did not open. */
export const IPC_CREDENTIAL = 'punchcard:credential';
export const IPC_QUIT = 'punchcard:quit';
/** Full screen on/off for the calling window (the kiosk window: kiosk mode); answers the new state. */
export const IPC_TOGGLE_FULL_SCREEN = 'punchcard:toggle-full-screen';

/** What a window sees as `window.punchcard` (absent in a plain browser). */
export interface PunchcardBridge {
  readonly nodeUrl: string;
  readonly role: WindowRole;
  /** The window's API key: send it as `api_key` to the in-store endpoints and GET /app/events. */
  readonly credential: string;
  quit(): Promise<void>;
  toggleFullScreen(): Promise<boolean>;
}

/** --punchcard=<base64url(JSON)>, so the value survives any command-line quoting. */
export function encodeLaunchArg(args: LaunchArgs): string {
  const bytes = new TextEncoder().encode(JSON.stringify(args));
  const b64 = btoa(String.fromCharCode(...bytes));
  return LAUNCH_SWITCH + b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Finds and checks the switch; null when it is missing or malformed. */
export function decodeLaunchArg(argv: readonly string[]): LaunchArgs | null {
  const raw = argv.find((arg) => arg.startsWith(LAUNCH_SWITCH));
  if (!raw) return null;
  try {
    const b64 = raw.slice(LAUNCH_SWITCH.length).replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof value !== 'object' || value === null) return null;
    const { nodeUrl, role } = value as Record<string, unknown>;
    if (typeof nodeUrl !== 'string' || !/^https?:\/\/[^/]+$/.test(nodeUrl)) return null;
    if (role !== 'cashier' && role !== 'kiosk') return null;
    return { nodeUrl, role };
  } catch {
    return null;
  }
}
