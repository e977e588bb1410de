// Starting worker threads whose entry file is TypeScript. From a checkout (and under vitest) the
// engine runs as .ts through tsx; on Node 20 `execArgv: ['--import', 'tsx']` does not reach a
// worker's entry module (nodejs/node#47747), so a small JavaScript entry registers tsx inside the
// worker and then imports the real file. A built copy (.js) starts its entry directly.

import { Worker, type WorkerOptions } from 'node:worker_threads';

const TS_ENTRY = new URL('./ts-worker-entry.mjs', import.meta.url);

/** The module `name` beside the caller, with the caller's own extension (.ts from source, .js when built). */
export function siblingModule(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}

export function startWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const data = (options.workerData ?? {}) as Record<string, unknown>;
  return new Worker(TS_ENTRY, { ...options, workerData: { ...data, __tsEntry: entry.href } });
}
