// Where the shell finds its parts, from the folder of the built main process (dist/app, inside app.asar when
// packaged). Pure, so tests check the packaged layout without Electron.

import path from 'node:path';

/**
 * The unpacked twin of a path inside app.asar (electron-builder.yml asarUnpack). The engine runs from there:
 * its worker threads, the Python validation harness, the wasm files and the native modules it loads must be
 * real files on disk, and node_modules lookups from there reach app.asar.unpacked/node_modules.
 */
export function unpackedPath(p: string): string {
  return p.replace(/([\\/])app\.asar(?=[\\/]|$)/, '$1app.asar.unpacked');
}

export interface AppLayout {
  /** dist/renderer: what app://opencoder/ serves. */
  rendererDir: string;
  preload: string;
  engineEntry: string;
  /** The default model and the sample repository: <resources>/ when packaged (extraResources), resources/ in a checkout. */
  resourcesDir: string;
}

export function appLayout(appDir: string, packaged: { isPackaged: boolean; resourcesPath: string }): AppLayout {
  return {
    rendererDir: path.resolve(appDir, '..', 'renderer'),
    preload: path.join(appDir, 'preload.cjs'),
    engineEntry: path.join(unpackedPath(appDir), 'engine-process.js'),
    resourcesDir: packaged.isPackaged ? packaged.resourcesPath : path.resolve(appDir, '..', '..', 'resources'),
  };
}
