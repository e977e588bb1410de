// The API selector: which of the retrieved API items the target needs, and so how many. A logistic model
// over per-API features (below), fitted on a declared development split by scripts/fit-api-selector.ts and
// shipped as resources/api-selector.json (version, features, standardisation, weights, threshold). It is
// deterministic: the same trace and index give the same decision, and every decision is recorded in the
// trace (the item's `selector` and `support` uncertainty signals and, when dropped, its reason).
//
// Features of one candidate API (a canonical API — `X.__init__` ≡ `X` — over its occurrences in the API
// lists of every step, before the keep rule):
//   support        share of the steps whose API list holds it
//   best_rank      1 / (1 + best rank in any step's list)
//   r_max          best cosine to a step's API query
//   gamma_rel      its best γ (before selection) / the best γ of any candidate of the task
//   gamma_gap      (its γ − the next candidate's γ) / the best γ: a clear step down after it
//   name_in_text   its name is a word of the requirement (case-insensitive)
//   in_signature   its name is a word of the signature: already given there (a type in an annotation), so
//                  rarely something the body still needs
//   token_overlap  share of its name's sub-tokens that are words of the requirement or signature
//   defined_here   defined in the target's own module
//   imported       the target's module imports it by name (or its module)
//   import_unused  imported, and no other unit of the module uses it: the import is there for the target
//   sibling_calls  how many other units of the target's module use it (log-scaled, 1 at ≥ 9)
//   similar_calls  share of the retrieved similar-code units that use it
//   also_similar   the same unit was also retrieved as similar code
//   u_base         its lowest uncertainty from the rule-based signals
//   is_class, is_value (constant / class attribute), is_method, is_private
//   type_alias     a value that is a type variable or alias (`T = TypeVar('T')`, `X = Union[…]`)
//   n_candidates   1 / number of candidates (a task with few candidates needs less evidence per API)

import { subTokens } from './decompose.ts';
import type { Evidence } from '../model/trace.ts';
import SELECTOR_JSON from '../../resources/api-selector.json' with { type: 'json' };

export const SELECTOR_FEATURES = [
  'support',
  'best_rank',
  'r_max',
  'gamma_rel',
  'gamma_gap',
  'name_in_text',
  'in_signature',
  'token_overlap',
  'defined_here',
  'imported',
  'import_unused',
  'sibling_calls',
  'similar_calls',
  'also_similar',
  'u_base',
  'is_class',
  'is_value',
  'is_method',
  'is_private',
  'type_alias',
  'n_candidates',
] as const;

export type SelectorFeature = (typeof SELECTOR_FEATURES)[number];

export interface SelectorModel {
  version: string;
  features: string[];
  /** Standardisation applied before the weights: (x − mean) / scale. */
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
  /** Select when p ≥ threshold. */
  threshold: number;
  /** What it was fitted on (split rule, tasks, items, encoder, manifest hash). */
  fittedOn: Record<string, unknown>;
}

export function shippedSelector(): SelectorModel {
  const m = SELECTOR_JSON as unknown as SelectorModel;
  if (m.features.join(',') !== SELECTOR_FEATURES.join(',')) {
    throw new Error(
      `resources/api-selector.json (version ${m.version}) has features ${m.features.join(', ')}, not the engine's ${SELECTOR_FEATURES.join(', ')}; re-fit it with scripts/fit-api-selector.ts`,
    );
  }
  return m;
}

export function canonicalOf(module: string, qualname: string): string {
  return `${module}:${qualname.replace(/\.(__init__|constructor)$/, '')}`;
}

/** Last component of a canonical API, lower-cased: what bare-name matching compares. */
export function bareName(canonical: string): string {
  const q = canonical.includes(':') ? canonical.slice(canonical.indexOf(':') + 1) : canonical;
  return (q.split('.').pop() ?? q).toLowerCase();
}

export interface SelectionContext {
  requirement: string;
  signature: string;
  targetModule: string | null;
  /** Imports of the target's module, as the indexer records them (`.validation.is_string`, `os.path`). */
  targetImports: string[];
  /** Calls of the other units of the target's module (masked units excluded), one list per unit. */
  siblingCalls: string[][];
  /** Calls of the similar-code units retrieved for the task, one list per unit. */
  similarCalls: string[][];
  /** Keys of the similar-code items retrieved (`unit:12`). */
  similarKeys: Set<string>;
  /** Number of decomposition steps. */
  steps: number;
  alpha: number;
}

export interface Candidate {
  canonical: string;
  name: string;
  module: string;
  qualname: string;
  subkind: string;
  occurrences: Evidence[];
  features: number[];
  p: number;
  selected: boolean;
}

const words = (text: string) => new Set((text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).map((w) => w.toLowerCase()));

/** A value assigned a type variable or a typing construct: `T = TypeVar('T')`, `Num = Union[int, float]`. */
const TYPE_ALIAS =
  /=\s*(?:typing\.|t\.)?(?:TypeVar|NewType|ParamSpec|Union|Optional|Callable|Type|Tuple|List|Dict|Mapping|Sequence|Iterable|Iterator|Literal|Any)\b/;

function usesName(calls: string[], name: string): boolean {
  return calls.some((c) => c === name || c.split('.').includes(name));
}

/** Features of every candidate API among `api` (API evidence left by the refinement rules), in SELECTOR_FEATURES order. */
export function candidateFeatures(api: Evidence[], ctx: SelectionContext): Candidate[] {
  const groups = new Map<string, Evidence[]>();
  for (const e of api) {
    const k = canonicalOf(e.module, e.qualname);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(e);
  }
  const textWords = words(ctx.requirement);
  const signatureWords = words(ctx.signature);
  const textTokens = new Set([...textWords, ...signatureWords].flatMap((w) => [w, ...subTokens(w)]));
  const gammaBase = (e: Evidence) => e.r * e.w * Math.max(0, 1 - ctx.alpha * e.u);
  const rows = [...groups.entries()].map(([canonical, occ]) => {
    const first = occ[0]!;
    const name =
      (first.qualname
        .replace(/\.(__init__|constructor)$/, '')
        .split('.')
        .pop() ??
        first.qualname) ||
      first.title;
    return { canonical, occ, name, gamma: Math.max(...occ.map(gammaBase)) };
  });
  rows.sort((a, b) => b.gamma - a.gamma || a.canonical.localeCompare(b.canonical));
  const gTop = rows[0]?.gamma || 1;
  const imported = (name: string, module: string) =>
    ctx.targetImports.some((imp) => {
      const parts = imp.split('.');
      return (
        parts.at(-1) === name || (parts.at(-1) === '*' && module.endsWith(parts.filter(Boolean).slice(0, -1).join('.'))) || imp.replace(/^\.+/, '') === module
      );
    });
  const similarUnits = ctx.similarCalls.length;
  return rows.map((row, i) => {
    const { occ, name } = row;
    const first = occ[0]!;
    const steps = new Set(occ.map((e) => e.step)).size;
    const tokens = subTokens(name);
    const overlap = tokens.length ? tokens.filter((t) => textTokens.has(t)).length / tokens.length : 0;
    const sib = ctx.siblingCalls.filter((c) => usesName(c, name)).length;
    const sim = similarUnits ? ctx.similarCalls.filter((c) => usesName(c, name)).length / similarUnits : 0;
    const subkind = first.subkind ?? '';
    const isValue = subkind === 'constant' || subkind === 'attribute';
    const isImported = imported(name, first.module);
    const f: Record<SelectorFeature, number> = {
      support: ctx.steps ? steps / ctx.steps : 0,
      best_rank: 1 / (1 + Math.min(...occ.map((e) => e.rank))),
      r_max: Math.max(...occ.map((e) => e.r)),
      gamma_rel: row.gamma / gTop,
      gamma_gap: (row.gamma - (rows[i + 1]?.gamma ?? 0)) / gTop,
      name_in_text: textWords.has(name.toLowerCase()) ? 1 : 0,
      in_signature: signatureWords.has(name.toLowerCase()) ? 1 : 0,
      token_overlap: overlap,
      defined_here: ctx.targetModule != null && first.module === ctx.targetModule ? 1 : 0,
      imported: isImported ? 1 : 0,
      import_unused: isImported && sib === 0 ? 1 : 0,
      sibling_calls: Math.min(1, Math.log1p(sib) / Math.log(10)),
      similar_calls: sim,
      also_similar: first.key.startsWith('unit:') && ctx.similarKeys.has(first.key) ? 1 : 0,
      u_base: Math.min(...occ.map((e) => e.u)),
      is_class: subkind === 'class' ? 1 : 0,
      is_value: isValue ? 1 : 0,
      is_method: subkind === 'method' ? 1 : 0,
      is_private: /^_[^_]/.test(name) ? 1 : 0,
      type_alias: isValue && TYPE_ALIAS.test(first.text) ? 1 : 0,
      n_candidates: 1 / rows.length,
    };
    return {
      canonical: row.canonical,
      name,
      module: first.module,
      qualname: first.qualname,
      subkind,
      occurrences: occ,
      features: SELECTOR_FEATURES.map((k) => f[k]),
      p: 0,
      selected: false,
    };
  });
}

export function probability(model: SelectorModel, x: number[]): number {
  let z = model.bias;
  for (let i = 0; i < x.length; i++) z += model.weights[i]! * ((x[i]! - model.mean[i]!) / (model.scale[i]! || 1));
  return 1 / (1 + Math.exp(-z));
}

/** The features that pushed p up (or down) the most, as a short phrase for the trace. */
export function explain(model: SelectorModel, c: Candidate): string {
  const parts = c.features
    .map((x, i) => ({ name: model.features[i]!, x, contrib: model.weights[i]! * ((x - model.mean[i]!) / (model.scale[i]! || 1)) }))
    .sort((a, b) => Math.abs(b.contrib) - Math.abs(a.contrib))
    .slice(0, 3)
    .map((t) => `${t.name} ${Number.isInteger(t.x) ? t.x : t.x.toFixed(2)} (${t.contrib >= 0 ? '+' : '−'})`);
  return parts.join(', ');
}

export function decide(model: SelectorModel, candidates: Candidate[]): Candidate[] {
  for (const c of candidates) {
    c.p = probability(model, c.features);
    c.selected = c.p >= model.threshold;
  }
  return candidates;
}

/** Weights of the two selection signals in an API item's u; the rule-based signals share the rest. */
export const SELECTION_SIGNAL_WEIGHTS = { selector: 0.6, support: 0.1 } as const;
