// The settings form's draft: the settings as the fields show them (numbers as typed), the backends and pipeline
// constants the form offers, and the check that turns a draft back into settings (errors by field name).

import { BackendSchema, OFFLINE_LABEL, PipelineOverridesSchema, SettingsSchema, type PipelineOverrides, type Settings } from '../../api/contract.ts';
import type { BackendPick } from './ModelPicker.tsx';

export type BackendChoiceUi = BackendPick['backend'];

export const BACKENDS: { id: BackendChoiceUi; label: string; note: string }[] = [
  { id: 'offline', label: OFFLINE_LABEL, note: 'adapts retrieved code, no language model; no network, no cost — a baseline, for trying the pipeline' },
  { id: 'llama-cpp', label: 'GGUF model', note: 'a .gguf file run on this machine by llama.cpp (CPU); no network, no key' },
  { id: 'local', label: 'Local server', note: 'any OpenAI-compatible server: Ollama, LM Studio, llama.cpp, vLLM' },
  { id: 'openai', label: 'OpenAI', note: 'needs an OpenAI key' },
  { id: 'gemini', label: 'Gemini', note: 'needs a Gemini key' },
];

export const CONSTANTS: { key: keyof PipelineOverrides; label: string; symbol: string; step: string; hint: string; int?: boolean }[] = [
  { key: 'alpha', label: 'Uncertainty weight', symbol: 'α', step: '0.05', hint: 'γ = r·w·max(0, 1 − α·u); 0 … 2' },
  { key: 'keepFraction', label: 'Keep fraction', symbol: 'keep', step: '0.05', hint: 'share of each source and step kept; (0, 1]' },
  { key: 'topK', label: 'Fused top K', symbol: 'K', step: '1', hint: 'evidence items in the prompt; 1 … 50', int: true },
  { key: 'candidates', label: 'Candidates', symbol: 'n', step: '1', hint: 'samples per task; 1 … 20', int: true },
  { key: 'temperature', label: 'Temperature', symbol: 'T', step: '0.1', hint: 'sampling temperature; 0 … 2' },
  { key: 'repairRounds', label: 'Repair rounds', symbol: 'R', step: '1', hint: 'at most; 0 … 5', int: true },
];

export interface Draft {
  backend: BackendChoiceUi;
  model: string;
  baseURL: string;
  sandbox: Settings['sandbox'];
  encoder: Settings['encoder'];
  parallel: string;
  queue: string;
  pipeline: Record<keyof PipelineOverrides, string>;
}

export function toDraft(s: Settings): Draft {
  return {
    backend: s.backend.kind === 'openai' && s.backend.baseURL ? 'local' : s.backend.kind,
    model: s.backend.model ?? '',
    baseURL: s.backend.baseURL ?? '',
    sandbox: s.sandbox,
    encoder: s.encoder,
    parallel: String(s.parallel),
    queue: s.queue ?? '',
    pipeline: Object.fromEntries(CONSTANTS.map((c) => [c.key, s.pipeline[c.key] === undefined ? '' : String(s.pipeline[c.key])])) as Draft['pipeline'],
  };
}

/** The draft as settings, or the errors by field name. */
export function fromDraft(d: Draft): { ok: true; value: Settings } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const backend = {
    kind: d.backend === 'local' ? 'openai' : d.backend,
    ...(d.model.trim() ? { model: d.model.trim() } : {}),
    ...(d.backend === 'local' ? { baseURL: d.baseURL.trim() } : {}),
  };
  const b = BackendSchema.safeParse(backend);
  if (!b.success)
    for (const i of b.error.issues)
      errors[i.path[0] === 'baseURL' ? 'baseURL' : i.path[0] === 'model' ? 'model' : 'backend'] =
        i.path[0] === 'baseURL' ? 'an http(s) URL, e.g. http://127.0.0.1:8080/v1' : i.message;
  if (d.backend === 'local' && !d.baseURL.trim()) errors.baseURL = 'the server’s base URL, e.g. http://127.0.0.1:8080/v1';
  const pipeline: Record<string, number> = {};
  for (const c of CONSTANTS) {
    const raw = d.pipeline[c.key].trim();
    if (!raw) continue;
    const n = Number(raw);
    if (!Number.isFinite(n)) errors[`pipeline.${c.key}`] = 'a number';
    else pipeline[c.key] = n;
  }
  const p = PipelineOverridesSchema.safeParse(pipeline);
  if (!p.success) for (const i of p.error.issues) errors[`pipeline.${String(i.path[0])}`] ??= readable(i.message);
  const parallel = Number(d.parallel);
  const s = SettingsSchema.safeParse({
    backend: b.success ? b.data : backend,
    sandbox: d.sandbox,
    encoder: d.encoder,
    parallel,
    pipeline: p.success ? p.data : pipeline,
    // Null clears a saved queue (a patch without the field would keep it); the engine checks a URL when saving.
    queue: d.queue.trim() || null,
  });
  if (!s.success)
    for (const i of s.error.issues) {
      if (i.path[0] === 'parallel') errors.parallel = 'a whole number from 1 to 16';
      if (i.path[0] === 'queue') errors.queue = 'at most 500 characters';
    }
  if (Object.keys(errors).length || !s.success) return { ok: false, errors: Object.keys(errors).length ? errors : { form: 'invalid settings' } };
  return { ok: true, value: s.data };
}

function readable(m: string): string {
  return m
    .replace(/^Too small: expected number to be >/, 'must be >')
    .replace(/^Too big: expected number to be </, 'must be <')
    .replace(/^Invalid input: expected int, received number$/, 'a whole number');
}
