// onnxruntime-node helpers: session creation with clear errors, and checks of a model's inputs and outputs.

import os from 'node:os';
import ort from 'onnxruntime-node';

export type Session = ort.InferenceSession;
export { ort };

export interface SessionOptions {
  /** Intra-op threads; defaults to the number of logical CPUs. */
  threads?: number;
}

export function defaultThreads(): number {
  return Math.max(1, os.availableParallelism());
}

export async function createSession(modelPath: string | Uint8Array, opts: SessionOptions = {}): Promise<Session> {
  try {
    return await ort.InferenceSession.create(modelPath as string, {
      intraOpNumThreads: opts.threads ?? defaultThreads(),
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Idle onnxruntime threads must not spin: between runs this thread tokenises / featurises on the same cores.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
  } catch (e) {
    const where = typeof modelPath === 'string' ? modelPath : `<${modelPath.byteLength}-byte buffer>`;
    throw new Error(`cannot load ONNX model ${where}: ${(e as Error).message ?? e}`, { cause: e });
  }
}

export interface ValueDescription {
  name: string;
  type: string;
  shape: Array<number | string>;
}

export function describeValues(meta: readonly ort.InferenceSession.ValueMetadata[]): ValueDescription[] {
  return meta.map((m) => (m.isTensor ? { name: m.name, type: m.type, shape: [...m.shape] } : { name: m.name, type: 'non-tensor', shape: [] }));
}

export function formatValues(values: ValueDescription[]): string {
  return values.map((v) => `${v.name}: ${v.type}[${v.shape.join(', ')}]`).join('; ') || '(none)';
}

/** Finds a tensor value by name and checks its element type and rank; returns an error sentence or null. */
export function checkValue(values: ValueDescription[], name: string, types: string[], rank: number): string | null {
  const v = values.find((x) => x.name === name);
  if (!v) return `no ${name}`;
  if (!types.includes(v.type)) return `${name} is ${v.type}, expected ${types.join(' or ')}`;
  if (v.shape.length !== 0 && v.shape.length !== rank) return `${name} has rank ${v.shape.length}, expected ${rank}`;
  return null;
}
