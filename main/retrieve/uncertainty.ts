// Evidence uncertainty: u ∈ [0, 1] for every retrieved item of every source, as a weighted mean of
// named signals, each in [0, 1] with "higher = less trustworthy". The signals:
//
//   relevance    1 − r (clipped to [0, 1]): weakly related items are less trustworthy.
//   margin       (r_top − r) / r_top within the item's list: items far below the best are less certain.
//   dispersion   1 − (r_top − r_last) / 0.2 for the whole list: when nothing stands out, the retriever
//                could not tell the right item from the rest (same value for every item of the list).
//   redundancy   (max cosine to a higher-ranked item of the list − 0.85) / 0.15: a near-copy adds little
//                and may repeat a wrong lead.
//   API knowledge (A):
//     description    0 with a docstring, 0.7 when the description was derived from the signature only
//                    (LLM descriptions: 1 − their mean token probability).
//     importability  0 same module, 0.15 same top-level package, 0.35 another package of the repository,
//                    1 for a private name (`_x`) of another module.
//   Repository context (X):
//     locality       0 the target's own module, 0.2 a module it imports, 0.4 its package, 0.8 elsewhere.
//     support        share of the query's identifier words missing from the chunk text.
//   Similar code (S):
//     arity          |parameters − target's parameters| / max of both: different shapes adapt worse.
//     undocumented   1 without a docstring, 0 with one.
//     locality       as for context, halved: similar code elsewhere is still useful.
//
// ū for a source is the mean u over its retrieved items. Weights below sum to 1 per source.

import type { Source } from '../model/config.ts';
import type { Item } from '../store/items.ts';
import type { UncertaintySignal } from '../model/trace.ts';

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 1);

export const SIGNAL_WEIGHTS: Record<Source, Record<string, number>> = {
  api: { relevance: 0.3, margin: 0.15, dispersion: 0.1, redundancy: 0.1, description: 0.2, importability: 0.15 },
  context: { relevance: 0.3, margin: 0.15, dispersion: 0.1, redundancy: 0.1, locality: 0.2, support: 0.15 },
  similar: { relevance: 0.3, margin: 0.15, dispersion: 0.1, redundancy: 0.1, arity: 0.15, undocumented: 0.1, locality: 0.1 },
};

export interface TargetContext {
  module: string | null;
  /** Modules the target's module imports, as written (`pkg.mod`, `.sibling`, `os`). */
  imports: string[];
  /** Number of parameters of the target (self/cls excluded). */
  arity: number;
}

export interface ScoredItem {
  item: Item;
  r: number;
  vector: Float32Array | null;
}

function topPackage(module: string | null): string {
  return (module ?? '').split('.')[0] ?? '';
}

/** Absolute dotted name of an import as written in `fromModule` (`.utils.slugify` in `pkg.mod` → `pkg.utils.slugify`). */
export function resolveImport(imp: string, fromModule: string): string {
  const name = imp.split('#')[0]!;
  const dots = /^\.+/.exec(name)?.[0].length ?? 0;
  if (!dots) return name;
  const base = fromModule.split('.').slice(0, -dots);
  const rest = name.slice(dots);
  return [...base, ...(rest ? [rest] : [])].join('.');
}

/**
 * The module a `from … import name` brings `name` from, as the indexer records the import (`.validation.is_string`,
 * `.regex.*`) in `fromModule`: absolute dotted name (`pkg.validation`), or null for a plain module import path.
 */
export function importSource(imp: string, fromModule: string): { module: string; name: string } | null {
  const name = imp.split('.').at(-1);
  if (!name) return null;
  return { module: resolveImport(imp.slice(0, imp.length - name.length).replace(/\.$/, '') || '.', fromModule), name };
}

/** How close `module` is to the target's module: 0 same, 0.2 imported by it, 0.4 same package, 0.8 elsewhere. */
/** The target's imports as absolute dotted names, resolved once per target (every candidate of every list asks). */
const resolvedImports = new WeakMap<TargetContext, string[]>();

function absoluteImports(target: TargetContext): string[] {
  let abs = resolvedImports.get(target);
  if (!abs) resolvedImports.set(target, (abs = target.imports.map((imp) => resolveImport(imp, target.module!))));
  return abs;
}

export function localityOf(module: string, target: TargetContext): number {
  if (!target.module) return 0.4;
  if (module === target.module) return 0;
  const imported = absoluteImports(target).some((abs) => abs === module || abs.startsWith(`${module}.`));
  if (imported) return 0.2;
  if (topPackage(module) && topPackage(module) === topPackage(target.module)) return 0.4;
  return 0.8;
}

export function importabilityOf(item: Item, target: TargetContext): number {
  const isPrivate = /^_[^_]/.test(item.name) || /(^|\.)_[^_.][^.]*\./.test(`${item.qualname}.`);
  if (item.module === target.module) return 0;
  if (isPrivate) return 1;
  if (target.module && topPackage(item.module) === topPackage(target.module)) return 0.15;
  return 0.35;
}

function descriptionUncertainty(item: Item): number {
  switch (item.descriptionSource) {
    case 'docstring':
      return 0;
    case 'signature':
      return 0.7;
    case 'llm':
      return 0.3;
    default:
      return 1;
  }
}

const WORDS = /[A-Za-z_][A-Za-z0-9_]{2,}/g;

export function supportOf(query: string, text: string): number {
  const q = new Set((query.match(WORDS) ?? []).map((w) => w.toLowerCase()));
  if (!q.size) return 0.5;
  const t = text.toLowerCase();
  let missing = 0;
  for (const w of q) if (!t.includes(w)) missing++;
  return missing / q.size;
}

function arityOf(item: Item): number {
  return item.params.filter((p) => p.name !== 'self' && p.name !== 'cls').length;
}

function cos(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Scores every item of one source's ranked list (best first); returns signals and u per item. */
export function scoreList(source: Source, list: ScoredItem[], query: string, target: TargetContext): { signals: UncertaintySignal[]; u: number }[] {
  if (!list.length) return [];
  const weights = SIGNAL_WEIGHTS[source];
  const rTop = Math.max(...list.map((x) => x.r));
  const rLast = Math.min(...list.map((x) => x.r));
  const dispersion = list.length < 2 ? 0.5 : clamp01(1 - (rTop - rLast) / 0.2);
  return list.map((x, i) => {
    const sig: Record<string, { value: number; detail: string }> = {
      relevance: { value: clamp01(1 - x.r), detail: `cosine ${x.r.toFixed(3)}` },
      margin: { value: clamp01(rTop > 0 ? (rTop - x.r) / rTop : 1), detail: `best in list ${rTop.toFixed(3)}` },
      dispersion: { value: dispersion, detail: `list spans ${(rTop - rLast).toFixed(3)} in cosine` },
    };
    let maxSim = 0;
    let simTo = '';
    for (let j = 0; j < i; j++) {
      const a = list[j]!.vector;
      if (a && x.vector) {
        const s = cos(a, x.vector);
        if (s > maxSim) {
          maxSim = s;
          simTo = list[j]!.item.title;
        }
      }
    }
    sig.redundancy = { value: clamp01((maxSim - 0.85) / 0.15), detail: simTo ? `cosine ${maxSim.toFixed(3)} to ${simTo}` : 'first of its list' };
    const it = x.item;
    if (source === 'api') {
      sig.description = { value: descriptionUncertainty(it), detail: `description from ${it.descriptionSource}` };
      sig.importability = { value: importabilityOf(it, target), detail: `defined in ${it.module}` };
    } else if (source === 'context') {
      sig.locality = { value: localityOf(it.module, target), detail: `${it.module} vs target ${target.module ?? 'unknown'}` };
      sig.support = { value: supportOf(query, it.text), detail: 'query words missing from the chunk' };
    } else {
      const a = arityOf(it);
      sig.arity = { value: clamp01(Math.abs(a - target.arity) / Math.max(a, target.arity, 1)), detail: `${a} parameters vs ${target.arity}` };
      sig.undocumented = { value: it.description ? 0 : 1, detail: it.description ? 'has a docstring' : 'no docstring' };
      sig.locality = { value: localityOf(it.module, target) / 2, detail: `${it.module} vs target ${target.module ?? 'unknown'}` };
    }
    const signals: UncertaintySignal[] = Object.entries(weights).map(([name, weight]) => ({
      name,
      weight,
      value: sig[name]!.value,
      detail: sig[name]!.detail,
    }));
    const u = clamp01(signals.reduce((acc, s) => acc + s.weight * s.value, 0));
    return { signals, u };
  });
}
