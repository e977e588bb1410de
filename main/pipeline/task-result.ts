// The stored shape of one task's run (model/results.ts TaskResult): what the pipeline's stages produced, reduced
// to what reports, the UI and resumed runs read back. The `detail` level decides how much of the trace is kept:
// `full` keeps evidence texts and the prompt (interactive runs), `compact` scores and reasons, `none` nothing.

import { SOURCES, type Source } from '../model/config.ts';
import type { ApiScore, CandidateOutcome, ReplyCounts, ReplyKind, TaskDetail, TaskResult, VerdictSummary } from '../model/results.ts';
import type { Task } from '../model/task.ts';
import { isolationOf, passedCount, type Verdict } from '../model/verdict.ts';
import type { Candidate, CandidateSet } from '../generate/types.ts';
import type { RetrievalTrace } from '../model/trace.ts';
import type { Selection } from '../validate/select.ts';
import type { Condition } from './methods.ts';

/** What run-task's stages produced for one (task, condition). */
export interface TaskOutcome {
  task: Task;
  cond: Condition;
  trace: RetrievalTrace;
  set: CandidateSet;
  selection: Selection;
  /** Every raw candidate's verdict, in candidate order. */
  verdicts: Verdict[];
  api: ApiScore | null;
  /** Generation plus repair spend. */
  spend: { usd: number | null; inputTokens: number; outputTokens: number };
  detail: 'compact' | 'full' | 'none';
}

export function summariseVerdict(v: Verdict): VerdictSummary {
  return {
    status: v.status,
    reason: v.reason,
    passedTests: passedCount(v),
    totalTests: v.expectedTests?.length ?? v.tests.length,
    durationMs: v.durationMs,
    ...(v.infrastructure ? { infrastructure: v.infrastructure } : {}),
    isolation: isolationOf(v),
    ...(v.isolationReason ? { isolationReason: v.isolationReason } : {}),
  };
}

/** What a candidate's reply held: a refusal, nothing, prose the extraction found no code in, or code. */
export function replyKind(c: Pick<Candidate, 'refused' | 'reply' | 'extraction'>): ReplyKind {
  if (c.refused) return 'refused';
  if (!c.reply.trim()) return 'empty';
  return c.extraction.ok ? 'code' : 'no-code';
}

export function replyCounts(kinds: readonly ReplyKind[]): ReplyCounts {
  const n = (k: ReplyKind) => kinds.filter((x) => x === k).length;
  return { code: n('code'), empty: n('empty'), noCode: n('no-code'), refused: n('refused') };
}

/**
 * The first verdict of the task (raw candidates in order, then repairs) that the infrastructure decided, as the
 * reason the whole (task, condition) is unscored: selection, repair and Pass@k all read those verdicts. Null when
 * every verdict is the candidate's own.
 */
export function infrastructureFaultOf(
  verdicts: readonly Verdict[],
  repairs: readonly { round: number; verdict: Verdict | null }[],
): TaskResult['unscored'] | null {
  const at = verdicts.findIndex((v) => v.infrastructure);
  if (at >= 0) return { cause: verdicts[at]!.infrastructure!.cause, detail: `candidate ${at + 1}: ${verdicts[at]!.infrastructure!.detail}` };
  const r = repairs.find((x) => x.verdict?.infrastructure);
  return r ? { cause: r.verdict!.infrastructure!.cause, detail: `repair round ${r.round}: ${r.verdict!.infrastructure!.detail}` } : null;
}

export function buildTaskResult(o: TaskOutcome, timingsMs: TaskResult['timingsMs']): TaskResult {
  const { task, cond, trace, set, selection, verdicts, api, spend, detail: level } = o;
  const candidates: CandidateOutcome[] = set.candidates.map((c, i) => ({
    index: i,
    code: c.code,
    group: c.group,
    origin: c.origin ?? null,
    reply: replyKind(c),
    verdict: summariseVerdict(verdicts[i]!),
    passed: verdicts[i]!.status === 'passed',
  }));
  const unscored = infrastructureFaultOf(verdicts, selection.repairs);
  const selectedVerdict = selection.verdict ?? verdicts[selection.candidateIndex ?? 0]!;
  const detail = taskDetail(o, level);
  const config = cond.config;
  const fusedBySource = Object.fromEntries(SOURCES.map((s) => [s, trace.fused.filter((e) => e.source === s).length])) as Record<Source, number>;
  const u = set.uncertainty;
  const rawPassed = selection.candidateVerdicts.some((v) => v?.status === 'passed');
  return {
    taskId: task.id,
    condition: cond.id,
    retrieval: {
      steps: trace.steps.length,
      decomposition: trace.decomposition,
      fused: trace.fused.length,
      fusedBySource,
      sourceUncertainty: trace.sourceUncertainty,
      api,
      promptEvidenceChars: trace.fused.reduce((n, e) => n + e.text.length, 0),
      ...(trace.leak ? { leak: { policy: trace.leak.policy, checked: trace.leak.checked, suspects: trace.leak.suspects.length } } : {}),
    },
    generation: {
      backend: set.backend.id,
      model: set.backend.model,
      promptVersion: set.prompt.version,
      promptKind: set.prompt.kind,
      uncertainty: { aggregate: u.aggregate, entropy: u.entropy.value, consistency: u.consistency.value, variance: u.variance.value },
      groups: u.groups,
      inputTokens: spend.inputTokens,
      outputTokens: spend.outputTokens,
      costUsd: spend.usd,
      warnings: set.warnings,
      replies: replyCounts(candidates.map((c) => c.reply!)),
    },
    candidates,
    n: candidates.length,
    c: candidates.filter((c) => c.passed).length,
    selected: {
      origin: selection.origin,
      candidateIndex: selection.candidateIndex,
      repairRound: selection.repairRound,
      correct: selectedVerdict.status === 'passed',
      status: selectedVerdict.status,
      isolation: isolationOf(selectedVerdict),
      ...(selectedVerdict.isolationReason ? { isolationReason: selectedVerdict.isolationReason } : {}),
      verified: config.validation.verify ? selection.passed : null,
      code: selection.code,
    },
    repairs: selection.repairs.map((r) => ({ round: r.round, passed: r.verdict?.status === 'passed', code: r.code, reason: r.verdict?.reason ?? '' })),
    repairRecovered: !rawPassed && selection.origin === 'repair' && selection.passed,
    repairAttempted: selection.trace.steps.some((s) => s.kind === 'repair' || s.kind === 'repair-error'),
    // Which later candidates a winner cancelled depends on timing; every candidate is evaluated anyway, so
    // those steps are left out and the stored trace is the same on every run.
    selectionTrace: selection.trace.steps.filter((s) => s.kind !== 'cancelled').map((s) => ({ kind: s.kind, note: stepNote(s) })),
    timingsMs,
    ...(detail ? { detail } : {}),
    ...(unscored ? { unscored } : {}),
  };
}

function taskDetail(o: TaskOutcome, level: TaskOutcome['detail']): TaskDetail | undefined {
  const { trace, set, selection, verdicts } = o;
  const compactTests = (v: Verdict | null) =>
    v ? v.tests.map((t) => ({ id: t.id, outcome: t.outcome, ...(t.message ? { message: t.message.slice(0, level === 'full' ? 4000 : 300) } : {}) })) : [];
  const fusedRank = new Map(trace.fused.map((e, i) => [e, i]));
  return level === 'none'
    ? undefined
    : {
        steps: trace.steps.map((st) => ({ index: st.index, text: st.text, weights: st.weights, queries: st.queries })),
        evidence: trace.evidence.map((e) => ({
          key: e.key,
          source: e.source,
          step: e.step,
          rank: e.rank,
          title: e.title,
          file: e.file,
          startLine: e.startLine,
          endLine: e.endLine,
          r: e.r,
          w: e.w,
          u: e.u,
          gamma: e.gamma,
          kept: e.kept,
          reason: e.reason,
          signals: e.signals.map((x) => ({ name: x.name, value: x.value })),
          fusedRank: fusedRank.get(e) ?? null,
          ...(level === 'full' ? { text: e.text } : {}),
        })),
        masked: trace.masked,
        encoder: trace.encoder.name,
        uncertaintyMethods: {
          entropy: set.uncertainty.entropy.method,
          consistency: set.uncertainty.consistency.method,
          variance: set.uncertainty.variance.method,
        },
        prompt: level === 'full' ? set.prompt.messages.map((m) => ({ role: m.role, content: m.content })) : null,
        tests: verdicts.map(compactTests),
        findings: verdicts.map((v) =>
          v.findings.map((f) => ({ kind: f.kind, severity: f.severity, message: f.message, ...(f.line !== undefined ? { line: f.line } : {}) })),
        ),
        repairTests: selection.repairs.map((r) => compactTests(r.verdict)),
      };
}

function stepNote(s: { kind: string } & Record<string, unknown>): string {
  switch (s.kind) {
    case 'validate':
      return `candidate ${s.index}: ${s.status} (${s.reason})`;
    case 'repair':
      return `round ${s.round}: ${s.status} (${s.reason})`;
    case 'repair-error':
      return `round ${s.round}: ${s.message}`;
    case 'group':
      return `groups ${JSON.stringify(s.groups)}; representative ${s.representative}`;
    default:
      return String(s.note ?? '');
  }
}
