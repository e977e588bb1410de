// Where OpenCoder keeps its data when the user names no --db.

import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function userDataDir(): string {
  if (process.env.OPENCODER_HOME) return path.resolve(process.env.OPENCODER_HOME);
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'OpenCoder');
    case 'win32':
      return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'OpenCoder');
    default:
      return path.join(process.env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'opencoder');
  }
}

export function defaultDbPath(): string {
  return path.join(userDataDir(), 'workspace.db');
}

export function defaultModelsDir(): string {
  return process.env.OPENCODER_MODELS ? path.resolve(process.env.OPENCODER_MODELS) : path.join(userDataDir(), 'models');
}

/** The package root (where resources/ lives), found from this file's location. */
export function packageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/**
 * What ships beside the engine (the default model, the sample repository): resources/ in a checkout; in the
 * packaged desktop app, Electron's resources folder, which the main process passes as OPENCODER_RESOURCES.
 */
export function resourcesDir(): string {
  return process.env.OPENCODER_RESOURCES ? path.resolve(process.env.OPENCODER_RESOURCES) : path.join(packageRoot(), 'resources');
}

export function sampleRepoPath(): string {
  return path.join(resourcesDir(), 'sample-repo');
}
