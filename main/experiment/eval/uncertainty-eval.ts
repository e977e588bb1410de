// How well generation uncertainty detects failures, measured on externally generated, officially labelled sample
// sets (CoderEval's ChatGPT samples: 230 tasks × 10 samples with `is_pass` from the official harness).
//
// Protocol: for each task with labels, the uncertainty signals are computed on its whole sample set (all n
// samples, raw code as distributed), and the label is "the first sample fails" (is_pass of sample 1 is false).
// Each signal's AUROC / AUPRC for predicting that label is reported (failure = positive class, higher
// uncertainty should mean failure). No log-probabilities exist for these samples, so token entropy cannot be
// measured: the aggregate uses the group entropy (entropy of the samples over normalised groups) in its place,
// and a second aggregate drops the entropy term and renormalises the other two weights.

import type { Encoder } from '../../model/encoder.ts';
import { auprc, auroc, ece } from '../../stats/metrics.ts';
import type { ImportedSampleSet } from '../../generate/imported-backend.ts';
import { groupByKeys, normaliseCandidates, type PythonOptions } from '../../generate/normalise.ts';
import { aggregate, groupEntropy, selfConsistency, semanticVariance, type UncertaintyWeights } from '../../generate/uncertainty.ts';

export interface TaskSignals {
  taskId: string;
  n: number;
  firstFailed: boolean;
  passRate: number;
  groups: number;
  consistency: number;
  groupEntropy: number;
  variance: number | null;
  /** 0.4·group entropy (standing in for token entropy) + 0.4·consistency + 0.2·variance. */
  aggregate: number;
  /** Entropy dropped: (0.4·consistency + 0.2·variance) / 0.6. */
  aggregateNoEntropy: number;
}

export interface SignalScore {
  signal: string;
  auroc: number;
  auprc: number;
}

export interface SampleSetEvaluation {
  protocol: string;
  tasks: number;
  skipped: number;
  /** Tasks whose first sample fails (the positive class). */
  positives: number;
  samplesPerTask: number[];
  normalisation: Record<string, number>;
  encoder: string | null;
  signals: SignalScore[];
  /** ECE of the aggregate read directly as P(first sample fails), 10 equal-width bins (it is not calibrated). */
  aggregateEce: number;
  perTask: TaskSignals[];
  notes: string[];
}

export const EVAL_PROTOCOL =
  'per task: signals on all samples of the set (raw code) vs. label "sample 1 fails" (official is_pass); failure is the positive class; ' +
  'tasks without labels are skipped; AUROC by Mann–Whitney with tied ranks, AUPRC as average precision';

export async function evaluateSampleSets(
  sets: ImportedSampleSet[],
  opts: { encoder: Encoder | null; weights: UncertaintyWeights; python?: PythonOptions },
): Promise<SampleSetEvaluation> {
  const labelled = sets.filter((s) => s.samples.length > 0 && s.samples.every((x) => typeof x.passed === 'boolean'));
  const codes = labelled.flatMap((s) => s.samples.map((x) => x.code));
  // one Python process for every sample of every task
  const norm = await normaliseCandidates(codes, opts.python);
  const notes = norm.degraded ? [norm.degraded] : [];
  const vectors = opts.encoder ? await opts.encoder.embed(norm.items.map((x, i) => x.form || codes[i]!)) : null;
  const methods: Record<string, number> = {};
  for (const it of norm.items) methods[it.method] = (methods[it.method] ?? 0) + 1;

  const perTask: TaskSignals[] = [];
  let offset = 0;
  for (const s of labelled) {
    const n = s.samples.length;
    const items = norm.items.slice(offset, offset + n);
    const groups = groupByKeys(items.map((x) => x.key));
    const consistency = selfConsistency(groups, n);
    const ge = groupEntropy(groups, n);
    const variance = vectors ? semanticVariance(vectors.slice(offset, offset + n)) : null;
    offset += n;
    perTask.push({
      taskId: s.taskId,
      n,
      firstFailed: s.samples[0]!.passed === false,
      passRate: s.samples.filter((x) => x.passed).length / n,
      groups: groups.length,
      consistency,
      groupEntropy: ge,
      variance,
      aggregate: aggregate({ entropy: ge, consistency, variance }, opts.weights),
      aggregateNoEntropy: aggregate({ entropy: null, consistency, variance }, opts.weights),
    });
  }
  const labels = perTask.map((t) => t.firstFailed);
  const score = (signal: string, xs: number[]): SignalScore => ({ signal, auroc: auroc(xs, labels), auprc: auprc(xs, labels) });
  const signals = [
    score(
      'self-consistency (1 − largest group / n)',
      perTask.map((t) => t.consistency),
    ),
    ...(vectors
      ? [
          score(
            'semantic variance (1 − mean pairwise cosine)',
            perTask.map((t) => t.variance ?? 0),
          ),
        ]
      : []),
    score(
      'group entropy (stand-in for token entropy)',
      perTask.map((t) => t.groupEntropy),
    ),
    score(
      `aggregate ${opts.weights.entropy}/${opts.weights.consistency}/${opts.weights.variance} (group entropy for entropy)`,
      perTask.map((t) => t.aggregate),
    ),
    score(
      'aggregate without entropy (renormalised)',
      perTask.map((t) => t.aggregateNoEntropy),
    ),
  ];
  return {
    protocol: EVAL_PROTOCOL,
    tasks: perTask.length,
    skipped: sets.length - labelled.length,
    positives: labels.filter(Boolean).length,
    samplesPerTask: [...new Set(labelled.map((s) => s.samples.length))].sort((a, b) => a - b),
    normalisation: methods,
    encoder: opts.encoder?.name ?? null,
    signals,
    aggregateEce: ece(
      perTask.map((t) => t.aggregate),
      labels,
    ).ece,
    perTask,
    notes,
  };
}
