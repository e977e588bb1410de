// Public API of the embedding layer.

export type { Encoder, EncoderInfo } from '../model/encoder.ts';
export type { EncoderSpec, HashEncoderSpec, UnixcoderEncoderSpec } from './spec.ts';
export { openEncoder } from './open.ts';
export { openEncoderInThread, type EncoderOptions } from './in-thread.ts';
export { resolveEncoderSpec, openConfiguredEncoder, type EncoderPreference, type ResolveEncoderOptions, type ResolvedEncoder } from './select.ts';
export { DEFAULT_ENCODER_NAME, defaultEncoderDir, loadHashEncoderSpec } from './hash-encoder.ts';
export { UNIXCODER_DIRNAME, UNIXCODER_MAX_LENGTH, loadUnixcoderSpec, missingUnixcoderFiles, unixcoderFiles } from './unixcoder.ts';
