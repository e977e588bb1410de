// Worker thread that owns one encoder (and its onnxruntime session). Started by openEncoder() in open.ts.

import { parentPort, workerData } from 'node:worker_threads';
import type { Encoder } from '../model/encoder.ts';
import { openEncoderInThread, type EncoderOptions } from './in-thread.ts';
import type { EncoderSpec } from './spec.ts';

export interface WorkerInit {
  spec: EncoderSpec;
  options: EncoderOptions;
}

export type ToWorker = { type: 'embed'; id: number; texts: string[] } | { type: 'dispose' };

export type FromWorker =
  | { type: 'ready'; dim: number }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; count: number; dim: number; data: Float32Array }
  | { type: 'error'; id: number; message: string }
  | { type: 'disposed' };

const port = parentPort;
if (!port) throw new Error('main/embed/worker.ts must run in a worker thread');
const post = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

const init = workerData as WorkerInit;
let encoder: Encoder | null = null;

async function openIt(): Promise<void> {
  try {
    encoder = await openEncoderInThread(init.spec, init.options);
    post({ type: 'ready', dim: encoder.dim });
  } catch (e) {
    post({ type: 'init-error', message: errorText(e) });
    port!.close();
  }
}

// Requests run one at a time, after the encoder is open.
let queue: Promise<void> = openIt();

port.on('message', (msg: ToWorker) => {
  queue = queue.then(async () => {
    if (msg.type === 'dispose') {
      await encoder?.dispose().catch(() => undefined);
      encoder = null;
      post({ type: 'disposed' });
      port.close();
      return;
    }
    if (!encoder) {
      post({ type: 'error', id: msg.id, message: 'encoder is not open' });
      return;
    }
    try {
      const vectors = await encoder.embed(msg.texts);
      const dim = encoder.dim;
      const data = new Float32Array(vectors.length * dim);
      vectors.forEach((v, i) => data.set(v, i * dim));
      post({ type: 'result', id: msg.id, count: vectors.length, dim, data }, [data.buffer]);
    } catch (e) {
      post({ type: 'error', id: msg.id, message: errorText(e) });
    }
  });
});
