// Every prompt OpenCoder sends, as versioned templates in one place. A run stores PROMPT_TEMPLATES (with its
// version and hash) so that any result can be traced to the exact wording that produced it.
// Change a template → bump PROMPT_VERSION.

import { createHash } from 'node:crypto';
import { z } from 'zod';
import { SOURCES, type Source } from '../model/config.ts';
import type { Evidence, RetrievalTrace, Step } from '../model/trace.ts';
import type { ChatMessage, JsonSchemaSpec, PromptTask } from './types.ts';
import { OpenCoderError } from '../model/errors.ts';

export const PROMPT_VERSION = 'opencoder-prompts/1';

export const SOURCE_NAMES: Record<Source, string> = { api: 'API knowledge', context: 'repository context', similar: 'similar code' };
const SOURCE_TAGS: Record<Source, string> = { api: 'A', context: 'X', similar: 'S' };

export const PROMPT_TEMPLATES = {
  system_generate:
    'You are an expert software engineer completing one function inside an existing repository. ' +
    'You write correct, idiomatic code that fits the repository, and you answer with code only.',

  generate_guided: `## Task
{{requirement}}

## Target
{{target}}

## Retrieval uncertainty trace
Mean uncertainty of each evidence source (0 = reliable, 1 = unreliable): {{trace}}
{{trace_note}}

## Evidence (grouped by source; for each item u is its uncertainty, r its relevance, w the source weight, γ its fused score)
{{evidence}}

## Instructions
- Write the complete {{kind}} \`{{name}}\` with exactly the target signature.{{method_note}}
- Prefer low-uncertainty evidence: when items disagree (different helpers, argument orders, conventions), follow the item with the lower u; treat items with u ≥ 0.5, and sources with a high mean uncertainty, as hints to check against the rest, not as facts.
- Call only functions, classes and methods that appear in the evidence, in the target's module, or in the standard library.
- Similar code shows how related problems were solved; adapt it to this task's names, parameters and requirement instead of copying it.
- Reply with exactly one \`\`\`{{lang}} code block holding the {{kind}} (and any imports it needs, above it). No explanations.`,

  generate_baseline: `## Task
{{requirement}}

## Target
{{target}}

## Retrieved code
{{evidence}}

## Instructions
- Write the complete {{kind}} \`{{name}}\` with exactly the target signature.{{method_note}}
- Call only functions, classes and methods that appear in the retrieved code, in the target's module, or in the standard library.
- Reply with exactly one \`\`\`{{lang}} code block holding the {{kind}} (and any imports it needs, above it). No explanations.`,

  evidence_item_guided: '[{{tag}}] {{title}} — {{location}} — u = {{u}}, r = {{r}}, w = {{w}}, γ = {{gamma}}\n```{{lang}}\n{{text}}\n```',

  evidence_item_plain: '[{{tag}}] {{title}} — {{location}}\n```{{lang}}\n{{text}}\n```',

  system_repair:
    'You are an expert software engineer fixing a function that failed its checks. You change what is needed to make it ' +
    'correct, keep the signature, and answer with code only.',

  repair: `## Task
{{requirement}}

## Target
{{target}}

{{evidence_section}}

## Candidate that failed (repair round {{round}})
\`\`\`{{lang}}
{{candidate}}
\`\`\`

## Static findings
{{findings}}

## Failing tests
\`\`\`text
{{test_output}}
\`\`\`

## Instructions
- Fix the {{kind}} \`{{name}}\` so that it meets the task and passes the tests; keep exactly the target signature.{{method_note}}
- Address every static finding and every failing test above; do not change what already works.
{{repair_evidence_note}}- Reply with exactly one \`\`\`{{lang}} code block holding the corrected {{kind}} (and any imports it needs, above it). No explanations.`,

  system_decompose: 'You plan how to look up information in a code repository before writing a function. You answer with JSON only.',

  decompose: `Break the implementation of the target below into {{min_steps}} to {{max_steps}} ordered steps. For each step give:
- "text": what the step does, in one sentence;
- "weights": how much the step needs each evidence source, numbers in [0, 1] that sum to 1 —
  "api" (API knowledge: signatures and docs of functions, classes and methods it must call),
  "context" (repository context: the surrounding module, class members, constants, imports),
  "similar" (similar code: existing functions that solve a related problem);
- "queries": one search query per source for this step — for "api" the names or descriptions of the APIs needed, for
  "context" the module-level names or class members involved, for "similar" a short description of code that would look alike.

## Task
{{requirement}}

## Target
{{target}}`,
} as const;

export type TemplateName = keyof typeof PROMPT_TEMPLATES;

/** The templates as stored with a run: version, content hash, and the text itself. */
export function promptTemplatesRecord(): { version: string; hash: string; templates: Record<string, string> } {
  const templates: Record<string, string> = { ...PROMPT_TEMPLATES };
  return { version: PROMPT_VERSION, hash: createHash('sha256').update(JSON.stringify(templates)).digest('hex'), templates };
}

/** Fills `{{slot}}`s; a slot without a value is an error (a template and its builder out of step). */
export function render(name: TemplateName, slots: Record<string, string>): string {
  return PROMPT_TEMPLATES[name].replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const v = slots[key];
    if (v === undefined) throw new Error(`prompt template ${name}: no value for {{${key}}}`);
    return v;
  });
}

export interface BuiltPrompt {
  version: string;
  kind: 'uncertainty-guided' | 'baseline' | 'repair' | 'decompose';
  messages: ChatMessage[];
  /** The evidence shown, in prompt order. */
  evidence: Evidence[];
}

/** A prompt of this version: the system template `system` and the user message. */
function builtPrompt(kind: BuiltPrompt['kind'], system: TemplateName, user: string, evidence: Evidence[]): BuiltPrompt {
  return {
    version: PROMPT_VERSION,
    kind,
    messages: [
      { role: 'system', content: PROMPT_TEMPLATES[system] },
      { role: 'user', content: user },
    ],
    evidence,
  };
}

export interface PromptOptions {
  /** Characters of one evidence item shown before it is cut (default 2400). */
  maxEvidenceChars?: number;
}

const LANGS: Record<string, string> = { py: 'python', pyi: 'python', ts: 'typescript', tsx: 'tsx', js: 'javascript', mjs: 'javascript', jsx: 'jsx' };

export function languageOf(file: string | undefined): string {
  const ext = file?.split('.').pop()?.toLowerCase() ?? 'py';
  return LANGS[ext] ?? 'python';
}

/** The function's name from a signature line (`def f(`, `async def f(`, `function f(`, `f(`). */
export function signatureName(signature: string): string {
  const m = /(?:def|function)\s+([A-Za-z_$][\w$]*)/.exec(signature) ?? /([A-Za-z_$][\w$]*)\s*\(/.exec(signature);
  return m?.[1] ?? 'target';
}

function targetParts(task: PromptTask): { target: string; name: string; kind: string; methodNote: string; lang: string } {
  const name = signatureName(task.signature);
  const lang = languageOf(task.file);
  const dot = task.qualname?.lastIndexOf('.') ?? -1;
  const owner = task.qualname && dot > 0 ? task.qualname.slice(0, dot) : null;
  const lines = [
    ...(task.file ? [`File: ${task.file}`] : []),
    ...(task.qualname ? [`Qualified name: ${task.qualname}${owner ? ` (a method of class ${owner})` : ''}`] : []),
    `Signature: ${task.signature}`,
  ];
  return {
    target: lines.join('\n'),
    name,
    kind: owner ? 'method' : 'function',
    methodNote: owner ? ` Write only the method, starting at its \`def\` line, not the whole class ${owner}.` : '',
    lang,
  };
}

function fmt(x: number): string {
  return Number.isFinite(x) ? x.toFixed(2) : 'n/a';
}

function clip(text: string, max: number): string {
  const t = text.replace(/\s+$/, '');
  if (t.length <= max) return t;
  return `${t.slice(0, max)}\n… (${t.length - max} more characters not shown)`;
}

function location(e: Evidence): string {
  return e.startLine > 0 ? `${e.file}:${e.startLine}-${e.endLine}` : e.file;
}

/** The per-source trace line: `ū_A (API knowledge) = 0.21 · ū_X … = n/a`. */
export function traceLine(sourceUncertainty: Record<Source, number | null>): string {
  return SOURCES.map((s) => {
    const v = sourceUncertainty[s];
    return `ū_${SOURCE_TAGS[s]} (${SOURCE_NAMES[s]}) = ${v === null || v === undefined ? 'n/a' : fmt(v)}`;
  }).join(' · ');
}

function traceNote(sourceUncertainty: Record<Source, number | null>): string {
  const known = SOURCES.filter((s) => typeof sourceUncertainty[s] === 'number');
  const off = SOURCES.filter((s) => !known.includes(s));
  const parts: string[] = [];
  if (known.length >= 2) {
    const sorted = [...known].sort((a, b) => sourceUncertainty[a]! - sourceUncertainty[b]!);
    parts.push(`Most reliable source: ${SOURCE_NAMES[sorted[0]!]}; least reliable: ${SOURCE_NAMES[sorted[sorted.length - 1]!]}.`);
  }
  if (off.length) parts.push(`n/a: ${off.map((s) => SOURCE_NAMES[s]).join(', ')} returned nothing or was switched off.`);
  return parts.join(' ');
}

function evidenceBlock(items: Evidence[], guided: boolean, lang: string, maxChars: number): string {
  if (!items.length) return '(no evidence was retrieved)';
  if (!guided) {
    // Baseline RAG: the same items concatenated in fused order, no uncertainty anywhere.
    return items
      .map((e, i) =>
        render('evidence_item_plain', {
          tag: String(i + 1),
          title: e.title,
          location: location(e),
          lang: languageOf(e.file) || lang,
          text: clip(e.text, maxChars),
        }),
      )
      .join('\n\n');
  }
  const sections: string[] = [];
  for (const s of SOURCES) {
    const mine = items.filter((e) => e.source === s);
    if (!mine.length) continue;
    const body = mine
      .map((e, i) =>
        render('evidence_item_guided', {
          tag: `${SOURCE_TAGS[s]}${i + 1}`,
          title: e.title,
          location: location(e),
          u: fmt(e.u),
          r: fmt(e.r),
          w: fmt(e.w),
          gamma: fmt(e.gamma),
          lang: languageOf(e.file) || lang,
          text: clip(e.text, maxChars),
        }),
      )
      .join('\n\n');
    sections.push(`### ${SOURCE_NAMES[s]}\n${body}`);
  }
  return sections.join('\n\n');
}

/** The evidence a prompt shows: the fused list, in fused order. */
export function promptEvidence(trace: RetrievalTrace | null): Evidence[] {
  return trace ? trace.fused.slice() : [];
}

const NO_TRACE: Record<Source, number | null> = { api: null, context: null, similar: null };

/**
 * The generation prompt. `guided`: evidence grouped by source with each item's uncertainty, the source-wise trace
 * [ū_A, ū_X, ū_S] and the instruction to prefer low-uncertainty evidence. Otherwise Baseline RAG's prompt: the same
 * evidence concatenated without any uncertainty.
 */
export function buildGenerationPrompt(task: PromptTask, trace: RetrievalTrace | null, opts: PromptOptions & { guided: boolean }): BuiltPrompt {
  const t = targetParts(task);
  const evidence = promptEvidence(trace);
  const maxChars = opts.maxEvidenceChars ?? 2400;
  const su = trace?.sourceUncertainty ?? NO_TRACE;
  const common = {
    requirement: task.requirement.trim() || '(no requirement text; follow the signature)',
    target: t.target,
    kind: t.kind,
    name: t.name,
    method_note: t.methodNote,
    lang: t.lang,
  };
  const user = opts.guided
    ? render('generate_guided', { ...common, trace: traceLine(su), trace_note: traceNote(su), evidence: evidenceBlock(evidence, true, t.lang, maxChars) })
    : render('generate_baseline', { ...common, evidence: evidenceBlock(evidence, false, t.lang, maxChars) });
  return builtPrompt(opts.guided ? 'uncertainty-guided' : 'baseline', 'system_generate', user.replace(/\n{3,}/g, '\n\n'), evidence);
}

export interface StaticFinding {
  /** The checker that found it (`pyflakes`, `ast`, `ruff`, …). */
  tool?: string;
  message: string;
  line?: number;
}

export interface RepairPromptInput {
  task: PromptTask;
  trace: RetrievalTrace | null;
  guided: boolean;
  candidate: string;
  findings: StaticFinding[];
  /** Output of the failing tests; only the tail is shown when long. */
  testOutput: string;
  /** 1-based repair round. */
  round: number;
}

/** The validator's repair prompt: task, evidence, the failing candidate, static findings and the failing tests' output. */
export function buildRepairPrompt(input: RepairPromptInput, opts: PromptOptions & { maxTestOutputChars?: number } = {}): BuiltPrompt {
  const t = targetParts(input.task);
  const evidence = promptEvidence(input.trace);
  const maxChars = opts.maxEvidenceChars ?? 1600;
  const maxOut = opts.maxTestOutputChars ?? 4000;
  const su = input.trace?.sourceUncertainty ?? NO_TRACE;
  const evidenceSection = input.guided
    ? `## Retrieval uncertainty trace\n${traceLine(su)}\n\n## Evidence (u = uncertainty of the item)\n${evidenceBlock(evidence, true, t.lang, maxChars)}`
    : `## Retrieved code\n${evidenceBlock(evidence, false, t.lang, maxChars)}`;
  const out = input.testOutput.trim();
  const tail = out.length > maxOut ? `… (${out.length - maxOut} earlier characters not shown)\n${out.slice(-maxOut)}` : out;
  const findings = input.findings.length
    ? input.findings.map((f) => `- ${f.tool ? `[${f.tool}] ` : ''}${f.line !== undefined ? `line ${f.line}: ` : ''}${f.message}`).join('\n')
    : '(none)';
  const user = render('repair', {
    requirement: input.task.requirement.trim() || '(no requirement text; follow the signature)',
    target: t.target,
    evidence_section: evidenceSection,
    round: String(input.round),
    lang: t.lang,
    candidate: input.candidate.replace(/\s+$/, ''),
    findings,
    test_output: tail || '(no test output)',
    kind: t.kind,
    name: t.name,
    method_note: t.methodNote,
    repair_evidence_note: input.guided ? '- When evidence items disagree, prefer the one with the lower uncertainty u.\n' : '',
  });
  return builtPrompt('repair', 'system_repair', user, evidence);
}

// ---- decomposition -------------------------------------------------------------------------------------------

const perSource = (type: 'number' | 'string') => ({
  type: 'object',
  additionalProperties: false,
  required: [...SOURCES],
  properties: Object.fromEntries(SOURCES.map((s) => [s, { type }])),
});

/** JSON schema of a decomposition (strict-mode compatible: every property required, no extra ones). */
export function decompositionSchema(minSteps: number, maxSteps: number): JsonSchemaSpec {
  return {
    name: 'task_decomposition',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['steps'],
      properties: {
        steps: {
          type: 'array',
          minItems: minSteps,
          maxItems: maxSteps,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['text', 'weights', 'queries'],
            properties: { text: { type: 'string' }, weights: perSource('number'), queries: perSource('string') },
          },
        },
      },
    },
  };
}

/** The decomposition prompt (JSON-schema constrained: `minSteps`–`maxSteps` ordered steps with source weights and sub-queries). */
export function buildDecompositionPrompt(task: PromptTask, steps: { min: number; max: number }): BuiltPrompt & { schema: JsonSchemaSpec } {
  const t = targetParts(task);
  const user = render('decompose', {
    min_steps: String(steps.min),
    max_steps: String(steps.max),
    requirement: task.requirement.trim() || '(no requirement text; follow the signature)',
    target: t.target,
  });
  return { ...builtPrompt('decompose', 'system_decompose', user, []), schema: decompositionSchema(steps.min, steps.max) };
}

const num = z.number().finite();
const DecompositionReply = z.object({
  steps: z
    .array(
      z.object({
        text: z.string(),
        weights: z.object({ api: num, context: num, similar: num }),
        queries: z.object({ api: z.string(), context: z.string(), similar: z.string() }),
      }),
    )
    .min(1),
});

export class DecompositionError extends OpenCoderError {
  constructor(message: string) {
    super('engine', message);
  }
}

/** Reads a decomposition reply into Steps: weights clipped to ≥ 0 and normalised to sum 1, empty queries → the step text. */
export function parseDecomposition(reply: string, steps: { min: number; max: number }): { steps: Step[]; warnings: string[] } {
  const warnings: string[] = [];
  const text = reply
    .trim()
    .replace(/^```[\w-]*\s*\n?/, '')
    .replace(/\n?```\s*$/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new DecompositionError(`the decomposition reply is not JSON (${(e as Error).message}): ${reply.slice(0, 160)}`);
  }
  const parsed = DecompositionReply.safeParse(json);
  if (!parsed.success) {
    throw new DecompositionError(
      `the decomposition reply does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  let raw = parsed.data.steps.filter((s) => s.text.trim());
  if (raw.length < steps.min) throw new DecompositionError(`the decomposition has ${raw.length} steps; at least ${steps.min} are needed`);
  if (raw.length > steps.max) {
    warnings.push(`the decomposition has ${raw.length} steps; kept the first ${steps.max}`);
    raw = raw.slice(0, steps.max);
  }
  return {
    warnings,
    steps: raw.map((s, index) => {
      const w = { api: Math.max(0, s.weights.api), context: Math.max(0, s.weights.context), similar: Math.max(0, s.weights.similar) };
      const sum = w.api + w.context + w.similar;
      const weights = sum > 0 ? { api: w.api / sum, context: w.context / sum, similar: w.similar / sum } : { api: 1 / 3, context: 1 / 3, similar: 1 / 3 };
      const q = (v: string) => (v.trim() ? v.trim() : s.text.trim());
      return { index, text: s.text.trim(), weights, queries: { api: q(s.queries.api), context: q(s.queries.context), similar: q(s.queries.similar) } };
    }),
  };
}
