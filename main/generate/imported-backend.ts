// Externally generated candidate sets as a backend (e.g. CoderEval's ChatGPT samples with their official pass
// labels), so that selection and generation uncertainty can be studied on real model outputs without a model.

import fs from 'node:fs';
import path from 'node:path';
import { LlmError } from './errors.ts';
import type { BackendCapabilities, ChatContext, ChatRequest, ChatResponse, LlmBackend } from './types.ts';

export interface ImportedSample {
  code: string;
  /** The official label when the source has one (CoderEval's `is_pass`). */
  passed?: boolean;
}

export interface ImportedSampleSet {
  taskId: string;
  name?: string;
  samples: ImportedSample[];
  meta: Record<string, unknown>;
}

function asSamples(rec: Record<string, unknown>): ImportedSample[] | null {
  // CoderEval: generate_results [{generate_code, is_pass, return_code}], else code [..]
  const gr = rec.generate_results;
  if (Array.isArray(gr)) {
    return gr.map((r) => {
      const o = r as { generate_code?: unknown; is_pass?: unknown };
      const s: ImportedSample = { code: String(o.generate_code ?? '') };
      if (typeof o.is_pass === 'boolean') s.passed = o.is_pass;
      return s;
    });
  }
  for (const key of ['samples', 'candidates', 'code', 'completions']) {
    const v = rec[key];
    if (Array.isArray(v)) {
      return v.map((x) => {
        if (typeof x === 'string') return { code: x };
        const o = x as { code?: unknown; passed?: unknown; is_pass?: unknown };
        const s: ImportedSample = { code: String(o.code ?? '') };
        const p = o.passed ?? o.is_pass;
        if (typeof p === 'boolean') s.passed = p;
        return s;
      });
    }
  }
  return null;
}

/** Reads a JSONL file of sample sets: CoderEval's `Raw_Input.jsonl_out.jsonl`, or `{task_id|id, samples|candidates: [...]}` lines. */
export function loadSampleSets(file: string): ImportedSampleSet[] {
  const abs = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(abs, 'utf8');
  } catch (e) {
    throw new LlmError('config', 'imported', `Cannot read the sample file ${abs}: ${(e as Error).message}`);
  }
  const sets: ImportedSampleSet[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch (e) {
      throw new LlmError('config', 'imported', `${abs}:${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    const id = rec._id ?? rec.task_id ?? rec.id ?? rec.question_id;
    const samples = asSamples(rec);
    if (typeof id !== 'string' || !samples) {
      throw new LlmError(
        'config',
        'imported',
        `${abs}:${i + 1}: expected an id (_id, task_id or id) and a list of samples (generate_results, samples, candidates or code)`,
      );
    }
    const { generate_results: _g, code: _c, samples: _s, candidates: _k, ...meta } = rec;
    const set: ImportedSampleSet = { taskId: id, samples, meta };
    if (typeof rec.name === 'string') set.name = rec.name;
    sets.push(set);
  });
  return sets;
}

export class ImportedBackend implements LlmBackend {
  readonly provider = 'imported' as const;
  readonly id: string;
  readonly model: string;
  readonly label: string;
  readonly capabilities: BackendCapabilities = { nativeN: true, logprobs: false, jsonSchema: false, network: false, repair: false };
  readonly billing = 'none' as const;
  private readonly byId = new Map<string, ImportedSampleSet>();

  /** Samples are code as published: run byte for byte, no extraction (unless constructed with extract). */
  readonly verbatim: boolean;

  constructor(sets: ImportedSampleSet[], opts: { name: string; description?: string; extract?: boolean }) {
    this.verbatim = opts.extract !== true;
    for (const s of sets) this.byId.set(s.taskId, s);
    this.model = opts.name;
    this.id = `imported:${opts.name}`;
    this.label = opts.description ?? `imported samples ${opts.name} (generated elsewhere; no model called)`;
  }

  static fromFile(file: string, name?: string, opts: { extract?: boolean } = {}): ImportedBackend {
    return new ImportedBackend(loadSampleSets(file), { name: name ?? path.basename(file), ...opts });
  }

  /** The set for a task id, also when the manifest prefixes the original id (`codereval/<_id>`). */
  find(taskId: string): ImportedSampleSet | undefined {
    return this.byId.get(taskId) ?? this.byId.get(taskId.split('/').pop()!);
  }

  async chat(req: ChatRequest, ctx: ChatContext = {}): Promise<ChatResponse> {
    const taskId = req.grounding?.task.id ?? ctx.taskId;
    if (!taskId) throw new LlmError('config', this.id, 'Imported samples are looked up by task: the request names no task.');
    if (req.grounding?.purpose === 'repair' || ctx.purpose === 'repair') {
      throw new LlmError(
        'config',
        this.id,
        `Imported samples cannot repair (task ${taskId}): they were generated elsewhere, and returning a stored sample again would count as a repair that never happened.`,
      );
    }
    const set = this.find(taskId);
    if (!set) throw new LlmError('config', this.id, `No imported samples for task ${taskId} in ${this.model} (${this.byId.size} tasks there).`);
    if ((req.call ?? 0) > 0 || req.n > set.samples.length) {
      throw new LlmError('short', this.id, `${this.model} holds ${set.samples.length} samples for task ${taskId}; ${req.n} were asked for.`);
    }
    return {
      provider: 'imported',
      billing: 'none',
      model: this.model,
      choices: set.samples.slice(0, req.n).map((s, index) => ({
        index,
        text: s.code,
        finishReason: 'stop',
        logprobs: null,
        origin: `imported: sample ${index + 1} of ${set.samples.length} for ${set.taskId}${s.passed === undefined ? '' : ` (official label: ${s.passed ? 'pass' : 'fail'})`}`,
      })),
      usage: { inputTokens: 0, outputTokens: 0, source: 'none' },
      calls: 0,
      retries: 0,
      latencyMs: 0,
      warnings: [],
    };
  }
}
