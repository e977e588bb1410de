// The window's security decisions, as data and pure functions so tests check them without Electron:
// web preferences, the Content-Security-Policy, which navigations stay in the app, which links may open in
// the system browser, which permission requests pass, and which IPC senders are the app's own window.
//
// The UI is served from a privileged custom scheme, app://opencoder/ (see app-protocol.ts), not file://:
// file:// pages share one opaque origin with every file on disk, so 'self' in a CSP and an origin check
// on navigation or IPC would mean "any local file"; app://opencoder is an origin of its own that serves
// dist/renderer and nothing else.

import type { WebPreferences } from 'electron';

export const APP_SCHEME = 'app';
export const APP_HOST = 'opencoder';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

export function windowWebPreferences(preload: string, opts: { devTools: boolean }): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    devTools: opts.devTools,
  };
}

/**
 * Scripts only from the app's own origin (no inline script, no eval); styles also inline, which React's
 * style props, recharts and the inline-SVG report charts need; images also as data:/blob: (chart and report
 * exports); nothing may embed the app, be embedded, post a form or be fetched from elsewhere — the engine is
 * reached over IPC, not the network.
 */
export const CSP_DIRECTIVES: Readonly<Record<string, readonly string[]>> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'worker-src': ["'self'"],
  'manifest-src': ["'self'"],
  'media-src': ["'none'"],
  'object-src': ["'none'"],
  'frame-src': ["'none'"],
  'child-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

export const CONTENT_SECURITY_POLICY = Object.entries(CSP_DIRECTIVES)
  .map(([k, v]) => `${k} ${v.join(' ')}`)
  .join('; ');

/** Response headers with the app's CSP in place of any the response carried (for webRequest.onHeadersReceived). */
export function withCsp(headers: Record<string, string | string[]> | undefined, csp: string = CONTENT_SECURITY_POLICY): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (/^content-security-policy(-report-only)?$/i.test(k)) continue;
    out[k] = Array.isArray(v) ? v : [v];
  }
  out['Content-Security-Policy'] = [csp];
  return out;
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * Whether `url` is on the app's own origin. Compared by scheme and host (case-insensitively, as Chromium
 * canonicalises a standard scheme's host): Node's URL gives non-special schemes the origin "null" and keeps
 * their host's case.
 */
export function isAppUrl(url: string, appOrigin: string = APP_ORIGIN): boolean {
  const u = parse(url);
  const o = parse(appOrigin);
  if (!u || !o) return false;
  return u.protocol === o.protocol && u.host !== '' && u.host.toLowerCase() === o.host.toLowerCase() && !u.username && !u.password;
}

/** will-navigate / will-redirect / will-frame-navigate: only the app's own pages (a reload, an in-app link). */
export function isAllowedNavigation(url: string, appOrigin: string = APP_ORIGIN): boolean {
  return isAppUrl(url, appOrigin);
}

/** The normalised http(s) URL to hand to shell.openExternal, or null for anything else (file:, javascript:, custom schemes, credentials in the URL). */
export function safeExternalUrl(url: unknown): string | null {
  if (typeof url !== 'string' || url.length > 2048) return null;
  const u = parse(url);
  if (!u) return null;
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  if (!u.hostname || u.username || u.password) return null;
  return u.href;
}

export function isSafeExternal(url: unknown): boolean {
  return safeExternalUrl(url) !== null;
}

/**
 * Every permission request is denied (camera, microphone, notifications, geolocation, HID/USB/serial…), with one
 * exception: writing sanitized text to the clipboard from the app's own page, which the "copy" buttons for
 * generated code and paths use.
 */
export function isPermissionAllowed(permission: string, requestingUrl: string | null | undefined, appOrigin: string = APP_ORIGIN): boolean {
  return permission === 'clipboard-sanitized-write' && typeof requestingUrl === 'string' && isAppUrl(requestingUrl, appOrigin);
}

export interface SenderInfo {
  /** The IPC came from the app window's webContents. */
  fromAppWindow: boolean;
  /** From its main frame (not an iframe). */
  isMainFrame: boolean;
  /** The sending frame's URL (null when the frame is gone). */
  frameUrl: string | null;
}

/** Only the app window's main frame, showing the app's own page, may call the engine. */
export function isTrustedSender(s: SenderInfo, appOrigin: string = APP_ORIGIN): boolean {
  return s.fromAppWindow && s.isMainFrame && typeof s.frameUrl === 'string' && isAppUrl(s.frameUrl, appOrigin);
}
