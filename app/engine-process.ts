// Entry of the engine's Electron utility process (forked by app/main.ts): the engine service runs here, off
// the main process, so indexing, embedding, validation and reports never freeze the window. Everything but
// the Electron-specific parent port lives in engine-host.ts.

import { createEngineService } from '../main/host/service.ts';
import { runEngineHost, type ParentPortLike } from './engine-host.ts';

const proc = process as NodeJS.Process & { parentPort?: ParentPortLike | null; resourcesPath?: string };

// The packaged app's resources (default model, sample repository) sit at Electron's resourcesPath; the main
// process passes it on in OPENCODER_RESOURCES (read by main/host/paths.ts). Code that looks at
// process.resourcesPath directly (main/embed/hash-encoder.ts) gets it too, should this process lack it.
if (process.env.OPENCODER_RESOURCES && !proc.resourcesPath) {
  Object.defineProperty(process, 'resourcesPath', { value: process.env.OPENCODER_RESOURCES, enumerable: true });
}

const parentPort = proc.parentPort;
if (!parentPort) {
  console.error('engine-process: not started as an Electron utility process (no process.parentPort)');
  process.exit(2);
}

runEngineHost({
  parentPort,
  createEngineService,
  exit: (code) => process.exit(code),
  env: process.env,
  log: (line) => console.error(`[engine] ${line}`),
});
