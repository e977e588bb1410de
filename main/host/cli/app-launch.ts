// What the app commands start besides the engine: the UI built with Vite when it is missing (serve), the Electron
// binary and shell found and run with the CLI's signals forwarded (start), and waiting for Ctrl-C (serve).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { packageRoot } from '../paths.ts';
import { dbPathOf, type Io } from './kit.ts';

/** Builds renderer/ with Vite into dist/renderer; false (having said why) when it cannot. */
export async function buildRenderer(io: Io): Promise<boolean> {
  const configFile = path.join(packageRoot(), 'renderer', 'vite.config.ts');
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    io.err(
      'note: the UI is not built (no dist/renderer/index.html) and Vite is not installed; serving the API only. Build the UI with: npm run build:renderer',
    );
    return false;
  }
  if (!fs.existsSync(configFile)) {
    io.err(`note: the UI is not built and ${configFile} does not exist; serving the API only`);
    return false;
  }
  io.err('The UI is not built yet: building it with Vite (renderer/ → dist/renderer)…');
  try {
    await vite.build({ configFile, logLevel: 'warn' });
    io.err('UI built.');
    return true;
  } catch (err) {
    const detail = ((err as Error)?.message ?? String(err))
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(0, 4)
      .join(' ')
      .slice(0, 600);
    io.err(`The UI build failed (${detail}); serving the API only (fix it and run npm run build:renderer)`);
    return false;
  }
}

/** Resolves when SIGINT or SIGTERM arrives (a second signal exits at once). */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** The Electron binary, without the download that requiring the `electron` package attempts when it is missing. */
export function electronBinary(): { path: string } | { reason: string } {
  const req = createRequire(import.meta.url);
  if (!process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    let pkgDir: string;
    try {
      pkgDir = path.dirname(req.resolve('electron/package.json'));
    } catch {
      return { reason: 'the electron package is not installed (it is a dev dependency: npm install --include=dev)' };
    }
    const pathTxt = path.join(pkgDir, 'path.txt');
    if (!fs.existsSync(pathTxt))
      return {
        reason: `the Electron binary was never downloaded (${pathTxt} is missing: npm install ran without electron's install script; run node ${path.join(pkgDir, 'install.js')} with network access)`,
      };
    const exe = path.join(pkgDir, 'dist', fs.readFileSync(pathTxt, 'utf8').trim());
    if (!fs.existsSync(exe)) return { reason: `the Electron binary ${exe} is missing (run node ${path.join(pkgDir, 'install.js')} with network access)` };
  }
  try {
    return { path: req('electron') as string };
  } catch (err) {
    return { reason: `the Electron binary cannot be found: ${(err as Error).message}` };
  }
}

/** Why Electron cannot start here, or what to spawn. */
export function electronLaunch(env: NodeJS.ProcessEnv = process.env): { bin: string; main: string } | { reason: string } {
  const bin = electronBinary();
  if ('reason' in bin) return bin;
  const main = path.join(packageRoot(), 'dist', 'app', 'main.cjs');
  if (!fs.existsSync(main)) return { reason: `the desktop shell is not built (${main} is missing)` };
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY)
    return { reason: 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)' };
  return { bin: bin.path, main };
}

/** Runs Electron; resolves with its exit code, or with a reason when it failed to start (then nothing was shown). */
export function runElectron(launch: { bin: string; main: string }, values: Record<string, unknown>): Promise<{ code: number } | { reason: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.ELECTRON_RUN_AS_NODE;
    if (values.db) env.OPENCODER_DB = dbPathOf(values);
    const started = Date.now();
    let tail = '';
    const child = spawn(launch.bin, [launch.main], { env, stdio: ['ignore', 'inherit', 'pipe'] });
    child.stderr.on('data', (c: Buffer) => {
      process.stderr.write(c);
      tail = (tail + c.toString('utf8')).slice(-2000);
    });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const done = (r: { code: number } | { reason: string }) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(r);
    };
    child.once('error', (err) => done({ reason: `Electron (${launch.bin}) could not be spawned: ${err.message}` }));
    child.once('exit', (code, signal) => {
      // A quick failure means the window never came up (missing system libraries, a broken build).
      if ((code ?? 1) !== 0 && !signal && Date.now() - started < 5000) {
        const last = tail.trim().split('\n').at(-1)?.slice(0, 300);
        done({ reason: `Electron exited at once with code ${code}${last ? ` (${last})` : ''}` });
      } else done({ code: code ?? (signal ? 130 : 1) });
    });
  });
}
