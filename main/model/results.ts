// What one (task, condition) of an experiment produces and stores. Everything a metric, chart or report
// needs is in here, so they are regenerated from the store without re-running anything.

import type { Source } from './config.ts';
import type { InfrastructureFault, VerdictIsolation, VerdictStatus } from './verdict.ts';

/**
 * What a model's reply held: code (`code`), nothing at all (`empty`), prose without any code (`no-code`), or a
 * refusal (`refused`). A reply without code is still a failed sample, the model's own; the kind names why.
 */
export type ReplyKind = 'code' | 'empty' | 'no-code' | 'refused';

/** Raw candidates of a task by what their reply held. */
export interface ReplyCounts {
  code: number;
  empty: number;
  noCode: number;
  refused: number;
}

/** A verdict cut down to what metrics and reports read (the full verdicts stay in the stored trace). */
export interface VerdictSummary {
  status: VerdictStatus;
  reason: string;
  passedTests: number;
  /** Tests that ran (or were expected); 0 for a check-template task without named tests. */
  totalTests: number;
  durationMs: number;
  /** Set when the infrastructure, not the candidate, decided the verdict (the pair is then unscored). */
  infrastructure?: InfrastructureFault;
  /** Where the verdict was decided (model/verdict.ts); absent in results stored before it was recorded: read with isolationOf (in-process). */
  isolation?: VerdictIsolation;
  /** Why it was decided there (model/verdict.ts isolationReason); absent in results stored before it was recorded. */
  isolationReason?: string;
}

export interface CandidateOutcome {
  /** 0-based position in generation order. */
  index: number;
  code: string;
  /** Self-consistency group index. */
  group: number;
  /** How the backend made it (offline: which evidence it adapted), when it says. */
  origin: string | null;
  /** What the reply held; absent in results stored before it was recorded (unknown, not assumed to be code). */
  reply?: ReplyKind;
  /** The evaluation verdict: every raw candidate is run against the tests, whatever the method selects. */
  verdict: VerdictSummary;
  passed: boolean;
}

/** P / R / F1 of a predicted API set against the truth, exact-set match and count reliability. */
export interface ApiSetScore {
  precision: number;
  recall: number;
  f1: number;
  exact: boolean;
  count: 'over' | 'exact' | 'under';
}

/** One API of the predicted set or the truth, as the task view lists it. */
export interface ApiItemRow {
  key: string;
  title: string;
  /** hit: predicted and in the truth; miss: in the truth, not predicted; extra: predicted, not in the truth. */
  status: 'hit' | 'miss' | 'extra';
  /** Why it was selected or dropped (the trace's reason), or why it is truth. */
  reason: string;
  u: number | null;
  /** The API selector's probability, when it ran. */
  p: number | null;
}

/** One protocol's score of a task (docs/api-retrieval.md): the headline under the protocol's matching, and both matchings. */
export interface ApiProtocolScore extends ApiSetScore {
  truth: number;
  predicted: number;
  matching: 'strict' | 'bare';
  strict: ApiSetScore;
  bare: ApiSetScore;
  truthFrom: 'manifest' | 'reference';
  items: ApiItemRow[];
}

/**
 * API retrieval of one task: the repository protocol (the run's own retrieval, `kept` scope, strict keys) at the
 * top level, and the task-view protocol (the task's own view as the pool, bare names) beside it. Results stored
 * before the two protocols have only the top-level P/R/F1 fields.
 */
export interface ApiScore extends ApiProtocolScore {
  protocol?: 'repository';
  scope?: 'kept';
  taskView?: ApiProtocolScore | null;
}

/** One retrieved item as the evidence-fusion view shows it (text only in a full detail). */
export interface EvidenceRow {
  key: string;
  source: Source;
  step: number;
  rank: number;
  title: string;
  file: string;
  startLine: number;
  endLine: number;
  r: number;
  w: number;
  u: number;
  gamma: number;
  kept: boolean;
  reason: string;
  /** Named uncertainty signals and their values. */
  signals: { name: string; value: number }[];
  /** Position in the fused list (0-based), or null when it did not make it. */
  fusedRank: number | null;
  text?: string;
}

/** What the task view shows beyond the metrics: decomposition, evidence, prompt, per-test results. */
export interface TaskDetail {
  steps: { index: number; text: string; weights: Record<Source, number>; queries: Record<Source, string> }[];
  evidence: EvidenceRow[];
  masked: string[];
  encoder: string;
  uncertaintyMethods: { entropy: string; consistency: string; variance: string };
  /** The generation prompt (full detail only). */
  prompt: { role: string; content: string }[] | null;
  /** Per-test results of each raw candidate, in candidate order. */
  tests: { id: string; outcome: string; message?: string }[][];
  /** Static findings of each raw candidate. */
  findings: { kind: string; severity: string; message: string; line?: number }[][];
  /** Per-test results of each repair round. */
  repairTests: { id: string; outcome: string; message?: string }[][];
}

export interface TaskResult {
  taskId: string;
  condition: string;
  retrieval: {
    steps: number;
    decomposition: string;
    fused: number;
    /** Fused items per source. */
    fusedBySource: Record<Source, number>;
    /** ū per source over its retrieved items (null: off or nothing found). */
    sourceUncertainty: Record<Source, number | null>;
    /** API-knowledge retrieval scored against the reference's resolved calls (null: no reference or no truth). */
    api: ApiScore | null;
    /** The evidence text the prompt showed (also what repairs were given). */
    promptEvidenceChars: number;
    /**
     * The leakage audit (retrieve/leak-audit.ts): its policy, the items it checked and the suspects it found (dropped
     * under `drop`, in the prompt under `flag`). Absent in results stored before the audit, or with the policy `off`.
     */
    leak?: { policy: 'drop' | 'flag'; checked: number; suspects: number };
  };
  generation: {
    backend: string;
    model: string;
    promptVersion: string;
    promptKind: string;
    /** Generation uncertainty: the aggregate and its parts (null parts were not measurable). */
    uncertainty: { aggregate: number; entropy: number | null; consistency: number | null; variance: number | null };
    groups: number[][];
    inputTokens: number;
    outputTokens: number;
    costUsd: number | null;
    warnings: string[];
    /** The raw candidates by what their reply held; absent in results stored before it was recorded. */
    replies?: ReplyCounts;
  };
  /** Raw samples in generation order, each with its evaluation verdict. */
  candidates: CandidateOutcome[];
  /** n raw samples, c of them correct (for unbiased Pass@k). */
  n: number;
  c: number;
  selected: {
    origin: 'candidate' | 'repair';
    candidateIndex: number | null;
    repairRound: number | null;
    /** Whether the method's output is correct (evaluation verdict, independent of whether the method verified). */
    correct: boolean;
    /** The selection's own verdict when the method verified (null: no verification). */
    verified: boolean | null;
    /**
     * Status of the selected output's evaluation verdict (the one `correct` reads), so reports can count
     * timing-dependent `flaky` outputs apart. Absent in results stored before it was recorded.
     */
    status?: VerdictStatus;
    /**
     * Where the selected output's evaluation verdict was decided, so reports can count in-process verdicts apart.
     * Absent in results stored before it was recorded: read with isolationOf (those were all in-process).
     */
    isolation?: VerdictIsolation;
    /** Why it was decided there (model/verdict.ts isolationReason); absent in results stored before it was recorded. */
    isolationReason?: string;
    code: string;
  };
  repairs: { round: number; passed: boolean; code: string; reason: string }[];
  /** No raw candidate passed the method's validation and a repair did. */
  repairRecovered: boolean;
  /** Repairs were attempted (the set of tasks the recovery rate is over). */
  repairAttempted: boolean;
  /** Selection steps as the validator traced them (compact). */
  selectionTrace: { kind: string; note: string }[];
  timingsMs: { retrieve: number; generate: number; validate: number; total: number };
  /** Evidence and test detail: compact in experiments (no texts), full (texts and prompt) for interactive runs. */
  detail?: TaskDetail;
  /**
   * Set when a verdict this result rests on (a raw candidate's or a repair's) was decided by the infrastructure:
   * selection, repair and Pass@k all read those verdicts, so the whole (task, condition) is unscored. The runner
   * stores such a result as a TaskFailure (keeping the result in it) and runs it again on resume.
   */
  unscored?: { cause: string; detail: string };
}

/**
 * A (task, condition) that could not be scored: it failed to run (an API error after its retries, a sandbox that
 * would not start, a workspace that could not be built, …) or the infrastructure decided one of its verdicts.
 * Never the model's fault (a reply without code is a failed sample instead), so it is unscored: left out of
 * Pass@k and selected-output correctness, counted beside them by cause. The error is kept and the run goes on.
 */
export interface TaskFailure {
  taskId: string;
  condition: string;
  error: string;
  /** Where it failed: retrieve, generate, validate, evaluate, … */
  stage: string;
  /** What kind of failure: an LLM error's kind (`auth`, `network`, `rate_limit`, …), else the engine error's code or the error's name. */
  kind?: string;
  /**
   * Why it is unscored, in one word: an LLM error's kind (`network`, `rate_limit`, `server`, `timeout`, `auth`,
   * `oversized`, …), `sandbox`, `harness`, `workspace`, `store` or `engine`. Absent in failures stored before it
   * was recorded (then `kind` stands in).
   */
  cause?: string;
  /** What had been computed when the infrastructure fault was found (a verdict it decided), kept for inspection. */
  result?: TaskResult;
}
