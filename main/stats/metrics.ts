// Metrics shared by retrieval evaluation, generation uncertainty and experiments. Pure functions.

/** Area under the ROC curve for scores predicting positives (ties count half). NaN without both classes. */
export function auroc(scores: readonly number[], positives: readonly boolean[]): number {
  if (scores.length !== positives.length) throw new Error('auroc: scores and labels differ in length');
  const idx = scores.map((s, i) => [s, positives[i]!] as const).sort((a, b) => a[0] - b[0]);
  const nPos = positives.filter(Boolean).length;
  const nNeg = positives.length - nPos;
  if (!nPos || !nNeg) return Number.NaN;
  // Mann–Whitney U with average ranks for ties.
  let rankSumPos = 0;
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (idx[k]![1]) rankSumPos += avgRank;
    i = j + 1;
  }
  return (rankSumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/** Area under the precision–recall curve as average precision (step-wise, ties grouped). NaN without positives. */
export function auprc(scores: readonly number[], positives: readonly boolean[]): number {
  if (scores.length !== positives.length) throw new Error('auprc: scores and labels differ in length');
  const nPos = positives.filter(Boolean).length;
  if (!nPos) return Number.NaN;
  const idx = scores.map((s, i) => [s, positives[i]!] as const).sort((a, b) => b[0] - a[0]);
  let tp = 0;
  let fp = 0;
  let prevRecall = 0;
  let ap = 0;
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
    for (let k = i; k <= j; k++) {
      if (idx[k]![1]) tp++;
      else fp++;
    }
    const recall = tp / nPos;
    ap += (recall - prevRecall) * (tp / (tp + fp));
    prevRecall = recall;
    i = j + 1;
  }
  return ap;
}

export type { CalibrationBin } from '../model/estimates.ts';
import type { CalibrationBin } from '../model/estimates.ts';

/**
 * Expected calibration error with `bins` equal-width bins over [0, 1] (the last bin includes 1):
 * Σ (n_b / N) · |mean predicted probability − observed frequency| in each bin.
 */
export function ece(probabilities: readonly number[], outcomes: readonly boolean[], bins = 10): { ece: number; bins: CalibrationBin[] } {
  if (probabilities.length !== outcomes.length) throw new Error('ece: probabilities and outcomes differ in length');
  const out: CalibrationBin[] = Array.from({ length: bins }, (_, b) => ({ lo: b / bins, hi: (b + 1) / bins, count: 0, meanPredicted: 0, observedRate: 0 }));
  probabilities.forEach((p, i) => {
    if (p < 0 || p > 1 || Number.isNaN(p)) throw new Error(`ece: probability ${p} outside [0, 1]`);
    const b = Math.min(bins - 1, Math.floor(p * bins));
    const bin = out[b]!;
    bin.count++;
    bin.meanPredicted += p;
    bin.observedRate += outcomes[i] ? 1 : 0;
  });
  let total = 0;
  for (const bin of out) {
    if (!bin.count) continue;
    bin.meanPredicted /= bin.count;
    bin.observedRate /= bin.count;
    total += (bin.count / probabilities.length) * Math.abs(bin.meanPredicted - bin.observedRate);
  }
  return { ece: probabilities.length ? total : Number.NaN, bins: out };
}

/** Fits p = σ(a·x + b) by Newton's method (Platt scaling); used to calibrate a score on a dev split. */
export function fitPlatt(x: readonly number[], y: readonly boolean[], iterations = 50): { a: number; b: number; predict: (v: number) => number } {
  let a = 0;
  let b = 0;
  for (let it = 0; it < iterations; it++) {
    let ga = 0,
      gb = 0,
      haa = 0,
      hab = 0,
      hbb = 0;
    for (let i = 0; i < x.length; i++) {
      const p = 1 / (1 + Math.exp(-(a * x[i]! + b)));
      const d = p - (y[i] ? 1 : 0);
      const w = Math.max(p * (1 - p), 1e-9);
      ga += d * x[i]!;
      gb += d;
      haa += w * x[i]! * x[i]!;
      hab += w * x[i]!;
      hbb += w;
    }
    // Small ridge term keeps the step defined when one class is separable.
    haa += 1e-6;
    hbb += 1e-6;
    const det = haa * hbb - hab * hab;
    if (Math.abs(det) < 1e-12) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  return { a, b, predict: (v: number) => 1 / (1 + Math.exp(-(a * v + b))) };
}

/** Precision, recall and F1 of a predicted set against a truth set (empty/empty counts as perfect). */
export function setPrf(predicted: ReadonlySet<string>, truth: ReadonlySet<string>): { precision: number; recall: number; f1: number; exact: boolean } {
  let tp = 0;
  for (const p of predicted) if (truth.has(p)) tp++;
  const precision = predicted.size ? tp / predicted.size : truth.size ? 0 : 1;
  const recall = truth.size ? tp / truth.size : 1;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  const exact = tp === truth.size && tp === predicted.size;
  return { precision, recall, f1, exact };
}

export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN;
}

export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
