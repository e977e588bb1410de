// Decomposing a requirement into ordered implementation steps with source-intent weights and
// per-source sub-queries. An LLM does it through a JSON-schema-constrained call when one is
// configured; otherwise a deterministic offline decomposition (docs/api-retrieval.md, "Offline
// decomposition") makes a whole-task anchor step plus one step per sentence, with identifier-based
// sub-queries and source-intent weights predicted per step from what the step talks about.

import { SOURCES, type PipelineConfig, type Source } from '../model/config.ts';
import type { Step } from '../model/trace.ts';

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

/** Abbreviations whose period does not end a sentence (matched at the end of the text so far): in any case… */
const ABBREV = /(?:^|[\s([])(?:e\.\s?g|i\.\s?e|etc|vs|cf|viz|approx|incl|resp|esp|et al)\.$/i;
/** …and those written with a capital only ("No. 5", "Fig. 2"), so that "say no." still ends a sentence. */
const TITLE_ABBREV = /(?:^|[\s([])(?:No|Nr|Fig|Eq|Mr|Mrs|Ms|Dr|St)\.$/;
/** What may stand between a sentence's last mark and the space after it: closing brackets and quotes. */
const CLOSERS = ')]}"\'\u201d\u2019\u00bb';

/**
 * Whether the period at `i` (followed by a space or the end at `next`) ends a sentence: not when it is part of an
 * ellipsis ("..."), ends an abbreviation ("e.g.", "etc."), or the next word starts in lower case (what follows
 * continues the sentence). A decimal ("1.5") or a dotted name ("os.path") has no space after its period and never
 * gets here.
 */
function periodEndsSentence(text: string, start: number, i: number, next: number): boolean {
  if (text[i - 1] === '.') return false;
  const sofar = text.slice(start, i + 1);
  if (ABBREV.test(sofar) || TITLE_ABBREV.test(sofar)) return false;
  const after = text.slice(next).trimStart()[0];
  return !(after && /\p{Ll}/u.test(after));
}

/**
 * Splits text into sentences: a period, question or exclamation mark or a semicolon (with any closing brackets or
 * quotes after it) followed by a space or the end. An ellipsis ("…", "..."), an abbreviation ("e.g.", "i.e.",
 * "etc."), a decimal ("1.5") and a period before a lower-case word do not end one; pieces of two letters or fewer
 * are dropped.
 */
export function sentences(text: string): string[] {
  // Doctest examples (a >>> line, its continuation lines and its output, up to a blank line) and reST field lists
  // describe the interface, not steps.
  const kept: string[] = [];
  let inDoctest = false;
  for (const line of text.split('\n')) {
    if (/^\s*>>>/.test(line)) inDoctest = true;
    else if (!line.trim()) inDoctest = false;
    if (inDoctest || /^\s*(:param|:type|:return|:rtype|:raises)/.test(line)) continue;
    kept.push(line);
  }
  const clean = kept.join(' ').replace(/\s+/g, ' ').trim();
  if (!clean) return [];
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < clean.length; i++) {
    const ch = clean[i]!;
    if (ch !== '.' && ch !== '?' && ch !== '!' && ch !== ';') continue;
    let next = i + 1;
    while (next < clean.length && CLOSERS.includes(clean[next]!)) next++;
    if (next < clean.length && clean[next] !== ' ') continue;
    if (ch === '.' && !periodEndsSentence(clean, start, i, next)) continue;
    const piece = clean.slice(start, next).trim();
    if (piece.replace(/[.;!?]/g, '').trim().length > 2) out.push(piece);
    start = next;
    i = next - 1;
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
    .map((p) =>
      p
        .replace(/[:=].*$/s, '')
        .replace(/^[*\s]+/, '')
        .trim(),
    )
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

/** Splits an identifier into lower-case sub-tokens: `parseHTTPDate_v2` → parse, http, date, v2. */
export function subTokens(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((t) => t.length > 1)
    .map((t) => t.toLowerCase());
}

const STOP = new Set(
  'the a an of to in on for and or is are be by with as at from it its this that if else then than into not no any all each when which whose will can may must should return returns given true false none'.split(
    ' ',
  ),
);

/**
 * Code identifiers a piece of requirement text names: backticked words, dotted names, words followed by
 * `(`, snake_case and camelCase words, and CamelCase class-like words. In order of first appearance.
 */
export function textIdentifiers(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\n]{1,80})`/g)) for (const id of m[1]!.match(/[A-Za-z_][\w.]*/g) ?? []) out.add(id.replace(/\.$/, ''));
  for (const m of text.matchAll(/\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)\b/g)) if (!/^(e\.g|i\.e)$/i.test(m[1]!)) out.add(m[1]!);
  for (const m of text.matchAll(/\b([A-Za-z_]\w*)\s*\(/g)) out.add(m[1]!);
  for (const m of text.matchAll(/\b([A-Za-z]\w*_\w+|_+[A-Za-z]\w*|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)\b/g)) out.add(m[1]!);
  return [...out].filter((id) => !STOP.has(id.toLowerCase()));
}

/** Words that say which evidence a step needs; see docs/api-retrieval.md for the rule table. */
const INTENT: Record<Source, RegExp> = {
  api: /\b(call|calls|use|uses|using|helper|function|raise|raises|exception|error|validate|validates|check|checks|convert|converts|parse|parses|encode|decode|format|formats|wrap|delegate|via)\b/i,
  context:
    /\b(class|attribute|attributes|field|fields|self|instance|member|property|config|configuration|setting|settings|module|state|registry|constant|default)\b/i,
  similar: /\b(return|returns|list|string|dict|iterate|loop|sort|sorted|compute|count|reverse|split|join|example|examples|each|every|until|while)\b/i,
};

/**
 * Source-intent weights of one step, predicted from its text: 1 per source, + 1 when the step's words
 * say the source is needed (INTENT), + 1 for API when the step names code identifiers, + 0.5 for
 * context when the target is a method; the anchor step leans on similar code (+ 1). Normalised to 1.
 */
export function intentWeights(text: string, opts: { anchor: boolean; identifiers: number; method: boolean }): Record<Source, number> {
  const w = { api: 1, context: 1, similar: 1 };
  for (const s of SOURCES) if (INTENT[s].test(text)) w[s] += 1;
  if (opts.identifiers > 0) w.api += 1;
  if (opts.method) w.context += 0.5;
  if (opts.anchor) w.similar += 1;
  return normaliseWeights(w);
}

function dedupeWords(words: string[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words) {
    const k = w.toLowerCase();
    if (!w || seen.has(k)) continue;
    seen.add(k);
    out.push(w);
  }
  return out.join(' ');
}

function defaultQueries(stepText: string, input: DecompositionInput): Record<Source, string> {
  const sig = signatureWords(input.signature);
  const where = [input.module, input.className].filter(Boolean).join(' ');
  const ids = textIdentifiers(stepText).filter((id) => id !== sig.name);
  const annotationTypes = (input.signature.match(/\b[A-Z]\w+\b/g) ?? []).filter(
    (t) => !['Optional', 'Union', 'List', 'Dict', 'Tuple', 'Any', 'None', 'Set'].includes(t),
  );
  return {
    // API knowledge: what to call — identifiers the step names and their sub-tokens, the step's content
    // words, then the parameter names and annotation types the target works with.
    api:
      dedupeWords([
        ...ids,
        ...ids.flatMap(subTokens),
        ...(stepText.match(/[A-Za-z][A-Za-z0-9]+/g) ?? []).filter((w) => !STOP.has(w.toLowerCase()) && w.length > 2),
        ...sig.params,
        ...annotationTypes,
      ]) || stepText,
    // Repository context: where the target lives.
    context: `${stepText} ${where} ${sig.name} ${ids.join(' ')}`.trim(),
    // Similar code: code that does the same — the step with the target's signature.
    similar: `${input.signature.trim()} ${stepText}`.trim(),
  };
}

/**
 * The offline decomposition: a whole-task anchor step (signature, name sub-tokens and the first sentence)
 * followed by the requirement's sentences (the tail merged so that at most maxSteps steps are made, padded
 * with a signature step up to minSteps), each with intent weights (intentWeights) and identifier-based queries.
 */
export function fallbackSteps(input: DecompositionInput, limits: { minSteps: number; maxSteps: number }): Step[] {
  let parts = sentences(input.requirement);
  const sig = signatureWords(input.signature);
  const signatureStep = `Implement ${sig.name}(${sig.params.join(', ')})${sig.returns ? ` returning ${sig.returns}` : ''}.`;
  const anchor = [signatureStep, subTokens(sig.name).join(' '), parts[0] ?? ''].filter(Boolean).join(' ').trim();
  const room = Math.max(1, limits.maxSteps - 1);
  if (parts.length > room) {
    // Merge the tail so that no sentence is lost.
    parts = [...parts.slice(0, room - 1), parts.slice(room - 1).join(' ')];
  }
  const texts = [anchor, ...parts];
  while (texts.length < limits.minSteps) texts.push(signatureStep);
  const method = input.className != null && input.className !== '';
  return texts.map((text, index) => ({
    index,
    text,
    weights: intentWeights(text, { anchor: index === 0, identifiers: textIdentifiers(text).filter((id) => id !== sig.name).length, method }),
    queries: defaultQueries(text, input),
  }));
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
            for (const src of SOURCES) if (s.queries?.[src]?.trim()) queries[src] = s.queries[src].trim();
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
      return {
        steps: fallbackSteps(input, limits),
        label: 'fallback',
        warning: `decomposer ${decomposer.label} failed: ${(err as Error).message}; used the fallback`,
      };
    }
  }
  return { steps: fallbackSteps(input, limits), label: 'fallback' };
}
