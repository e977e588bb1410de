// One task under one condition, end to end: retrieve → generate → (verify, select, repair) → evaluate.
// The method's own validation follows its config (Baseline RAG returns its normalised-mode candidate unseen), but every
// raw candidate and repair is also run against the tests to measure it: that evaluation never changes what the
// method selects, it only records whether it was right (Pass@k, selected-output correctness).

import type { Encoder } from '../model/encoder.ts';
import type { Task } from '../model/task.ts';
import type { ApiScore, CandidateOutcome, TaskDetail, TaskResult, VerdictSummary } from '../model/results.ts';
import { generateCandidates, makeRepairer } from '../generate/generate.ts';
import { groupCandidates, type PythonOptions } from '../generate/normalise.ts';
import type { PriceTable } from '../generate/cost.ts';
import type { LlmBackend } from '../generate/types.ts';
import { scoreRunApis } from './api-score.ts';
import type { Decomposer } from '../retrieve/decompose.ts';
import { retrieveForTask } from '../retrieve/engine.ts';
import type { VectorIndexCache } from '../retrieve/vector-index.ts';
import type { Store } from '../store/store.ts';
import { selectCandidate } from '../validate/select.ts';
import { passedCount, type Verdict } from '../model/verdict.ts';
import type { Validator } from '../validate/validator.ts';
import { SOURCES, type Source } from '../model/config.ts';
import type { Condition } from './methods.ts';

export interface TaskServices {
  store: Store;
  encoder: Encoder;
  /** Repository id of each task's repository, by absolute path. */
  repoIds: Map<string, number>;
  backend: LlmBackend;
  validator: Validator;
  /** LLM decomposition for conditions that decompose (absent: the deterministic fallback). */
  decomposer?: (task: Task, signal?: AbortSignal) => Decomposer;
  prices?: PriceTable;
  python?: PythonOptions;
  cache?: VectorIndexCache;
  runId?: string;
  seed?: number;
  /** `full` keeps evidence texts and the prompt (interactive runs); `compact` (default) keeps scores and reasons. */
  detail?: 'compact' | 'full' | 'none';
}

/** Thrown with the stage that failed, so a run can store where a task broke. */
export class TaskRunError extends Error {
  constructor(
    readonly stage: 'retrieve' | 'generate' | 'validate' | 'evaluate',
    readonly taskId: string,
    readonly condition: string,
    cause: unknown,
  ) {
    super(`${taskId} / ${condition}: ${stage} failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = (cause as Error)?.name === 'AbortError' ? 'AbortError' : 'TaskRunError';
  }
}

export function summariseVerdict(v: Verdict): VerdictSummary {
  return {
    status: v.status,
    reason: v.reason,
    passedTests: passedCount(v),
    totalTests: v.expectedTests?.length ?? v.tests.length,
    durationMs: v.durationMs,
  };
}


async function stage<T>(name: TaskRunError['stage'], task: Task, cond: Condition, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof TaskRunError) throw err;
    throw new TaskRunError(name, task.id, cond.id, err);
  }
}

export async function runTask(task: Task, cond: Condition, svc: TaskServices, signal?: AbortSignal): Promise<TaskResult> {
  const t0 = performance.now();
  const config = cond.config;
  const repoId = svc.repoIds.get(task.repoPath);
  if (repoId === undefined) throw new TaskRunError('retrieve', task.id, cond.id, new Error(`the repository ${task.repoPath} is not indexed`));

  const trace = await stage('retrieve', task, cond, () =>
    retrieveForTask({
      store: svc.store,
      encoder: svc.encoder,
      repoId,
      task,
      config,
      persist: false,
      ...(svc.cache ? { cache: svc.cache } : {}),
      ...(config.retrieval.decompose && svc.decomposer ? { decomposer: svc.decomposer(task, signal) } : {}),
    }),
  );
  const tRetrieve = performance.now();

  const genOpts = {
    backend: svc.backend,
    config,
    encoder: svc.encoder,
    ...(svc.prices ? { prices: svc.prices } : {}),
    ...(signal ? { signal } : {}),
    ...(svc.runId ? { runId: svc.runId } : {}),
    ...(svc.seed !== undefined ? { seed: svc.seed } : {}),
    ...(svc.python ? { python: svc.python } : {}),
  };
  const set = await stage('generate', task, cond, () => generateCandidates(task, trace, genOpts));
  const tGenerate = performance.now();

  const codes = set.candidates.map((c) => c.code);
  // Repairs spend tokens too: their cost is added to the task's.
  const spend = { usd: set.cost.usd, inputTokens: set.usage.inputTokens, outputTokens: set.usage.outputTokens };
  const repairer = makeRepairer({
    ...genOpts,
    trace,
    onSet: (r) => {
      spend.usd = spend.usd === null || r.cost.usd === null ? null : spend.usd + r.cost.usd;
      spend.inputTokens += r.usage.inputTokens;
      spend.outputTokens += r.usage.outputTokens;
    },
  });
  const selection = await stage('validate', task, cond, () =>
    selectCandidate({
      task,
      candidates: codes,
      validator: svc.validator,
      group: (c) => groupCandidates(c, svc.python),
      repair: svc.backend.capabilities.repair === false ? null : repairer,
      config,
      ...(signal ? { signal } : {}),
    }),
  );

  // Evaluation: every raw candidate against the tests (identical code reuses its verdict).
  const verdicts = await stage('evaluate', task, cond, () =>
    Promise.all(codes.map((code, i) => selection.candidateVerdicts[i] ?? svc.validator.validate(task, code, signal ? { signal } : {}))),
  );
  const candidates: CandidateOutcome[] = set.candidates.map((c, i) => ({
    index: i,
    code: c.code,
    group: c.group,
    origin: c.origin ?? null,
    verdict: summariseVerdict(verdicts[i]!),
    passed: verdicts[i]!.status === 'passed',
  }));
  const selectedVerdict = selection.verdict ?? verdicts[selection.candidateIndex ?? 0]!;
  const tValidate = performance.now();

  let api: ApiScore | null = null;
  if ((task.reference || task.ground_truth_apis?.length) && config.retrieval.sources.api) {
    api = await stage('evaluate', task, cond, () =>
      scoreRunApis({ store: svc.store, encoder: svc.encoder, repoId, task, trace, config, ...(svc.cache ? { cache: svc.cache } : {}) }),
    );
  }

  const level = svc.detail ?? 'compact';
  const compactTests = (v: Verdict | null) => (v ? v.tests.map((t) => ({ id: t.id, outcome: t.outcome, ...(t.message ? { message: t.message.slice(0, level === 'full' ? 4000 : 300) } : {}) })) : []);
  const fusedRank = new Map(trace.fused.map((e, i) => [e, i]));
  const detail: TaskDetail | undefined =
    level === 'none'
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
          uncertaintyMethods: { entropy: set.uncertainty.entropy.method, consistency: set.uncertainty.consistency.method, variance: set.uncertainty.variance.method },
          prompt: level === 'full' ? set.prompt.messages.map((m) => ({ role: m.role, content: m.content })) : null,
          tests: verdicts.map(compactTests),
          findings: verdicts.map((v) => v.findings.map((f) => ({ kind: f.kind, severity: f.severity, message: f.message, ...(f.line !== undefined ? { line: f.line } : {}) }))),
          repairTests: selection.repairs.map((r) => compactTests(r.verdict)),
        };

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
      verified: config.validation.verify ? selection.passed : null,
      code: selection.code,
    },
    repairs: selection.repairs.map((r) => ({ round: r.round, passed: r.verdict?.status === 'passed', code: r.code, reason: r.verdict?.reason ?? '' })),
    repairRecovered: !rawPassed && selection.origin === 'repair' && selection.passed,
    repairAttempted: selection.trace.steps.some((s) => s.kind === 'repair' || s.kind === 'repair-error'),
    // Which later candidates a winner cancelled depends on timing; every candidate is evaluated anyway, so
    // those steps are left out and the stored trace is the same on every run.
    selectionTrace: selection.trace.steps.filter((s) => s.kind !== 'cancelled').map((s) => ({ kind: s.kind, note: stepNote(s) })),
    timingsMs: {
      retrieve: Math.round(tRetrieve - t0),
      generate: Math.round(tGenerate - tRetrieve),
      validate: Math.round(tValidate - tGenerate),
      total: Math.round(performance.now() - t0),
    },
    ...(detail ? { detail } : {}),
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
