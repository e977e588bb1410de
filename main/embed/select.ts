// Choosing an encoder: UniXcoder when its files are there (or when asked for), else the shipped default encoder,
// always saying so when the choice differs from what 'auto' would ideally give.

import type { Encoder } from '../model/encoder.ts';
import { DEFAULT_ENCODER_NAME, defaultEncoderDir, loadHashEncoderSpec } from './hash-encoder.ts';
import type { EncoderOptions } from './in-thread.ts';
import { openEncoder } from './open.ts';
import type { EncoderSpec } from './spec.ts';
import { loadUnixcoderSpec, missingUnixcoderFiles, UNIXCODER_DIRNAME } from './unixcoder.ts';

export type EncoderPreference = 'auto' | 'default' | 'unixcoder';

export interface ResolveEncoderOptions {
  /** 'auto' (default): UniXcoder if its files are present, else the default encoder with a notice. */
  prefer?: EncoderPreference;
  /** Folder holding user-supplied models: <modelsDir>/unixcoder-base/{model.onnx, tokenizer.json}. */
  modelsDir: string;
  /** UniXcoder max tokens per text (default 512). */
  maxLength?: number;
  /** Folder of the default encoder (default: the one shipped in resources/models). */
  defaultDir?: string;
}

export interface ResolvedEncoder {
  spec: EncoderSpec;
  /** Set when the encoder used is not the one asked for or preferred; show it to the user. */
  notice: string | null;
}

const EXPORT_HELP = 'see scripts/export-unixcoder.md to export microsoft/unixcoder-base to ONNX';

export async function resolveEncoderSpec(opts: ResolveEncoderOptions): Promise<ResolvedEncoder> {
  const prefer = opts.prefer ?? 'auto';
  if (prefer === 'default') return { spec: await loadHashEncoderSpec(opts.defaultDir ?? defaultEncoderDir()), notice: null };
  if (prefer !== 'auto' && prefer !== 'unixcoder') throw new Error(`unknown encoder preference ${JSON.stringify(prefer)}`);
  const missing = missingUnixcoderFiles(opts.modelsDir);
  if (missing.length === 0) return { spec: await loadUnixcoderSpec(opts.modelsDir, { maxLength: opts.maxLength }), notice: null };
  if (prefer === 'unixcoder') {
    throw new Error(`UniXcoder encoder requested but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing; ${EXPORT_HELP}`);
  }
  const spec = await loadHashEncoderSpec(opts.defaultDir ?? defaultEncoderDir());
  return {
    spec,
    notice:
      `Using ${spec.name} (${spec.id}), a feature-hashing encoder, not a neural model, instead of ${UNIXCODER_DIRNAME}: ` +
      `${missing.join(' and ')} not found; ${EXPORT_HELP}.`,
  };
}

/**
 * resolveEncoderSpec + openEncoder (in a worker). With 'auto', a UniXcoder export that is present but cannot be
 * opened falls back to the default encoder, with a notice giving the error.
 */
export async function openConfiguredEncoder(
  opts: ResolveEncoderOptions & EncoderOptions,
): Promise<{ encoder: Encoder; spec: EncoderSpec; notice: string | null }> {
  const { spec, notice } = await resolveEncoderSpec(opts);
  try {
    return { encoder: await openEncoder(spec, opts), spec, notice };
  } catch (e) {
    if ((opts.prefer ?? 'auto') !== 'auto' || spec.kind !== 'unixcoder') throw e;
    const fallback = await loadHashEncoderSpec(opts.defaultDir ?? defaultEncoderDir());
    return {
      encoder: await openEncoder(fallback, opts),
      spec: fallback,
      notice: `Using ${fallback.name} (${fallback.id}), a feature-hashing encoder, not a neural model, instead of ${UNIXCODER_DIRNAME}: ${(e as Error).message}`,
    };
  }
}

export { DEFAULT_ENCODER_NAME };
