// The JSON config that ships next to the default encoder's ONNX model (resources/models/<name>/config.json).

import type { FeatureConfig } from './features.ts';

export const HASH_MODEL_FORMAT = 'opencoder-subtoken-hash';
/** Bump when featurisation code changes in a way that changes vectors; it is part of the encoder id. */
export const FEATURISER_VERSION = 1;

export interface HashModelConfig {
  format: typeof HASH_MODEL_FORMAT;
  /** Name shown to users, also the folder name. */
  name: string;
  /** Model version; part of the id. */
  version: number;
  description: string;
  /** File name of the ONNX model, relative to the config. */
  model: string;
  /** sha256 (hex) of the ONNX model file. */
  modelSha256: string;
  dim: number;
  featuriserVersion: number;
  /** Graph interface. */
  inputs: { ids: string; weights: string };
  output: string;
  /** How the projection table was made (informational; the table itself is in the model). */
  table: { rows: number; dim: number; dtype: 'int8'; scale: number; seed: number; generator: string };
  features: FeatureConfig;
}

export function validateHashModelConfig(raw: unknown, where: string): HashModelConfig {
  const c = raw as Partial<HashModelConfig> | null;
  const fail = (what: string): never => {
    throw new Error(`${where}: invalid default-encoder config (${what})`);
  };
  if (!c || typeof c !== 'object') fail('not an object');
  if (c!.format !== HASH_MODEL_FORMAT) fail(`format is ${JSON.stringify(c!.format)}, expected "${HASH_MODEL_FORMAT}"`);
  for (const k of ['name', 'description', 'model', 'modelSha256', 'output'] as const) {
    if (typeof c![k] !== 'string') fail(`${k} missing`);
  }
  for (const k of ['version', 'dim', 'featuriserVersion'] as const) {
    if (typeof c![k] !== 'number') fail(`${k} missing`);
  }
  if (c!.featuriserVersion !== FEATURISER_VERSION) {
    fail(`featuriserVersion ${c!.featuriserVersion} but this build featurises as version ${FEATURISER_VERSION}`);
  }
  if (!c!.inputs || typeof c!.inputs.ids !== 'string' || typeof c!.inputs.weights !== 'string') fail('inputs missing');
  const f = c!.features;
  if (!f || typeof f.buckets !== 'number' || !Array.isArray(f.stopWords)) fail('features missing');
  return c as HashModelConfig;
}
