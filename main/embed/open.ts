// openEncoder(): an Encoder whose work (tokenising, batching, onnxruntime) runs in a worker thread.

import type { Worker } from 'node:worker_threads';
import { siblingModule, startWorker } from '../util/worker.ts';
import type { Encoder } from '../model/encoder.ts';
import type { EncoderOptions } from './in-thread.ts';
import type { EncoderSpec } from './spec.ts';
import type { FromWorker, ToWorker, WorkerInit } from './worker.ts';

export type { EncoderOptions } from './in-thread.ts';

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

/** The parent's side of the worker: the requests in flight and what has become of the worker. */
interface Link {
  spec: EncoderSpec;
  worker: Worker;
  pending: Map<number, Pending>;
  nextId: number;
  /** Why the worker can take no more requests (it failed or exited). */
  dead: Error | null;
  disposed: boolean;
  /** Called when the worker confirms dispose (or exits). */
  onDisposed: (() => void) | null;
}

/** Opens the encoder in a worker thread. Rejects with the worker's message when the model cannot be opened. */
export async function openEncoder(spec: EncoderSpec, opts: EncoderOptions = {}): Promise<Encoder> {
  const init: WorkerInit = { spec, options: opts };
  // execArgv: [] so that the parent's flags (inspector, test-runner loaders) are not inherited
  const worker = startWorker(siblingModule(import.meta.url, 'worker'), { workerData: init, execArgv: [] });
  const link: Link = { spec, worker, pending: new Map(), nextId: 1, dead: null, disposed: false, onDisposed: null };
  const ready = listen(link);

  let dim: number;
  try {
    dim = await ready;
  } catch (e) {
    await worker.terminate();
    throw e;
  }
  worker.unref();

  return {
    id: spec.id,
    name: spec.name,
    dim,
    description: spec.description,
    embed: (texts: string[]) => embedVia(link, texts),
    dispose: () => disposeLink(link),
  };
}

// The worker keeps the process alive only while a request is in flight, so a forgotten dispose() cannot hang it.
function settle(link: Link, id: number): void {
  link.pending.delete(id);
  if (link.pending.size === 0) link.worker.unref();
}

function failAll(link: Link, err: Error): void {
  link.dead ??= err;
  for (const p of link.pending.values()) p.reject(err);
  link.pending.clear();
}

/** Routes the worker's messages to the requests in flight; resolves with the model's dimension once it is open. */
function listen(link: Link): Promise<number> {
  const { spec, worker, pending } = link;
  return new Promise<number>((resolve, reject) => {
    worker.on('message', (m: FromWorker) => {
      switch (m.type) {
        case 'ready':
          resolve(m.dim);
          break;
        case 'init-error':
          reject(new Error(`cannot open encoder ${spec.id}: ${m.message}`));
          break;
        case 'result': {
          const p = pending.get(m.id);
          settle(link, m.id);
          const out: Float32Array[] = [];
          for (let i = 0; i < m.count; i++) out.push(m.data.subarray(i * m.dim, (i + 1) * m.dim));
          p?.resolve(out);
          break;
        }
        case 'error': {
          const p = pending.get(m.id);
          settle(link, m.id);
          p?.reject(new Error(`encoder ${spec.id}: ${m.message}`));
          break;
        }
        case 'disposed':
          link.onDisposed?.();
          break;
      }
    });
    worker.on('error', (e) => {
      const err = new Error(`encoder worker for ${spec.id} failed: ${e.message}`);
      reject(err);
      failAll(link, err);
    });
    worker.on('exit', (code) => {
      const err = new Error(`encoder worker for ${spec.id} exited (code ${code})`);
      reject(err);
      failAll(link, err);
      link.onDisposed?.();
    });
  });
}

function embedVia(link: Link, texts: string[]): Promise<Float32Array[]> {
  if (link.disposed) return Promise.reject(new Error(`encoder ${link.spec.id} is disposed`));
  if (link.dead) return Promise.reject(link.dead);
  if (texts.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const id = link.nextId++;
    if (link.pending.size === 0) link.worker.ref();
    link.pending.set(id, { resolve, reject });
    link.worker.postMessage({ type: 'embed', id, texts } satisfies ToWorker);
  });
}

async function disposeLink(link: Link): Promise<void> {
  if (link.disposed) return;
  link.disposed = true;
  if (!link.dead) {
    // let the worker release its session, but never wait more than a second for it
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      link.onDisposed = () => {
        clearTimeout(timer);
        resolve();
      };
      link.worker.ref();
      link.worker.postMessage({ type: 'dispose' } satisfies ToWorker);
    });
  }
  failAll(link, new Error(`encoder ${link.spec.id} is disposed`));
  await link.worker.terminate();
}
