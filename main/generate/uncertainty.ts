// Generation uncertainty of a candidate set: token entropy, self-consistency and semantic variance, aggregated
// with the weights in PipelineConfig.generation.uncertaintyWeights (0.4 / 0.4 / 0.2 by default).
//
// - Token entropy: from the top-k log-probabilities at each position, the k alternatives plus one bucket for the
//   remaining mass (a lower bound on the full-vocabulary entropy), normalised by ln(k + 1), averaged over tokens
//   and then over candidates. When a backend gives only the chosen token's log-probability, 1 − exp(mean logprob)
//   (one minus the geometric-mean token probability) stands in. When there are no log-probabilities at all
//   (offline, imported samples, servers without them), the stand-in is the normalised entropy of the candidates'
//   distribution over self-consistency groups, −Σ p_g ln p_g / ln n: the sample-based estimate of the output
//   distribution's entropy. The method used is recorded with every value.
// - Self-consistency: 1 − (largest group / n), groups from normalise.ts (Python AST, tokenizer fallback).
// - Semantic variance: 1 − mean pairwise cosine of the candidates' embeddings (of their normalised text).

import type { Encoder } from '../model/encoder.ts';
import { groupByKeys, normaliseCandidates, type NormalisedCode, type PythonOptions } from './normalise.ts';
import type { GenerationUncertainty, LogprobSummary, TokenLogprob, UncertaintyPart } from './types.ts';

export interface UncertaintyWeights {
  entropy: number;
  consistency: number;
  variance: number;
}

/** Summary of one candidate's log-probabilities; null when there are none. */
export function summariseLogprobs(tokens: TokenLogprob[] | null | undefined): LogprobSummary | null {
  if (!tokens || tokens.length === 0) return null;
  const meanLogprob = tokens.reduce((s, t) => s + t.logprob, 0) / tokens.length;
  const withTop = tokens.filter((t) => t.top.length > 0);
  if (withTop.length === 0) {
    return { tokens: tokens.length, meanLogprob, meanEntropy: null, normalised: clamp01(1 - Math.exp(meanLogprob)) };
  }
  let sumH = 0;
  let sumNorm = 0;
  for (const t of withTop) {
    const alts = t.top.some((a) => a.token === t.token) ? t.top : [{ token: t.token, logprob: t.logprob }, ...t.top];
    const ps = alts.map((a) => Math.exp(a.logprob));
    const rest = Math.max(0, 1 - ps.reduce((s, p) => s + p, 0));
    let h = 0;
    for (const p of ps) if (p > 0) h -= p * Math.log(p);
    if (rest > 1e-12) h -= rest * Math.log(rest);
    sumH += h;
    sumNorm += clamp01(h / Math.log(ps.length + 1));
  }
  return { tokens: tokens.length, meanLogprob, meanEntropy: sumH / withTop.length, normalised: sumNorm / withTop.length };
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** 1 − largest group / n (0 when every candidate agrees). */
export function selfConsistency(groups: number[][], n: number): number {
  if (n <= 1) return 0;
  const largest = Math.max(0, ...groups.map((g) => g.length));
  return clamp01(1 - largest / n);
}

/** Normalised entropy of the candidates' distribution over groups (0: all in one group; 1: all different). */
export function groupEntropy(groups: number[][], n: number): number {
  if (n <= 1) return 0;
  let h = 0;
  for (const g of groups) {
    const p = g.length / n;
    if (p > 0) h -= p * Math.log(p);
  }
  return clamp01(h / Math.log(n));
}

/** 1 − mean pairwise cosine of the vectors (0 for fewer than two). Vectors need not be normalised. */
export function semanticVariance(vectors: Float32Array[]): number {
  const n = vectors.length;
  if (n < 2) return 0;
  const norms = vectors.map((v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)));
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = vectors[i]!;
      const b = vectors[j]!;
      let dot = 0;
      for (let k = 0; k < a.length; k++) dot += a[k]! * b[k]!;
      const den = norms[i]! * norms[j]!;
      sum += den > 0 ? dot / den : 0;
      pairs++;
    }
  }
  return clamp01(1 - sum / pairs);
}

export interface UncertaintyOptions {
  weights: UncertaintyWeights;
  /** For semantic variance; without one, variance is not measured and its weight goes to the others. */
  encoder?: Encoder | null;
  python?: PythonOptions;
  /** What stands in for token entropy without log-probabilities (default `group-entropy`; `none` drops the part). */
  entropyFallback?: 'group-entropy' | 'none';
  /** Normalisation already done (batch callers); otherwise computed here. */
  normalised?: NormalisedCode[];
}

export interface UncertaintyResult extends GenerationUncertainty {
  items: NormalisedCode[];
  perCandidateEntropy: (LogprobSummary | null)[];
  notes: string[];
}

/** Weighted mean over the parts that have a value, weights renormalised over those. */
export function aggregate(parts: Record<keyof UncertaintyWeights, number | null>, weights: UncertaintyWeights): number {
  let s = 0;
  let w = 0;
  for (const k of ['entropy', 'consistency', 'variance'] as const) {
    const v = parts[k];
    if (v === null || !(weights[k] > 0)) continue;
    s += weights[k] * v;
    w += weights[k];
  }
  return w > 0 ? clamp01(s / w) : 0;
}

/** All three signals and the aggregate for one candidate set. */
export async function measureGenerationUncertainty(codes: string[], logprobs: (TokenLogprob[] | null)[], opts: UncertaintyOptions): Promise<UncertaintyResult> {
  const n = codes.length;
  const notes: string[] = [];
  let items = opts.normalised;
  if (!items) {
    const res = await normaliseCandidates(codes, opts.python);
    items = res.items;
    if (res.degraded) notes.push(res.degraded);
  }
  const groups = groupByKeys(items.map((x) => x.key));
  const methods = [...new Set(items.map((x) => x.method))].join('+') || 'none';

  const consistency: UncertaintyPart = { value: selfConsistency(groups, n), method: `1 − largest group / n; groups by ${methods}` };

  const perCandidateEntropy = logprobs.map((lp) => summariseLogprobs(lp));
  const measured = perCandidateEntropy.filter((s): s is LogprobSummary => s !== null);
  let entropy: UncertaintyPart;
  if (measured.length) {
    const withTop = measured.filter((s) => s.meanEntropy !== null);
    entropy = {
      value: measured.reduce((s, x) => s + x.normalised, 0) / measured.length,
      method:
        withTop.length === measured.length
          ? `token-logprobs (top-k entropy, normalised; ${measured.length}/${n} candidates)`
          : `chosen-token logprobs (1 − geometric-mean token probability; ${measured.length}/${n} candidates)`,
    };
  } else if ((opts.entropyFallback ?? 'group-entropy') === 'group-entropy') {
    entropy = { value: groupEntropy(groups, n), method: 'group-entropy (no log-probabilities: entropy of the candidates over normalised groups)' };
  } else {
    entropy = { value: null, method: 'not measured (no log-probabilities)' };
  }

  let variance: UncertaintyPart;
  if (!opts.encoder) variance = { value: null, method: 'not measured (no encoder)' };
  else if (n < 2) variance = { value: 0, method: `single candidate (${opts.encoder.name})` };
  else {
    const vectors = await opts.encoder.embed(items.map((x, i) => x.form || codes[i]!));
    variance = { value: semanticVariance(vectors), method: `1 − mean pairwise cosine, ${opts.encoder.name} on normalised code` };
  }

  const weights = opts.weights;
  return {
    entropy,
    consistency,
    variance,
    aggregate: aggregate({ entropy: entropy.value, consistency: consistency.value, variance: variance.value }, weights),
    weights: { ...weights },
    groups,
    items,
    perCandidateEntropy,
    notes,
  };
}
