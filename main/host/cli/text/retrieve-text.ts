// How retrieval reads in a terminal: one task's trace (steps, fused evidence, what was dropped, the leakage audit)
// and the API-retrieval evaluation under both protocols.

import {
  API_PROTOCOLS,
  PREDICTION_SCOPES,
  PROTOCOL_RULES,
  type ApiProtocol,
  type PredictionScope,
  type ProtocolReport,
} from '../../../experiment/eval/api-eval.ts';
import type { ManifestApiRun } from '../../../experiment/eval/api-run.ts';
import { fixed } from '../../../model/format.ts';
import type { RetrievalTrace } from '../../../model/trace.ts';

const f = (x: number) => fixed(x, 3);

/** The leakage audit's line (and one per suspect) for a trace; a trace stored before the audit says so. */
export function leakLines(trace: RetrievalTrace): string[] {
  const a = trace.leak;
  if (!a) return ['Leak audit: not run (policy off, or a trace stored before the audit existed)'];
  return [
    `Leak audit (${a.policy}): leak suspects: ${a.suspects.length} of ${a.checked} items, compared with ${a.against.join(', ') || 'nothing (no reference and no test sources found)'}`,
    ...a.suspects.map(
      (s) =>
        `  ${a.policy === 'drop' ? 'dropped' : 'flagged'}: ${s.title} — ${s.kind === 'token-run' ? 'shares a run of tokens with' : 'holds a value asserted by'} the ${s.against}: ${s.match.slice(0, 120)}`,
    ),
  ];
}

export function traceLines(trace: RetrievalTrace): string[] {
  const u = trace.sourceUncertainty;
  return [
    `Task ${trace.taskId} — decomposition: ${trace.decomposition}; encoder: ${trace.encoder.name}`,
    `Masked (target and units containing its reference): ${trace.masked.join(', ') || 'none (target not found in the index)'}`,
    `Source uncertainty ū: API ${u.api == null ? '—' : f(u.api)}, context ${u.context == null ? '—' : f(u.context)}, similar code ${u.similar == null ? '—' : f(u.similar)}`,
    ...leakLines(trace),
    '',
    'Steps:',
    ...trace.steps.map((s) => `  ${s.index + 1}. ${s.text}  [w: A ${f(s.weights.api)} X ${f(s.weights.context)} S ${f(s.weights.similar)}]`),
    '',
    `Fused evidence (top ${trace.fused.length}):`,
    ...trace.fused.map(
      (e, i) =>
        `  ${String(i + 1).padStart(2)}. [${e.source}] ${e.title} (${e.file}:${e.startLine})  r ${f(e.r)}  w ${f(e.w)}  u ${f(e.u)}  γ ${f(e.gamma)}  via ${e.finders.join('+')}`,
    ),
    '',
    'Dropped:',
    ...trace.evidence.filter((e) => !e.kept).map((e) => `  [${e.source} s${e.step + 1}] ${e.title}  r ${f(e.r)}  u ${f(e.u)}  γ ${f(e.gamma)}  — ${e.reason}`),
  ];
}

/** One scope's figures under a protocol: P / R / F1, exact match, count reliability, strict, bare and held-out F1. */
function scopeLine(name: string, r: ProtocolReport): string {
  const s = r.summary;
  return (
    `  ${name.padEnd(10)} ${s.matching.padEnd(6)} over ${s.tasks} tasks: P ${f(s.precision)} R ${f(s.recall)} F1 ${f(s.f1)} exact ${f(s.exactMatch)}; count over ${s.count.over} / exact ${s.count.exact} / under ${s.count.under}` +
    `; strict F1 ${f(s.strict.f1)}, bare F1 ${f(s.bare.f1)}; held-out F1 ${f(s.heldOut.f1)} (${s.heldOut.tasks} tasks)`
  );
}

/** A protocol's block: its rules, a line per scope, per benchmark (when there are several) and the uncertainty line. */
function protocolLines(run: ManifestApiRun, p: ApiProtocol, headline: ApiProtocol, scope: PredictionScope, tasks: number): string[] {
  const report = run[p][scope];
  const benchmarks = Object.entries(report.benchmarks);
  const u = report.summary.uncertainty;
  return [
    `Protocol ${p}${p === headline ? ' (headline)' : ''}: pool = ${PROTOCOL_RULES[p].pool}; ${PROTOCOL_RULES[p].matching} matching; empty truths ${PROTOCOL_RULES[p].emptyTruths}; ${run[p].kept.summary.tasksWithTruth} of ${tasks} tasks have a non-empty truth`,
    ...PREDICTION_SCOPES.map((sc) => scopeLine(sc, run[p][sc])),
    ...(benchmarks.length > 1
      ? [
          `  per benchmark (${scope}): ${benchmarks.map(([b, s]) => `${b} F1 ${f(s.f1)} exact ${f(s.exactMatch)} (${s.tasks})`).join('; ')}; mean F1 ${f(report.meanOverBenchmarks!.f1)}`,
        ]
      : []),
    `  uncertainty: ${u.items} held-out items (${u.wrongItems} false positives, ${u.heldOutTasks} tasks): AUROC ${f(u.auroc)}, AUPRC ${f(u.auprc)}, ECE raw ${f(u.eceRaw)}, after Platt ${f(u.eceCalibrated)}${u.degenerate ? ` — degenerate: ${u.degenerate}` : ''}`,
  ];
}

/** What `eval-api` prints: the manifest and settings, then each protocol's block. */
export function evalApiLines(
  head: { file: string; hash: string; tasks: number; refine: boolean; encoder: string },
  run: ManifestApiRun,
  protocol: ApiProtocol,
  scope: PredictionScope,
): string[] {
  return [
    `Manifest ${head.file} (${head.hash.slice(0, 12)}), ${head.tasks} tasks, API refinement ${head.refine ? 'on' : 'off'}, encoder ${head.encoder}`,
    ...API_PROTOCOLS.flatMap((p) => protocolLines(run, p, protocol, scope, head.tasks)),
  ];
}
