// Shared set-up of the end-to-end tests in Debian's Chromium: a fresh renderer build served by `opencoder serve`
// (browser mode, offline, its own home and database), and a headless Chromium profile that may reach nothing but
// that server. Kept here so each e2e file starts the same stack the same way.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from '../validate/helpers.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { needs } from '../helpers/system.ts';
import { oncePerRun } from '../helpers/run-once.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
/** Skip (with the package named) where Debian's Chromium is missing. */
export const CHROMIUM_NEED = needs('chromium');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * `dir` goes when this test process exits (an engine home with its database and indexes, a browser profile: ~180 MB a
 * full run). Not when the context or server closes: a browser still writes its profile for a moment after `close`, and
 * removing it then raced it (ENOTEMPTY). What cannot be removed at exit stays, and fails nothing.
 */
const leftAtExit = new Set<string>();
process.once('exit', () => {
  for (const dir of leftAtExit) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
    } catch {
      /* left behind */
    }
  }
});
function removedAtExit(dir: string): string {
  leftAtExit.add(dir);
  return dir;
}

export interface Served {
  server: ChildProcess;
  /** The server's base URL. */
  url: string;
  /** The URL that opens the app with its token. */
  openUrl: string;
}

/**
 * Builds the renderer from this checkout once per test run (or serves `prebuilt`, a renderer build folder) and
 * starts `opencoder serve` on a free port; `prepare` gets the home's database path first (to store runs in it).
 */
export async function startServe(prefix: string, prebuilt?: string, prepare?: (db: string) => void): Promise<Served> {
  const home = removedAtExit(tmpDir(prefix));
  prepare?.(path.join(home, 'w.db'));
  // One build of this checkout's renderer per test run, shared by every e2e file (each served read-only).
  const rendererDir =
    prebuilt ??
    (await oncePerRun('renderer-build', async (outDir) => {
      const vite = await import('vite');
      await vite.build({ configFile: path.join(REPO_ROOT, 'renderer', 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    }));
  const server = spawn(
    process.execPath,
    [path.join(REPO_ROOT, 'bin', 'opencoder.js'), 'serve', '--port', '0', '--json', '--no-demo', '--db', path.join(home, 'w.db'), '--renderer', rendererDir],
    { cwd: REPO_ROOT, env: { ...process.env, OPENCODER_HOME: home, OPENAI_API_KEY: '', GEMINI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  server.stderr.on('data', (d) => (stderr += d));
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    server.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    server.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  const info = JSON.parse(line) as { url: string; openUrl: string };
  return { server, url: info.url, openUrl: info.openUrl };
}

/**
 * A headless Chromium profile at `width` × `height` whose requests may go only to blob/data URLs and to those
 * `allowed` accepts (asked only about the others, so it may record what it refuses); `options` adds launch options.
 */
export async function launchChromium(
  width: number,
  height: number,
  allowed: (url: string) => boolean,
  options: { acceptDownloads?: boolean } = {},
): Promise<BrowserContext> {
  const context = await chromium.launchPersistentContext(removedAtExit(tmpDir('oc-e2e-chromium-')), {
    ...options,
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width, height },
    args: CHROMIUM_ARGS,
  });
  await context.route('**/*', (route) => {
    const u = route.request().url();
    return u.startsWith('blob:') || u.startsWith('data:') || allowed(u) ? route.continue() : route.abort();
  });
  return context;
}

/**
 * The app says once which sandbox runs candidates (a banner with "Got it"); a test that is about something else
 * reads it and says "Got it", as an analyst would, so its screenshots show the views as they are after the first start.
 */
export async function acknowledgeSandboxNotice(page: Page): Promise<string> {
  const banner = page.getByTestId('sandbox-banner');
  await banner.waitFor({ state: 'visible', timeout: 15_000 });
  const text = await banner.innerText();
  await page.getByTestId('sandbox-banner-ok').click();
  await banner.waitFor({ state: 'detached', timeout: 5_000 });
  return text;
}
