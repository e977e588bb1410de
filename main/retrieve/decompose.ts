// Decomposing a requirement into ordered implementation steps with source-intent weights and
// per-source sub-queries. An LLM does it through a JSON-schema-constrained call when one is
// configured; otherwise a deterministic fallback works from the requirement's sentences and the
// target signature with uniform weights.

import { SOURCES, type PipelineConfig, type Source } from '../pipeline/config.ts';
import type { Step } from './types.ts';

export interface DecompositionInput {
  requirement: string;
  signature: string;
  /** Target's module and class, when known: they sharpen the context sub-query. */
  module?: string;
  className?: string | null;
}

export interface DecomposedStep {
  text: string;
  weights?: Partial<Record<Source, number>>;
  queries?: Partial<Record<Source, string>>;
}

/** An LLM-backed decomposer (the generation layer provides one); returns its label and steps. */
export interface Decomposer {
  readonly label: string;
  decompose(input: DecompositionInput, limits: { minSteps: number; maxSteps: number }): Promise<DecomposedStep[]>;
}

const ABBREV = /\b(e\.g|i\.e|etc|vs|cf|Mr|Dr|No)\.$/i;

/** Splits text into sentences (a period, question or exclamation mark followed by space and a capital or end). */
export function sentences(text: string): string[] {
  // Doctest examples (a >>> line and its output, up to a blank line) and reST field lists describe
  // the interface, not steps.
  const kept: string[] = [];
  let inDoctest = false;
  for (const line of text.split('\n')) {
    if (/^\s*>>>/.test(line)) inDoctest = true;
    else if (!line.trim()) inDoctest = false;
    if (inDoctest || /^\s*(\.\.\.|:param|:type|:return|:rtype|:raises)/.test(line)) continue;
    kept.push(line);
  }
  const clean = kept
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!clean) return [];
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < clean.length; i++) {
    const ch = clean[i];
    if ((ch === '.' || ch === '?' || ch === '!' || ch === ';') && (i + 1 === clean.length || clean[i + 1] === ' ')) {
      const piece = clean.slice(start, i + 1).trim();
      if (ch === '.' && ABBREV.test(piece)) continue;
      if (piece.replace(/[.;!?]/g, '').trim().length > 2) out.push(piece);
      start = i + 1;
    }
  }
  const tail = clean.slice(start).trim();
  if (tail.length > 2) out.push(tail);
  return out;
}

/** Splits on commas outside brackets and quotes. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let cur = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    else if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out;
}

/** Name, parameter names and return annotation of a Python/TS signature line, as words. */
export function signatureWords(signature: string): { name: string; params: string[]; returns: string | null } {
  const m = /(?:def|function)\s+([A-Za-z_$][\w$]*)\s*\(([\s\S]*)\)\s*(?:->\s*([^:]+))?/.exec(signature);
  const name = m?.[1] ?? signature.trim().split(/[\s(]/)[0] ?? '';
  const params = splitTopLevel(m?.[2] ?? '')
    .map((p) => p.replace(/[:=].*$/s, '').replace(/^[*\s]+/, '').trim())
    .filter((p) => p && p !== 'self' && p !== 'cls' && p !== '/' && p !== '*');
  return { name, params, returns: m?.[3]?.trim() ?? null };
}

function uniformWeights(): Record<Source, number> {
  return { api: 1 / 3, context: 1 / 3, similar: 1 / 3 };
}

/** Normalises weights to sum 1 over the sources; missing or invalid weights count as 0 (all zero → uniform). */
export function normaliseWeights(w: Partial<Record<Source, number>> | undefined): Record<Source, number> {
  const raw = SOURCES.map((s) => {
    const v = w?.[s];
    return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
  });
  const sum = raw.reduce((a, b) => a + b, 0);
  if (!sum) return uniformWeights();
  return { api: raw[0]! / sum, context: raw[1]! / sum, similar: raw[2]! / sum };
}

function defaultQueries(stepText: string, input: DecompositionInput): Record<Source, string> {
  const sig = signatureWords(input.signature);
  const where = [input.module, input.className].filter(Boolean).join(' ');
  return {
    // API knowledge: what to call — the step plus the names the target works with.
    api: `${stepText} ${sig.params.join(' ')}`.trim(),
    // Repository context: where the target lives.
    context: `${stepText} ${where} ${sig.name}`.trim(),
    // Similar code: code that does the same — the step with the target's signature.
    similar: `${input.signature.trim()} ${stepText}`.trim(),
  };
}

/** The deterministic decomposition: the requirement's sentences (merged or padded to fit), uniform weights. */
export function fallbackSteps(input: DecompositionInput, limits: { minSteps: number; maxSteps: number }): Step[] {
  let parts = sentences(input.requirement);
  const sig = signatureWords(input.signature);
  const signatureStep = `Implement ${sig.name}(${sig.params.join(', ')})${sig.returns ? ` returning ${sig.returns}` : ''}.`;
  if (parts.length > limits.maxSteps) {
    // Merge the tail so that no sentence is lost.
    parts = [...parts.slice(0, limits.maxSteps - 1), parts.slice(limits.maxSteps - 1).join(' ')];
  }
  if (parts.length < limits.minSteps) parts = [...parts, signatureStep].slice(0, Math.max(limits.minSteps, parts.length + 1));
  while (parts.length < limits.minSteps) parts.push(signatureStep);
  return parts.map((text, index) => ({ index, text, weights: uniformWeights(), queries: defaultQueries(text, input) }));
}

/** Steps for a task: the LLM's when a decomposer is given and answers validly, otherwise the fallback. */
export async function decompose(
  input: DecompositionInput,
  config: PipelineConfig,
  decomposer?: Decomposer,
): Promise<{ steps: Step[]; label: string; warning?: string }> {
  const limits = { minSteps: config.retrieval.minSteps, maxSteps: config.retrieval.maxSteps };
  if (!config.retrieval.decompose) {
    const text = sentences(input.requirement).join(' ') || input.signature;
    return { steps: [{ index: 0, text, weights: uniformWeights(), queries: defaultQueries(text, input) }], label: 'none' };
  }
  if (decomposer) {
    try {
      const raw = await decomposer.decompose(input, limits);
      const usable = raw.filter((s) => typeof s.text === 'string' && s.text.trim());
      if (usable.length >= limits.minSteps && usable.length <= limits.maxSteps) {
        return {
          label: decomposer.label,
          steps: usable.map((s, index) => {
            const defaults = defaultQueries(s.text, input);
            const queries = { ...defaults };
            for (const src of SOURCES) if (s.queries?.[src]?.trim()) queries[src] = s.queries[src]!.trim();
            return { index, text: s.text.trim(), weights: normaliseWeights(s.weights), queries };
          }),
        };
      }
      return {
        steps: fallbackSteps(input, limits),
        label: 'fallback',
        warning: `decomposer ${decomposer.label} returned ${usable.length} steps (need ${limits.minSteps}–${limits.maxSteps}); used the fallback`,
      };
    } catch (err) {
      return { steps: fallbackSteps(input, limits), label: 'fallback', warning: `decomposer ${decomposer.label} failed: ${(err as Error).message}; used the fallback` };
    }
  }
  return { steps: fallbackSteps(input, limits), label: 'fallback' };
}
