import { pathToFileURL } from 'node:url';
import type { Session } from 'electron';

/** Where the renderer comes from: the Vite dev server in development, the built files otherwise. */
export type RendererSource = { kind: 'dev'; url: string } | { kind: 'file'; file: string };

export interface Origins {
  /** The store node, e.g. http://127.0.0.1:43121. */
  node: string;
  renderer: RendererSource;
}

/** True when a URL belongs to the app's own pages (navigation and IPC are limited to them). */
export function isAppUrl(url: string | undefined, renderer: RendererSource): boolean {
  if (!url) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (renderer.kind === 'dev') return parsed.origin === new URL(renderer.url).origin;
  return parsed.protocol === 'file:' && parsed.pathname === new URL(pathToFileURL(renderer.file).href).pathname;
}

/** The renderer's CSP: its own files, and the node's origin for fetch/SSE. */
export function contentSecurityPolicy(origins: Origins): string {
  const dev = origins.renderer.kind === 'dev' ? new URL(origins.renderer.url) : null;
  const devSocket = dev ? `${dev.protocol === 'https:' ? 'wss' : 'ws'}://${dev.host}` : null;
  return [
    "default-src 'self'",
    // Vite's dev server injects an inline module (React Fast Refresh preamble); built files have none.
    dev ? "script-src 'self' 'unsafe-inline'" : "script-src 'self'",
    // Mantine writes its CSS variables in a <style> element and uses style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    ['connect-src', "'self'", origins.node, ...(devSocket ? [devSocket] : [])].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

type Headers = Record<string, string[]>;

function withoutHeader(headers: Headers, name: string): Headers {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name));
}

/**
 * Hardens a session: every document gets the CSP above (replacing any CSP it came with), and
 * permission requests (camera, notifications, …) are refused. The node answers CORS itself.
 */
export function hardenSession(session: Session, origins: Origins): void {
  const csp = contentSecurityPolicy(origins);
  session.webRequest.onHeadersReceived((details, callback) => {
    if (details.resourceType !== 'mainFrame' && details.resourceType !== 'subFrame') return callback({});
    const headers: Headers = details.responseHeaders ?? {};
    return callback({ responseHeaders: { ...withoutHeader(headers, 'content-security-policy'), 'Content-Security-Policy': [csp] } });
  });
  // The screens need no browser permission (camera, notifications, WebHID…): scanners are read by
  // the node. Refuse requests, checks and device access alike.
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}
