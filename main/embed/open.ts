// openEncoder(): an Encoder whose work (tokenising, batching, onnxruntime) runs in a worker thread.

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

/** Opens the encoder in a worker thread. Rejects with the worker's message when the model cannot be opened. */
export async function openEncoder(spec: EncoderSpec, opts: EncoderOptions = {}): Promise<Encoder> {
  const init: WorkerInit = { spec, options: opts };
  // execArgv: [] so that the parent's flags (inspector, test-runner loaders) are not inherited
  const worker = startWorker(siblingModule(import.meta.url, 'worker'), { workerData: init, execArgv: [] });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: Error | null = null;
  let onDisposed: (() => void) | null = null;

  // The worker keeps the process alive only while a request is in flight, so a forgotten dispose() cannot hang it.
  const settle = (id: number) => {
    pending.delete(id);
    if (pending.size === 0) worker.unref();
  };
  const failAll = (err: Error) => {
    dead ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  const ready = new Promise<number>((resolve, reject) => {
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
          settle(m.id);
          const out: Float32Array[] = [];
          for (let i = 0; i < m.count; i++) out.push(m.data.subarray(i * m.dim, (i + 1) * m.dim));
          p?.resolve(out);
          break;
        }
        case 'error': {
          const p = pending.get(m.id);
          settle(m.id);
          p?.reject(new Error(`encoder ${spec.id}: ${m.message}`));
          break;
        }
        case 'disposed':
          onDisposed?.();
          break;
      }
    });
    worker.on('error', (e) => {
      const err = new Error(`encoder worker for ${spec.id} failed: ${e.message}`);
      reject(err);
      failAll(err);
    });
    worker.on('exit', (code) => {
      const err = new Error(`encoder worker for ${spec.id} exited (code ${code})`);
      reject(err);
      failAll(err);
      onDisposed?.();
    });
  });

  let dim: number;
  try {
    dim = await ready;
  } catch (e) {
    await worker.terminate();
    throw e;
  }
  worker.unref();

  let disposed = false;
  return {
    id: spec.id,
    name: spec.name,
    dim,
    description: spec.description,
    embed(texts: string[]): Promise<Float32Array[]> {
      if (disposed) return Promise.reject(new Error(`encoder ${spec.id} is disposed`));
      if (dead) return Promise.reject(dead);
      if (texts.length === 0) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        const id = nextId++;
        if (pending.size === 0) worker.ref();
        pending.set(id, { resolve, reject });
        worker.postMessage({ type: 'embed', id, texts } satisfies ToWorker);
      });
    },
    async dispose(): Promise<void> {
      if (disposed) return;
      disposed = true;
      if (!dead) {
        // let the worker release its session, but never wait more than a second for it
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          onDisposed = () => {
            clearTimeout(timer);
            resolve();
          };
          worker.ref();
          worker.postMessage({ type: 'dispose' } satisfies ToWorker);
        });
      }
      failAll(new Error(`encoder ${spec.id} is disposed`));
      await worker.terminate();
    },
  };
}
