// The default encoder: JS featurisation (features.ts) + the shipped ONNX projection model, run in this thread.
// openEncoder() in open.ts runs the same code inside a worker.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sessionEncoder } from './batching.ts';
import type { Encoder } from '../model/encoder.ts';
import { hashFeatures, type HashedFeatures } from './features.ts';
import { validateHashModelConfig } from './hash-config.ts';
import { checkValue, createSession, describeValues, formatValues, ort } from './ort.ts';
import { sha256File, shortHash, type HashEncoderSpec } from './spec.ts';

export const DEFAULT_ENCODER_NAME = 'opencoder-subtoken-hash-256';

/**
 * Folder of the default encoder shipped with OpenCoder: resources/models/<name> in a checkout, or
 * <resourcesPath>/models/<name> in the packaged Electron app (electron-builder.yml copies resources/models there).
 */
export function defaultEncoderDir(): string {
  const dev = fileURLToPath(new URL(`../../resources/models/${DEFAULT_ENCODER_NAME}/`, import.meta.url));
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  if (!fs.existsSync(dev) && resourcesPath) {
    const packaged = path.join(resourcesPath, 'models', DEFAULT_ENCODER_NAME);
    if (fs.existsSync(packaged)) return packaged;
  }
  return dev;
}

/** Reads and checks a hashing encoder's folder (config.json + model); the id covers the model file and the config. */
export async function loadHashEncoderSpec(dir: string = defaultEncoderDir()): Promise<HashEncoderSpec> {
  const configPath = path.join(dir, 'config.json');
  let text: string;
  try {
    text = await fs.promises.readFile(configPath, 'utf8');
  } catch {
    throw new Error(`default encoder config not found: ${configPath}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${configPath}: not valid JSON (${(e as Error).message})`, { cause: e });
  }
  const config = validateHashModelConfig(raw, configPath);
  const modelPath = path.join(dir, config.model);
  if (!fs.existsSync(modelPath)) throw new Error(`default encoder model not found: ${modelPath}`);
  const sha = await sha256File(modelPath); // the model is small (~2 MB)
  if (sha !== config.modelSha256) {
    throw new Error(`${modelPath}: sha256 ${sha} does not match ${configPath} (${config.modelSha256}); rebuild with scripts/build-default-encoder.ts`);
  }
  return {
    kind: 'subtoken-hash',
    id: `${config.name}@${shortHash([sha, JSON.stringify(config)])}`,
    name: config.name,
    description: config.description,
    dim: config.dim,
    dir,
    modelPath,
    configPath,
    config,
  };
}

export interface HashEncoderOptions {
  threads?: number;
  /** Texts per ONNX run (default 256). */
  batchSize?: number;
  /**
   * Max texts × features per run (default 8192): bounds the [B, F, D] float gather the model builds. At 8192 cells
   * it is 8 MiB and stays in cache; at 65536 (64 MiB) the run was memory-bound and about twice as slow per text.
   */
  maxCells?: number;
  /** Max share of padding in a batch before it is split (default 0.25). */
  maxPaddingFraction?: number;
}

export const HASH_BATCH_DEFAULTS = { maxBatch: 256, maxCells: 8192, maxPaddingFraction: 0.25 };

/** Pads a batch of hashed features into the model's [B, F] inputs. */
export function hashBatchTensors(batch: HashedFeatures[]): { ids: BigInt64Array; weights: Float32Array; width: number } {
  const width = Math.max(1, ...batch.map((f) => f.ids.length));
  const ids = new BigInt64Array(batch.length * width);
  const weights = new Float32Array(batch.length * width);
  // Bucket ids are small and non-negative: write each one's low 32 bits (the high ones stay zero) instead of
  // creating a BigInt per cell. int64 is little-endian on every platform onnxruntime-node ships for.
  const low = new Int32Array(ids.buffer);
  batch.forEach((f, b) => {
    const row = b * width;
    for (let i = 0; i < f.ids.length; i++) low[2 * (row + i)] = f.ids[i]!;
    weights.set(f.weights, row);
  });
  return { ids, weights, width };
}

export async function createHashEncoder(spec: HashEncoderSpec, opts: HashEncoderOptions = {}): Promise<Encoder> {
  const session = await createSession(spec.modelPath, { threads: opts.threads });
  const { config } = spec;
  const inputs = describeValues(session.inputMetadata);
  const outputs = describeValues(session.outputMetadata);
  const problems = [
    checkValue(inputs, config.inputs.ids, ['int64'], 2),
    checkValue(inputs, config.inputs.weights, ['float32'], 2),
    checkValue(outputs, config.output, ['float32'], 2),
  ].filter((p) => p !== null);
  if (problems.length > 0) {
    await session.release();
    throw new Error(
      `${spec.modelPath} does not fit the default-encoder interface (${problems.join('; ')}); inputs: ${formatValues(inputs)}; outputs: ${formatValues(outputs)}`,
    );
  }
  const limits = {
    maxBatch: opts.batchSize ?? HASH_BATCH_DEFAULTS.maxBatch,
    maxCells: opts.maxCells ?? HASH_BATCH_DEFAULTS.maxCells,
    maxPaddingFraction: opts.maxPaddingFraction ?? HASH_BATCH_DEFAULTS.maxPaddingFraction,
  };
  const dim = spec.dim;

  async function runBatch(batch: HashedFeatures[]): Promise<Float32Array[]> {
    const { ids, weights, width } = hashBatchTensors(batch);
    const feeds = {
      [config.inputs.ids]: new ort.Tensor('int64', ids, [batch.length, width]),
      [config.inputs.weights]: new ort.Tensor('float32', weights, [batch.length, width]),
    };
    const result = await session.run(feeds);
    const out = result[config.output];
    if (!out || !(out.data instanceof Float32Array) || out.data.length !== batch.length * dim) {
      throw new Error(`${spec.modelPath}: unexpected output (expected float32 [${batch.length}, ${dim}])`);
    }
    const data = out.data;
    return batch.map((_, b) => data.slice(b * dim, (b + 1) * dim));
  }

  return sessionEncoder(
    spec,
    dim,
    session,
    limits,
    (t) => hashFeatures(t, config.features),
    (f) => f.ids.length,
    runBatch,
  );
}
