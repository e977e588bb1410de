// The backend record (model/backend-spec.ts) a request runs with, made the same way wherever it comes from: the
// app's Settings choice, a published sample set, or the CLI's flags (already a spec). Paths in it are made absolute
// and a sample set in another format is converted once, so a resume from another folder finds the same files and
// the same request stores the same bytes.

import path from 'node:path';
import type { Settings } from '../../../contract/index.ts';
import { parseBackendSpec, type BackendSpec } from '../../model/backend-spec.ts';
import { samplesFileIn } from './samples.ts';

/** The Settings choice as a spec: no model, OpenAI or an OpenAI-compatible server, Gemini, or a GGUF file. */
export function backendSpecOfChoice(b: Settings['backend']): BackendSpec {
  const model = b.model?.trim() || undefined;
  if (b.kind === 'offline') return { kind: 'offline' };
  if (b.kind === 'llama-cpp') return { kind: 'llama-cpp', model: model ?? '' };
  return { kind: b.kind, ...(model ? { model } : {}), ...(b.baseURL ? { baseURL: b.baseURL } : {}) };
}

/** A spec as a run stores it: checked, files absolute, an imported sample set as the file the backend reads. */
export function normalizedSpec(spec: BackendSpec, dataDir: string): BackendSpec {
  if (spec.kind === 'imported' && spec.samplesFile) return parseBackendSpec({ ...spec, samplesFile: samplesFileIn(dataDir, spec.samplesFile) });
  if (spec.kind === 'llama-cpp') {
    // A model given as a path is stored absolute; a bare name stays a name in the models folder.
    return parseBackendSpec({
      ...spec,
      model: /[\\/]/.test(spec.model) ? path.resolve(spec.model) : spec.model,
      ...(spec.modelsDir ? { modelsDir: path.resolve(spec.modelsDir) } : {}),
    });
  }
  return parseBackendSpec(spec);
}
