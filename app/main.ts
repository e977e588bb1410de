// The Electron main process: one window, hardened (security.ts), serving the UI from app://opencoder/; the
// engine in a utility process (engine-process.ts) reached over a MessagePort (ipc-bridge.ts) and restarted if
// it dies (engine-supervisor.ts); API keys encrypted with safeStorage (keychain.ts); the native folder picker.
// The main process does no engine work itself, so the window never waits on indexing or validation.
//
// Bundled to CommonJS (dist/app/main.cjs) by scripts/build-app.ts; `electron` stays external.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  MessageChannelMain,
  protocol,
  safeStorage,
  session,
  shell,
  utilityProcess,
  type IpcMainInvokeEvent,
  type MessagePortMain,
  type OpenDialogOptions,
  type WebContents,
} from 'electron';
import { defaultModelsDir, userDataDir } from '../main/host/paths.ts';
import { assetHeaders, resolveAppAsset } from './app-protocol.ts';
import { appLayout } from './layout.ts';
import { isCallName, parseCall, type EngineEvent } from '../contract/index.ts';
import { CALL_CHANNEL, EVENT_CHANNEL, messageOf, type CallResult, type EngineInit } from './engine-protocol.ts';
import { EngineSupervisor } from './engine-supervisor.ts';
import { CrashBudget, EngineBridge } from './ipc-bridge.ts';
import { openKeyVault, type KeyVault } from './keychain.ts';
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  isAllowedNavigation,
  isPermissionAllowed,
  isTrustedSender,
  safeExternalUrl,
  windowWebPreferences,
  withCsp,
} from './security.ts';

// ---- where things are -----------------------------------------------------------------------------------------

/** dist/app (inside app.asar when packaged). */
const APP_DIR = path.dirname(fileURLToPath(import.meta.url));
const LAYOUT = appLayout(APP_DIR, { isPackaged: app.isPackaged, resourcesPath: process.resourcesPath });

// One folder for the desktop app and the CLI (OPENCODER_HOME, else the platform's data folder), so runs made
// from either show up in both. Must be set before the single-instance lock, which is per user-data folder.
const USER_DATA = userDataDir();
app.setPath('userData', USER_DATA);
// Chromium's own profile (cache, local storage) in a subfolder, apart from the workspace database and settings.
app.setPath('sessionData', path.join(USER_DATA, 'chromium'));
const KEYS_FILE = path.join(USER_DATA, 'keys.json');

// Before `ready`: app:// is a standard, secure origin (relative URLs, 'self' in the CSP, fetch of its own assets).
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true } },
]);

// ---- state --------------------------------------------------------------------------------------------------

let win: BrowserWindow | null = null;
let vault: KeyVault | null = null;
let quitting = false;
/** Folders the user picked this session: passed again to a restarted engine. */
const pickedRoots = new Set<string>();
/** Events for a window whose page has not loaded yet (its preload would miss them). */
const undelivered: EngineEvent[] = [];
let pageLoaded = false;
const standingNotices: EngineEvent[] = [];

function deliver(e: EngineEvent): void {
  if (!win || win.isDestroyed() || !pageLoaded) {
    undelivered.push(e);
    if (undelivered.length > 100) undelivered.shift();
    return;
  }
  win.webContents.send(EVENT_CHANNEL, e);
}

const bridge = new EngineBridge({ onEvent: deliver, onPickFolder: pickFolder });

const supervisor = new EngineSupervisor<MessagePortMain>({
  fork: () =>
    utilityProcess.fork(LAYOUT.engineEntry, [], {
      serviceName: 'OpenCoder engine',
      stdio: 'inherit',
      env: { ...process.env, ...(app.isPackaged ? { OPENCODER_RESOURCES: LAYOUT.resourcesDir } : {}) },
    }),
  channel: () => {
    const { port1, port2 } = new MessageChannelMain();
    return { mine: port1, theirs: port2 };
  },
  init: engineInit,
  bridge,
  notify: deliver,
  log: (line) => console.error(`[opencoder] ${line}`),
  budget: new CrashBudget(3, 60_000),
});

function engineInit(): EngineInit {
  const v = vault!;
  return {
    dbPath: path.join(USER_DATA, 'workspace.db'),
    dataDir: USER_DATA,
    settingsFile: path.join(USER_DATA, 'settings.json'),
    modelsDir: defaultModelsDir(),
    // The packaged resources lie outside the checkout layout the engine assumes; allow the sample repository there.
    allowedRoots: [...pickedRoots, ...(app.isPackaged ? [LAYOUT.resourcesDir] : [])],
    keyStorage: v.kind,
    keys: v.snapshot(),
    folderPicker: true,
    demo: true,
  };
}

// ---- native services ----------------------------------------------------------------------------------------

async function pickFolder(): Promise<string | null> {
  const options: OpenDialogOptions = { title: 'Open a repository folder', buttonLabel: 'Open', properties: ['openDirectory', 'dontAddToRecent'] };
  const r = win && !win.isDestroyed() ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  const dir = r.canceled ? undefined : r.filePaths[0];
  if (!dir) return null;
  pickedRoots.add(dir);
  return dir;
}

/** keys.set: encrypted and written by this process first, then passed to the engine (which keeps it in memory). */
async function setKey(input: unknown): Promise<CallResult> {
  const parsed = parseCall('keys.set', input);
  if (!parsed.ok) return parsed;
  const { provider, key } = parsed.value;
  const k = key?.trim() || null;
  try {
    vault!.set(provider, k);
  } catch (err) {
    return { ok: false, error: { code: 'engine', message: `The ${provider} key could not be saved to ${KEYS_FILE}: ${messageOf(err)}` } };
  }
  const r = await bridge.call('keys.set', { provider, key: k });
  if (r.ok || vault!.kind === 'session') return r;
  return { ok: false, error: { ...r.error, message: `${r.error.message} (the key was saved and is used when the engine runs again)` } };
}

// ---- IPC ----------------------------------------------------------------------------------------------------

function senderIsAppWindow(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  return isTrustedSender({
    fromAppWindow: !!win && !win.isDestroyed() && event.sender === win.webContents,
    isMainFrame: !!frame && frame.parent === null,
    frameUrl: frame?.url ?? null,
  });
}

ipcMain.handle(CALL_CHANNEL, async (event, name: unknown, input: unknown): Promise<CallResult> => {
  if (!senderIsAppWindow(event)) return { ok: false, error: { code: 'unauthorized', message: 'Only the OpenCoder window may call the engine.' } };
  if (!isCallName(name)) return { ok: false, error: { code: 'not-found', message: `unknown call ${String(name).slice(0, 100)}` } };
  if (name === 'keys.set') return setKey(input);
  return bridge.call(name, input);
});

// ---- the window ---------------------------------------------------------------------------------------------

/** Opens a web link in the system browser; the same link twice within a second (will-navigate and will-frame-navigate both seen it) opens once. */
let lastExternal = { url: '', at: 0 };
function openExternally(url: string): void {
  const external = safeExternalUrl(url);
  if (!external) return;
  const now = Date.now();
  if (external === lastExternal.url && now - lastExternal.at < 1000) return;
  lastExternal = { url: external, at: now };
  void shell.openExternal(external);
}

function hardenContents(wc: WebContents): void {
  // Leaving the app's origin is never allowed; a plain web link in the page opens in the system browser instead.
  wc.on('will-navigate', (e) => {
    if (isAllowedNavigation(e.url)) return;
    e.preventDefault();
    openExternally(e.url);
  });
  wc.on('will-frame-navigate', (e) => {
    if (isAllowedNavigation(e.url)) return;
    e.preventDefault();
    if (e.isMainFrame) openExternally(e.url);
  });
  wc.on('will-redirect', (e) => {
    if (!isAllowedNavigation(e.url)) e.preventDefault();
  });
  wc.on('will-attach-webview', (e) => e.preventDefault());
  wc.setWindowOpenHandler(({ url }) => {
    openExternally(url);
    return { action: 'deny' };
  });
}

function hardenSession(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => callback(isPermissionAllowed(permission, details.requestingUrl)));
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin, details) => isPermissionAllowed(permission, details.requestingUrl ?? requestingOrigin));
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withCsp(details.responseHeaders) }));
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>OpenCoder</title><body style="font:14px system-ui;padding:2em">
<h1>The user interface is not built</h1><p>Build it into <code>dist/renderer</code> (the renderer's Vite build), then reopen OpenCoder.</p>`;

async function serveAppRequest(request: Request): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405 });
  const r = resolveAppAsset(request.url, LAYOUT.rendererDir);
  if (!r.ok) return new Response(null, { status: r.status });
  try {
    const body = await fs.promises.readFile(r.file);
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers: assetHeaders(r.contentType) });
  } catch {
    if (path.basename(r.file) === 'index.html') return new Response(NOT_BUILT, { status: 200, headers: assetHeaders('text/html; charset=utf-8') });
    return new Response(null, { status: 404 });
  }
}

function createWindow(): void {
  pageLoaded = false;
  const w = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'OpenCoder',
    backgroundColor: '#ffffff',
    webPreferences: windowWebPreferences(LAYOUT.preload, { devTools: !app.isPackaged || process.env.OPENCODER_DEVTOOLS === '1' }),
  });
  win = w;
  const renderCrashes = new CrashBudget(3, 60_000);
  w.once('ready-to-show', () => w.show());
  w.on('closed', () => {
    if (win === w) win = null;
  });
  w.webContents.on('did-start-loading', () => {
    pageLoaded = false;
  });
  w.webContents.on('did-finish-load', () => {
    pageLoaded = true;
    for (const e of [...standingNotices, ...undelivered.splice(0)]) w.webContents.send(EVENT_CHANNEL, e);
  });
  w.webContents.on('render-process-gone', (_e, details) => {
    if (details.reason === 'clean-exit' || quitting) return;
    console.error(`[opencoder] the window's renderer stopped (${details.reason})`);
    if (renderCrashes.allowRestart(Date.now())) w.webContents.reload();
  });
  void w.loadURL(APP_ENTRY_URL);
}

// ---- lifecycle ----------------------------------------------------------------------------------------------

if (!app.requestSingleInstanceLock()) {
  // Another OpenCoder owns this user-data folder (and its database); it gets focused instead.
  app.quit();
} else {
  app.enableSandbox();
  app.on('second-instance', () => {
    if (!win || win.isDestroyed()) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  app.on('web-contents-created', (_e, wc) => hardenContents(wc));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (app.isReady() && (!win || win.isDestroyed())) createWindow();
  });
  app.on('before-quit', () => {
    quitting = true;
  });
  let engineClosed = false;
  app.on('will-quit', (e) => {
    if (engineClosed || !supervisor.running) return;
    // Let the engine finish its writes and close the database before the process goes.
    e.preventDefault();
    void supervisor.stop().finally(() => {
      engineClosed = true;
      app.quit();
    });
  });

  void app.whenReady().then(() => {
    hardenSession();
    protocol.handle(APP_SCHEME, serveAppRequest);
    // safeStorage answers correctly only after `ready` (on Linux it needs the secret service).
    vault = openKeyVault(KEYS_FILE, safeStorage);
    if (vault.notice) standingNotices.push({ type: 'notice', level: 'warning', message: vault.notice });
    supervisor.start();
    createWindow();
  });
}
