// Builds the default encoder shipped in resources/models/<name>/: model.onnx + config.json.
//
// The model is a fixed random projection, not a neural network: a [V, D] int8 table drawn from a seeded,
// integer-only PRNG (main/embed/hash-table.ts), so the same arguments always give the same bytes.
// Graph (opset 13): feature_ids int64 [B, F], feature_weights float [B, F]
//   → Gather(table, ids) int8 [B, F, D] → Cast float → MatMul(weights [B, 1, F], ·) → [B, D] → × scale
//   → divide by max(‖·‖₂, 1e-12) → embedding float [B, D]
//
//   node bin/run-ts.js scripts/build-default-encoder.ts [--dim 256] [--buckets 8192] [--seed 1] [--out DIR] [--check]
// --check rebuilds in memory and fails if the committed files differ.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_FEATURE_CONFIG, type FeatureConfig } from '../main/embed/features.ts';
import { FEATURISER_VERSION, HASH_MODEL_FORMAT, type HashModelConfig } from '../main/embed/hash-config.ts';
import { randomInt8Table } from '../main/embed/hash-table.ts';
import { DT, GraphBuilder } from './onnx-builder.ts';

export interface DefaultEncoderBuildOptions {
  dim: number;
  buckets: number;
  seed: number;
  version: number;
  name?: string;
}

export const DEFAULT_BUILD: DefaultEncoderBuildOptions = { dim: 256, buckets: DEFAULT_FEATURE_CONFIG.buckets, seed: 1, version: 1 };

export const TABLE_GENERATOR = 'xoshiro128** (splitmix32 seeding); entry = sum of the low 6 bits of the 4 bytes of one draw - 126';

/** Builds the ONNX model bytes for a table. */
export function buildHashModelBytes(table: Int8Array, buckets: number, dim: number, scale: number): Uint8Array {
  const g = new GraphBuilder('opencoder_subtoken_hash');
  const ids = g.input('feature_ids', DT.INT64, ['batch', 'features']);
  const weights = g.input('feature_weights', DT.FLOAT, ['batch', 'features']);
  const tab = g.init('projection_int8', DT.INT8, [buckets, dim], table);
  const sc = g.init('projection_scale', DT.FLOAT, [], new Float32Array([scale]));
  const axis1 = g.init('axis_1', DT.INT64, [1], new BigInt64Array([1n]));
  const eps = g.init('epsilon', DT.FLOAT, [], new Float32Array([1e-12]));

  const rows = g.node('Gather', [tab, ids], { axis: 0 }); // int8 [B, F, D]
  const rowsF = g.node('Cast', [rows], { to: DT.FLOAT }); // float [B, F, D]
  const w3 = g.node('Unsqueeze', [weights, axis1]); // [B, 1, F]
  const summed = g.node('MatMul', [w3, rowsF]); // [B, 1, D]
  const flat = g.node('Squeeze', [summed, axis1]); // [B, D]
  const scaled = g.node('Mul', [flat, sc]);
  const norm = g.node('ReduceL2', [scaled], { axes: [1], keepdims: 1 }); // [B, 1]
  const safe = g.node('Max', [norm, eps]);
  g.node('Div', [scaled, safe], {}, 'embedding');
  g.output('embedding', DT.FLOAT, ['batch', dim]);
  return g.toBytes({ docString: 'Feature-hashing encoder: fixed random int8 projection of hashed code features; not a neural model.' });
}

export function sha256Hex(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

export function buildDefaultEncoder(opts: DefaultEncoderBuildOptions = DEFAULT_BUILD): { model: Uint8Array; config: HashModelConfig } {
  const name = opts.name ?? `opencoder-subtoken-hash-${opts.dim}`;
  const table = randomInt8Table(opts.buckets, opts.dim, opts.seed);
  const scale = 1 / 127;
  const model = buildHashModelBytes(table, opts.buckets, opts.dim, scale);
  const features: FeatureConfig = { ...DEFAULT_FEATURE_CONFIG, buckets: opts.buckets };
  const config: HashModelConfig = {
    format: HASH_MODEL_FORMAT,
    name,
    version: opts.version,
    description:
      'Feature-hashing encoder over identifier sub-tokens, whole identifiers and character trigrams with a fixed random projection; not a neural model.',
    model: 'model.onnx',
    modelSha256: sha256Hex(model),
    dim: opts.dim,
    featuriserVersion: FEATURISER_VERSION,
    inputs: { ids: 'feature_ids', weights: 'feature_weights' },
    output: 'embedding',
    table: { rows: opts.buckets, dim: opts.dim, dtype: 'int8', scale, seed: opts.seed, generator: TABLE_GENERATOR },
    features,
  };
  return { model, config };
}

export function configText(config: HashModelConfig): string {
  return JSON.stringify(config, null, 2) + '\n';
}

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_MODELS_RESOURCE_DIR = path.resolve(here, '../resources/models');

function main(argv: string[]): number {
  const arg = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const opts: DefaultEncoderBuildOptions = {
    dim: Number(arg('--dim') ?? DEFAULT_BUILD.dim),
    buckets: Number(arg('--buckets') ?? DEFAULT_BUILD.buckets),
    seed: Number(arg('--seed') ?? DEFAULT_BUILD.seed),
    version: Number(arg('--version') ?? DEFAULT_BUILD.version),
  };
  const { model, config } = buildDefaultEncoder(opts);
  const out = arg('--out') ?? path.join(DEFAULT_MODELS_RESOURCE_DIR, config.name);
  const modelPath = path.join(out, config.model);
  const configPath = path.join(out, 'config.json');
  if (argv.includes('--check')) {
    const okModel = fs.existsSync(modelPath) && sha256Hex(fs.readFileSync(modelPath)) === config.modelSha256;
    const okConfig = fs.existsSync(configPath) && fs.readFileSync(configPath, 'utf8') === configText(config);
    console.log(`${modelPath}: ${okModel ? 'up to date' : 'DIFFERS'}\n${configPath}: ${okConfig ? 'up to date' : 'DIFFERS'}`);
    return okModel && okConfig ? 0 : 1;
  }
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(modelPath, model);
  fs.writeFileSync(configPath, configText(config));
  console.log(`wrote ${modelPath} (${model.length} bytes, sha256 ${config.modelSha256}) and ${configPath}`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
