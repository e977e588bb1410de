// Fusion: γ = r · w_m(s) · max(0, 1 − α·u); per source and step keep the top ⌈keepFraction · n⌉ items
// (ceil, so a source that found anything keeps at least one); then API refinement (the caller's `refine`
// hook) over the API items the keep rule left, united over steps; merge steps and sources, deduplicate by
// underlying item (the best γ wins and every provenance is remembered), and keep the top K overall,
// with an optional per-source cap. Without uncertainty (Baseline RAG), γ = r · w.

import type { PipelineConfig, Source } from '../model/config.ts';
import type { Evidence } from '../model/trace.ts';

export function gammaOf(r: number, w: number, u: number, alpha: number, useUncertainty: boolean): number {
  return useUncertainty ? r * w * Math.max(0, 1 - alpha * u) : r * w;
}

export function keepCount(n: number, fraction: number): number {
  if (n <= 0) return 0;
  return Math.min(n, Math.max(1, Math.ceil(fraction * n - 1e-9)));
}

/**
 * Applies the keep rule and fusion to evidence already scored (r, w, u) and refined (items removed by
 * refinement arrive with kept = false and their reason). Mutates kept / reason / gamma / provenance;
 * returns the fused list, best first.
 */
export interface FuseHooks {
  /**
   * API refinement: receives the API items still kept (after the keep rule when fusing), best γ first, and
   * drops what it decides (kept = false, reason, droppedAt).
   */
  refine?: (api: Evidence[]) => void;
}

export function fuse(evidence: Evidence[], config: PipelineConfig['fusion'], hooks: FuseHooks = {}): Evidence[] {
  for (const e of evidence) e.gamma = gammaOf(e.r, e.w, e.u, config.alpha, config.useUncertainty);
  const refine = () =>
    hooks.refine?.(evidence.filter((e) => e.kept && e.source === 'api').sort((a, b) => b.gamma - a.gamma || a.step - b.step || a.rank - b.rank));
  if (config.mode === 'concatenate') {
    refine();
    return concatenate(evidence, config);
  }
  // 1. top fraction per (source, step), among items refinement left in
  const groups = new Map<string, Evidence[]>();
  for (const e of evidence) {
    if (!e.kept) continue;
    const k = `${e.source}|${e.step}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(e);
  }
  for (const g of groups.values()) {
    g.sort((a, b) => b.gamma - a.gamma || a.rank - b.rank);
    const keep = keepCount(g.length, config.keepFraction);
    g.forEach((e, i) => {
      if (i >= keep) {
        e.kept = false;
        e.droppedAt = 'keep';
        e.reason = `below the top ${Math.round(config.keepFraction * 100)} % of ${e.source} in step ${e.step + 1} (kept ${keep} of ${g.length})`;
      }
    });
  }
  refine();
  // 2. dedup by underlying item: best γ wins, provenances merge
  const best = new Map<string, Evidence>();
  for (const e of evidence.filter((x) => x.kept).sort((a, b) => b.gamma - a.gamma || a.rank - b.rank)) {
    const prev = best.get(e.key);
    if (!prev) {
      best.set(e.key, e);
      e.provenance = [{ source: e.source, step: e.step, gamma: e.gamma }];
      continue;
    }
    prev.provenance.push({ source: e.source, step: e.step, gamma: e.gamma });
    e.kept = false;
    e.droppedAt = 'dedup';
    e.reason = `duplicate of the same item found by ${prev.source} in step ${prev.step + 1} with higher γ`;
  }
  // 3. top K overall with an optional per-source cap
  const ranked = [...best.values()].sort((a, b) => b.gamma - a.gamma || a.rank - b.rank);
  const fused: Evidence[] = [];
  const perSource = new Map<Source, number>();
  for (const e of ranked) {
    const n = perSource.get(e.source) ?? 0;
    if (config.perSourceCap != null && n >= config.perSourceCap) {
      e.kept = false;
      e.droppedAt = 'cap';
      e.reason = `over the per-source cap of ${config.perSourceCap} for ${e.source}`;
      continue;
    }
    if (fused.length >= config.topK) {
      e.kept = false;
      e.droppedAt = 'topk';
      e.reason = `outside the fused top ${config.topK}`;
      continue;
    }
    perSource.set(e.source, n + 1);
    e.reason = `kept: fused rank ${fused.length + 1}`;
    fused.push(e);
  }
  return fused;
}

/**
 * Plain RAG: no scores decide anything. Each source's items in its own order (step, then its rank), duplicates
 * of an item already taken skipped; sources take turns until top K are chosen (an equal share, so the budget
 * matches fusion's), and the list is shown source by source.
 */
function concatenate(evidence: Evidence[], config: PipelineConfig['fusion']): Evidence[] {
  const order: Source[] = ['api', 'context', 'similar'];
  const queues = new Map<Source, Evidence[]>(
    order.map((s) => [s, evidence.filter((e) => e.source === s && e.kept).sort((a, b) => a.step - b.step || a.rank - b.rank)]),
  );
  const taken = new Map<string, Evidence>();
  const chosen: Evidence[] = [];
  for (let progress = true; progress && chosen.length < config.topK;) {
    progress = false;
    for (const s of order) {
      const q = queues.get(s)!;
      while (q.length) {
        const e = q.shift()!;
        const prev = taken.get(e.key);
        if (prev) {
          prev.provenance.push({ source: e.source, step: e.step, gamma: e.gamma });
          e.kept = false;
          e.droppedAt = 'dedup';
          e.reason = `duplicate of the same item already taken from ${prev.source}`;
          continue;
        }
        if (chosen.length >= config.topK) break;
        taken.set(e.key, e);
        e.provenance = [{ source: e.source, step: e.step, gamma: e.gamma }];
        chosen.push(e);
        progress = true;
        break;
      }
    }
  }
  const fused = order.flatMap((s) => chosen.filter((e) => e.source === s));
  fused.forEach((e, i) => (e.reason = `kept: concatenated position ${i + 1} (no fusion)`));
  for (const e of evidence) {
    if (!e.kept || taken.get(e.key) === e) continue;
    e.kept = false;
    const prev = taken.get(e.key);
    e.droppedAt = prev ? 'dedup' : 'topk';
    e.reason = prev ? `duplicate of the same item already taken from ${prev.source}` : `beyond the ${config.topK} items concatenated`;
  }
  return fused;
}
