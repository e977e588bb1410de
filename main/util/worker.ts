// Starting worker threads whose entry file is TypeScript. From a checkout (and under vitest) the
// engine runs as .ts through tsx; Node 20 does not apply `--import tsx` to worker threads reliably,
// so a small JavaScript entry registers tsx inside the worker and then imports the real file.
// A built copy (.js) starts its entry directly.

import { Worker, type WorkerOptions } from 'node:worker_threads';

const TS_ENTRY = new URL('./ts-worker-entry.mjs', import.meta.url);

export function startWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const data = (options.workerData ?? {}) as Record<string, unknown>;
  return new Worker(TS_ENTRY, { ...options, workerData: { ...data, __tsEntry: entry.href } });
}
