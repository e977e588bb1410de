import { describe, expect, it } from 'vitest';
import { buildReportModel, factorialOf, summariseCondition } from '../../main/experiment/analysis.ts';
import { crossRunComparisons } from '../../main/experiment/comparisons.ts';
import type { LoadedRun } from '../../main/experiment/loaded-run.ts';
import type { ApiProtocolScore, ApiScore, ApiSetScore, ReplyKind, TaskFailure, TaskResult } from '../../main/model/results.ts';
import { ISOLATION_REASON_NOT_RECORDED, type VerdictIsolation, type VerdictStatus } from '../../main/model/verdict.ts';
import { DEFAULT_BOOTSTRAP, passAtK } from '../../main/stats/stats.ts';
import { factorialConditions, METHODS } from '../../main/pipeline/methods.ts';
import { storedConditions } from '../../main/experiment/runner.ts';

interface Spec {
  task: string;
  cond: string;
  c: number;
  correct: boolean;
  u?: number;
  repaired?: 'recovered' | 'failed';
  /** Repository-protocol F1 (strict keys, truth of 2 APIs). */
  api?: number;
  /** Task-view-protocol F1 (bare names); with `emptyTruth`, the score of the empty truth. */
  taskView?: number;
  /** The task's API truth is empty (truth 0 under both protocols). */
  emptyTruth?: boolean;
  /** Store `api` in the shape of results stored before the two protocols (no items, strict/bare or taskView). */
  oldShape?: boolean;
  /** Raw candidates (by index, at or past c) whose verdict was flaky. */
  flaky?: number[];
  /** The stored status of the selected output's verdict; absent as in results stored before it was recorded. */
  selectedStatus?: VerdictStatus;
  /** Where the selected output came from (default: repair when the repair recovered, else the candidate). */
  origin?: 'candidate' | 'repair';
  /** Each raw candidate's stored isolation by index; a missing entry (or none) is absent, as in results stored before it. */
  isolation?: (VerdictIsolation | undefined)[];
  /** The selected output's stored isolation; absent as in results stored before it was recorded. */
  selectedIsolation?: VerdictIsolation;
  /** Why, given to every verdict above that says where it was decided (absent: not recorded, as in results stored before it). */
  isolationReason?: string;
}

const setScore = (f1: number): ApiSetScore => ({ precision: f1 / 2, recall: f1, f1, exact: f1 === 1, count: 'over' });

function protocolScore(f1: number, truth: number, matching: 'strict' | 'bare'): ApiProtocolScore {
  const set = truth ? setScore(f1) : { precision: f1, recall: f1, f1, exact: f1 === 1, count: f1 === 1 ? ('exact' as const) : ('over' as const) };
  return {
    ...set,
    truth,
    predicted: truth ? 4 : f1 === 1 ? 0 : 1,
    matching,
    strict: set,
    bare: set,
    truthFrom: 'reference',
    items: truth ? [{ key: 'pkg.m:f', title: 'pkg.m.f', status: 'hit', reason: 'step 1, rank 1: kept', u: 0.2, p: null }] : [],
  };
}

function apiScore(s: Spec): ApiScore | null {
  if (s.api === undefined && s.taskView === undefined && !s.emptyTruth) return null;
  const truth = s.emptyTruth ? 0 : 2;
  if (s.oldShape) {
    // What older versions stored: P/R/F1 only (and only for a non-empty truth).
    return { truth, predicted: 4, ...setScore(s.api ?? 0) } as unknown as ApiScore;
  }
  return {
    ...protocolScore(s.emptyTruth ? 0 : (s.api ?? 0), truth, 'strict'),
    protocol: 'repository',
    scope: 'kept',
    taskView: s.taskView === undefined ? null : protocolScore(s.taskView, truth, 'bare'),
  };
}

function result(s: Spec, n = 5): TaskResult {
  const origin = s.origin ?? (s.repaired === 'recovered' ? 'repair' : 'candidate');
  return {
    taskId: s.task,
    condition: s.cond,
    retrieval: {
      steps: 1,
      decomposition: 'fallback',
      fused: 10,
      fusedBySource: { api: 4, context: 4, similar: 2 },
      sourceUncertainty: { api: 0.3, context: 0.4, similar: 0.5 },
      api: apiScore(s),
      promptEvidenceChars: 100,
    },
    generation: {
      backend: 'offline:test',
      model: 'test',
      promptVersion: 'v',
      promptKind: 'baseline',
      uncertainty: { aggregate: s.u ?? 0.5, entropy: null, consistency: 0.5, variance: null },
      groups: [[0, 1, 2, 3, 4]],
      inputTokens: 10,
      outputTokens: 20,
      costUsd: 0.001,
      warnings: [],
    },
    candidates: Array.from({ length: n }, (_, i) => {
      const status: VerdictStatus = s.flaky?.includes(i) ? 'flaky' : i < s.c ? 'passed' : 'failed';
      return {
        index: i,
        code: `c${i}`,
        group: 0,
        origin: null,
        passed: status === 'passed',
        verdict: {
          status,
          reason: '',
          passedTests: status === 'passed' ? 3 : 0,
          totalTests: 3,
          durationMs: 5,
          ...(s.isolation?.[i] ? { isolation: s.isolation[i] } : {}),
          ...(s.isolation?.[i] && s.isolationReason ? { isolationReason: s.isolationReason } : {}),
        },
      };
    }),
    n,
    c: s.c,
    selected: {
      origin,
      candidateIndex: 0,
      repairRound: origin === 'repair' ? 1 : null,
      correct: s.correct,
      verified: null,
      code: 'c0',
      ...(s.selectedStatus ? { status: s.selectedStatus } : {}),
      ...(s.selectedIsolation ? { isolation: s.selectedIsolation } : {}),
      ...(s.selectedIsolation && s.isolationReason ? { isolationReason: s.isolationReason } : {}),
    },
    repairs: s.repaired ? [{ round: 1, passed: s.repaired === 'recovered', code: 'r', reason: '' }] : [],
    repairRecovered: s.repaired === 'recovered',
    repairAttempted: s.repaired !== undefined,
    selectionTrace: [],
    timingsMs: { retrieve: 1, generate: 1, validate: 1, total: 3 },
  };
}

function loaded(
  id: string,
  kind: 'run' | 'ablate',
  conds: ReturnType<typeof storedConditions>,
  specs: Spec[],
  state: 'done' | 'interrupted' = 'done',
): LoadedRun {
  return {
    run: {
      id,
      kind,
      createdAt: '2026-11-29T00:00:00Z',
      updatedAt: '2026-11-29T00:00:00Z',
      finishedAt: state === 'done' ? '2026-11-29T01:00:00Z' : null,
      status: state === 'done' ? 'done' : 'running',
      state,
      manifestFile: '/m/tasks.jsonl',
      manifestHash: 'abc',
      taskIds: [...new Set(specs.map((s) => s.task))],
      conditions: conds,
      backend: {},
      provenance: {
        backend: { id: 'offline:test', provider: 'offline', model: 'test', label: 'test' },
        encoder: { id: 'e', name: 'enc' },
        prompts: { version: 'v', hash: 'h' },
        configHashes: [],
        sandbox: 'strong',
        machine: { platform: 'linux', arch: 'x64', cpus: 2, memoryGiB: 24, node: 'v20' },
        app: { name: 'opencoder', version: '0.1.0', commit: null },
        manifestTasks: 3,
      },
      options: {},
      label: null,
      pid: null,
      host: null,
    },
    results: specs.map((s) => result(s)),
    failures: [],
  };
}

const BOOT = { ...DEFAULT_BOOTSTRAP, resamples: 500 };
const methods = storedConditions([METHODS['baseline-rag']!, METHODS.opencoder!]);

describe('per-condition metrics', () => {
  const run = loaded('r1', 'run', methods, [
    { task: 't1', cond: 'baseline-rag', c: 0, correct: false, u: 0.9, api: 0.5, taskView: 0.6 },
    { task: 't2', cond: 'baseline-rag', c: 5, correct: true, u: 0.1, api: 1, taskView: 1 },
    { task: 't3', cond: 'baseline-rag', c: 2, correct: false, u: 0.6, emptyTruth: true, taskView: 1 },
    { task: 't1', cond: 'opencoder', c: 1, correct: true, u: 0.4, repaired: undefined },
    { task: 't2', cond: 'opencoder', c: 5, correct: true, u: 0.1 },
    { task: 't3', cond: 'opencoder', c: 0, correct: true, u: 0.8, repaired: 'recovered' },
  ]);

  it('Pass@k averages the unbiased estimator over tasks; selected-output correctness and raw Pass@1 differ', () => {
    const s = summariseCondition(run, methods[0]!, BOOT);
    expect(s.samples).toBe(5);
    expect(s.passAtK.map((p) => p.k)).toEqual([1, 2, 3, 4, 5]);
    expect(s.passAtK[0]!.value.estimate).toBeCloseTo((0 + 1 + 0.4) / 3, 12);
    expect(s.passAtK[1]!.value.estimate).toBeCloseTo((0 + 1 + passAtK(5, 2, 2)) / 3, 12);
    expect(s.passAtK[4]!.value.estimate).toBeCloseTo(2 / 3, 12);
    expect(s.rawPass1.estimate).toBeCloseTo(1.4 / 3, 12);
    expect(s.selectedCorrect.estimate).toBeCloseTo(1 / 3, 12);
    expect(s.passAtK[0]!.value.lo).toBeLessThanOrEqual(s.passAtK[0]!.value.estimate);
    // uncertainty separates the failures perfectly here (fails: u 0.9, 0.6; pass: 0.1)
    expect(s.uncertainty.auroc).toBe(1);
    expect(s.uncertainty.bins).toHaveLength(10);
    expect(s.api).toMatchObject({ tasks: 2, f1: 0.75, exact: 0.5 });
    expect(s.cost.usd).toBeCloseTo(0.003, 12);
  });

  it('repair recovery counts tasks whose repair passed among those repaired', () => {
    const s = summariseCondition(run, methods[1]!, BOOT);
    expect(s.repair).toEqual({ attempted: 1, recovered: 1, rate: 1 });
    expect(s.api).toBeNull();
    expect(s.apiTaskView).toBeNull();
  });

  it('API retrieval per protocol: repository over tasks with truth (strict), task-view over all tasks (bare)', () => {
    const s = summariseCondition(run, methods[0]!, BOOT);
    // t3 has an empty truth: out of the repository figure, in the task-view one (empty prediction = perfect).
    expect(s.api).toMatchObject({ protocol: 'repository', matching: 'strict', over: 'tasks-with-truth', tasks: 2, emptyTruth: 0, f1: 0.75, exact: 0.5 });
    expect(s.api!.count).toEqual({ over: 2, exact: 0, under: 0 });
    expect(s.apiTaskView).toMatchObject({ protocol: 'task-view', matching: 'bare', over: 'all-tasks', tasks: 3, emptyTruth: 1 });
    expect(s.apiTaskView!.f1).toBeCloseTo((0.6 + 1 + 1) / 3, 12);
    expect(s.apiTaskView!.recall).toBeCloseTo((0.6 + 1 + 1) / 3, 12);
    expect(s.apiTaskView!.precision).toBeCloseTo((0.3 + 0.5 + 1) / 3, 12);
    expect(s.apiTaskView!.exact).toBeCloseTo(2 / 3, 12);
    expect(s.apiTaskView!.count).toEqual({ over: 2, exact: 1, under: 0 });
    const model = buildReportModel([run], { tool: { name: 'opencoder', version: 't' }, bootstrap: BOOT });
    const rows = Object.fromEntries(model.tasks.filter((t) => t.condition === 'baseline-rag').map((t) => [t.taskId, [t.apiF1, t.apiF1TaskView]]));
    expect(rows).toEqual({ t1: [0.5, 0.6], t2: [1, 1], t3: [null, 1] });
    expect(model.tasks.filter((t) => t.condition === 'opencoder').every((t) => t.apiF1 === null && t.apiF1TaskView === null)).toBe(true);
  });

  it('tolerates API scores stored before the two protocols: repository figures as before, no task-view figure', () => {
    const old = loaded('r-old', 'run', methods, [
      { task: 't1', cond: 'baseline-rag', c: 0, correct: false, api: 0.5, oldShape: true },
      { task: 't2', cond: 'baseline-rag', c: 5, correct: true, api: 1, oldShape: true },
      { task: 't3', cond: 'baseline-rag', c: 2, correct: false },
      { task: 't1', cond: 'opencoder', c: 1, correct: true },
    ]);
    expect(old.results[0]!.retrieval.api).not.toHaveProperty('taskView');
    expect(old.results[0]!.retrieval.api).not.toHaveProperty('items');
    const s = summariseCondition(old, methods[0]!, BOOT);
    expect(s.api).toMatchObject({ protocol: 'repository', matching: 'strict', tasks: 2, f1: 0.75, exact: 0.5 });
    expect(s.apiTaskView).toBeNull();
    const model = buildReportModel([old], { tool: { name: 'opencoder', version: 't' }, bootstrap: BOOT });
    expect(model.tasks.filter((t) => t.condition === 'baseline-rag').map((t) => [t.apiF1, t.apiF1TaskView])).toEqual([
      [0.5, null],
      [1, null],
      [null, null],
    ]);
  });

  it('comparisons are paired by task: W/L/T, exact McNemar, paired differences', () => {
    const model = buildReportModel([run], { tool: { name: 'opencoder', version: 't' }, bootstrap: BOOT });
    expect(model.comparisons).toHaveLength(1);
    const c = model.comparisons[0]!;
    expect([c.a.condition, c.b.condition]).toEqual(['opencoder', 'baseline-rag']);
    expect([c.wins, c.losses, c.ties]).toEqual([2, 0, 1]);
    expect(c.mcnemarP).toBe(0.5);
    expect(c.mcnemarPHolm).toBe(0.5);
    expect(c.selectedDiff.estimate).toBeCloseTo(2 / 3, 12);
    expect(c.passAtKDiff[0]!.diff.estimate).toBeCloseTo((1 + 5 + 0) / 15 - 1.4 / 3, 12);
    expect(model.tasks).toHaveLength(6);
    expect(model.candidates).toHaveLength(30);
    expect(model.statistics.notes.join(' ')).not.toMatch(/Partial/);
  });

  it('a run that is not done is reported as partial', () => {
    const partial = loaded('r2', 'run', methods, [{ task: 't1', cond: 'opencoder', c: 1, correct: true }], 'interrupted');
    const model = buildReportModel([partial], { tool: { name: 'opencoder', version: 't' }, bootstrap: BOOT });
    expect(model.runs[0]!.status).toBe('interrupted');
    expect(model.statistics.notes.join(' ')).toMatch(/Partial: r2 is interrupted/);
  });

  it('cross-run comparisons pair the same conditions, and refuse runs with nothing in common', () => {
    const other = loaded('r3', 'run', methods, [{ task: 't1', cond: 'opencoder', c: 0, correct: false }]);
    expect(crossRunComparisons(run, other).map((s) => s.a.condition)).toEqual(['baseline-rag', 'opencoder']);
    const cells = loaded('r4', 'ablate', storedConditions(factorialConditions()), []);
    expect(() => crossRunComparisons(run, cells)).toThrow(/share no condition/);
  });
});

describe('flaky verdicts', () => {
  const specs: Spec[] = [
    // No stored selected status (an older result): Baseline RAG returns candidate 0, whose own verdict was flaky.
    { task: 't1', cond: 'baseline-rag', c: 0, correct: false, flaky: [0] },
    { task: 't2', cond: 'baseline-rag', c: 2, correct: true, flaky: [3], selectedStatus: 'passed' },
    { task: 't3', cond: 'baseline-rag', c: 5, correct: true, selectedStatus: 'passed' },
    { task: 't1', cond: 'opencoder', c: 1, correct: true, selectedStatus: 'passed' },
    // The selected repair's stored verdict was flaky, though no raw candidate's was.
    { task: 't2', cond: 'opencoder', c: 0, correct: false, repaired: 'failed', origin: 'repair', selectedStatus: 'flaky' },
    // A repair output without a stored status is not guessed from candidate 0's flaky verdict.
    { task: 't3', cond: 'opencoder', c: 0, correct: false, repaired: 'failed', origin: 'repair', flaky: [0] },
  ];
  const run = loaded('r5', 'run', methods, specs);
  const expectedOf = (cond: string, selectedFlaky: string[]) => {
    const mine = specs.filter((s) => s.cond === cond);
    const withCand = mine.filter((s) => s.flaky?.length).map((s) => s.task);
    return {
      candidates: mine.reduce((a, s) => a + (s.flaky?.length ?? 0), 0),
      candidateVerdicts: mine.length * 5,
      selected: selectedFlaky.length,
      taskIds: [...new Set([...withCand, ...selectedFlaky])].sort(),
    };
  };

  it('counts flaky candidate and selected verdicts per condition and lists their tasks', () => {
    const [base, oc] = [summariseCondition(run, methods[0]!, BOOT), summariseCondition(run, methods[1]!, BOOT)];
    expect(base.flaky).toEqual(expectedOf('baseline-rag', ['t1']));
    expect(oc.flaky).toEqual(expectedOf('opencoder', ['t2']));
    expect(base.flaky.taskIds).toEqual(['t1', 't2']);
    expect(oc.flaky).toMatchObject({ candidates: 1, selected: 1, taskIds: ['t2', 't3'] });
    // A flaky verdict is never a pass: the selected-correctness figure counts it as a failure.
    expect(base.selectedCorrect.estimate).toBeCloseTo(2 / 3, 12);
  });

  it('reports none for results without flaky verdicts, and passes flaky candidate statuses through', () => {
    const clean = loaded('r6', 'run', methods, [{ task: 't1', cond: 'opencoder', c: 2, correct: true }]);
    expect(summariseCondition(clean, methods[1]!, BOOT).flaky).toEqual({ candidates: 0, candidateVerdicts: 5, selected: 0, taskIds: [] });
    expect(summariseCondition(clean, methods[0]!, BOOT).flaky).toEqual({ candidates: 0, candidateVerdicts: 0, selected: 0, taskIds: [] });
    const model = buildReportModel([run], { tool: { name: 'opencoder', version: 't' }, bootstrap: BOOT });
    const flakyRows = model.candidates.filter((c) => c.status === 'flaky');
    expect(flakyRows.map((c) => `${c.condition}|${c.taskId}|${c.index}`)).toEqual(['baseline-rag|t1|0', 'baseline-rag|t2|3', 'opencoder|t3|0']);
    expect(flakyRows.every((c) => !c.passed)).toBe(true);
    expect(model.statistics.notes.join(' ')).toMatch(/Flaky verdicts:.*not passed/);
  });
});

describe('in-process verdicts', () => {
  const WHY_T1 = 'isolated, the reference was judged failed (CrossingError: a value that is not data)';
  const WHY_T2 = 'in-process, as the caller asked for this run';
  const iso = (inProcess: number[] = []): VerdictIsolation[] => Array.from({ length: 5 }, (_, i) => (inProcess.includes(i) ? 'in-process' : 'isolated'));
  const specs: Spec[] = [
    // Baseline RAG returns candidate 0, decided in-process; the other four were isolated.
    { task: 't1', cond: 'baseline-rag', c: 1, correct: true, isolation: iso([0]), selectedIsolation: 'in-process', isolationReason: WHY_T1 },
    { task: 't2', cond: 'baseline-rag', c: 2, correct: true, isolation: iso(), selectedIsolation: 'isolated' },
    // Stored before isolation was recorded: every verdict, the selected output's too, counts as in-process.
    { task: 't3', cond: 'baseline-rag', c: 0, correct: false },
    // An in-process raw candidate that OpenCoder did not select.
    { task: 't1', cond: 'opencoder', c: 1, correct: true, isolation: iso([2]), selectedIsolation: 'isolated', isolationReason: WHY_T1 },
    // Every raw candidate isolated; the selected repair's verdict was decided in-process.
    {
      task: 't2',
      cond: 'opencoder',
      c: 0,
      correct: false,
      repaired: 'failed',
      origin: 'repair',
      isolation: iso(),
      selectedIsolation: 'in-process',
      isolationReason: WHY_T2,
    },
    { task: 't3', cond: 'opencoder', c: 3, correct: true, isolation: iso(), selectedIsolation: 'isolated' },
  ];
  const run = loaded('r7', 'run', methods, specs);

  it('counts in-process candidate and selected verdicts per condition, lists their tasks, and gives the share decided isolated', () => {
    const [base, oc] = [summariseCondition(run, methods[0]!, BOOT), summariseCondition(run, methods[1]!, BOOT)];
    expect(base.inProcess).toEqual({
      candidates: 6,
      candidateVerdicts: 15,
      selected: 2,
      taskIds: ['t1', 't3'],
      isolatedShare: 9 / 15,
      // Why each task was not isolated: t1's reason on its candidate and selected output, t3 stored before reasons.
      reasons: [
        { taskId: 't1', reason: WHY_T1, verdicts: 2 },
        { taskId: 't3', reason: ISOLATION_REASON_NOT_RECORDED, verdicts: 6 },
      ],
    });
    expect(oc.inProcess).toEqual({
      candidates: 1,
      candidateVerdicts: 15,
      selected: 1,
      taskIds: ['t1', 't2'],
      isolatedShare: 14 / 15,
      reasons: [
        { taskId: 't1', reason: WHY_T1, verdicts: 1 },
        { taskId: 't2', reason: WHY_T2, verdicts: 1 },
      ],
    });
    // Counted apart, not out: the figures still count every verdict as it came out.
    expect(base.tasks).toBe(3);
    expect(base.selectedCorrect.estimate).toBeCloseTo(2 / 3, 12);
    expect(base.flaky).toEqual({ candidates: 0, candidateVerdicts: 15, selected: 0, taskIds: [] });
  });

  it('says none for an all-isolated condition, and null share for a condition without verdicts', () => {
    const clean = loaded('r8', 'run', methods, [{ task: 't1', cond: 'opencoder', c: 2, correct: true, isolation: iso(), selectedIsolation: 'isolated' }]);
    expect(summariseCondition(clean, methods[1]!, BOOT).inProcess).toEqual({
      candidates: 0,
      candidateVerdicts: 5,
      selected: 0,
      taskIds: [],
      isolatedShare: 1,
      reasons: [],
    });
    expect(summariseCondition(clean, methods[0]!, BOOT).inProcess).toEqual({
      candidates: 0,
      candidateVerdicts: 0,
      selected: 0,
      taskIds: [],
      isolatedShare: null,
      reasons: [],
    });
  });

  it('rows carry each verdict’s isolation (absent read as in-process) and the notes say what each promises', () => {
    const model = buildReportModel([run], { tool: { name: 'opencoder', version: 't' }, bootstrap: BOOT });
    const rows = model.candidates.filter((c) => c.isolation === 'in-process').map((c) => `${c.condition}|${c.taskId}|${c.index}`);
    expect(rows).toEqual([
      'baseline-rag|t1|0',
      'baseline-rag|t3|0',
      'baseline-rag|t3|1',
      'baseline-rag|t3|2',
      'baseline-rag|t3|3',
      'baseline-rag|t3|4',
      'opencoder|t1|2',
    ]);
    expect(model.tasks.map((t) => `${t.condition}|${t.taskId}|${t.selectedIsolation}`)).toEqual([
      'baseline-rag|t1|in-process',
      'baseline-rag|t2|isolated',
      'baseline-rag|t3|in-process',
      'opencoder|t1|isolated',
      'opencoder|t2|in-process',
      'opencoder|t3|isolated',
    ]);
    const notes = model.statistics.notes.join(' ');
    expect(notes).toMatch(/Isolation: .*a wrong candidate can pass only by returning what the tests accept/);
    expect(notes).toMatch(/In-process: .*a best effort, never a guarantee\. Neither can make thin tests thick\./);
  });
});

describe('factorial analysis', () => {
  const cells = storedConditions(factorialConditions());
  // Pass@1 = 0.2 + 0.4·API + 0.2·Context·Similar (per task, plus a task offset), uncertainty falls with API.
  const specs: Spec[] = [];
  for (const [ti, offset] of [0, 0.2, 0.4, 0.2].entries()) {
    for (const cell of cells) {
      const s = cell.config.retrieval.sources;
      const p = offset / 2 + 0.2 + 0.4 * Number(s.api) + 0.2 * Number(s.context && s.similar);
      specs.push({ task: `t${ti}`, cond: cell.id, c: Math.round(p * 5), correct: p > 0.5, u: s.api ? 0.3 : 0.7 });
    }
  }
  const run = loaded('f1', 'ablate', cells, specs);

  it('recovers planted main effects and interactions', () => {
    const f = factorialOf(run, BOOT)!;
    expect(f.tasks).toBe(4);
    const pass = f.outcomes.find((o) => o.outcome === 'pass@1')!;
    const by = Object.fromEntries(pass.effects.map((e) => [e.name, e.value.estimate]));
    expect(by.API).toBeCloseTo(0.4, 1);
    expect(by['Context × Similar code']).toBeCloseTo(0.1, 1); // half the difference of simple effects: 0.2 / 2
    expect(by['API × Context']).toBeCloseTo(0, 1);
    const unc = f.outcomes.find((o) => o.outcome === 'uncertainty')!;
    expect(unc.effects.find((e) => e.name === 'API')!.value.estimate).toBeCloseTo(-0.4, 12);
    expect(unc.effects.find((e) => e.name === 'Context')!.value.estimate).toBeCloseTo(0, 12);
    expect(pass.cells).toHaveLength(8);
    expect(pass.cells[0]!.cell).toBe('A1X1S1');
    for (const e of pass.effects) expect(e.pHolm).toBeGreaterThanOrEqual(e.p);
  });

  it('needs all eight cells', () => {
    const seven = loaded(
      'f2',
      'ablate',
      cells.slice(0, 7),
      specs.filter((s) => s.cond !== 'A0X0S0'),
    );
    expect(factorialOf(seven, BOOT)).toBeNull();
  });

  it('pairs only tasks with a result in every cell', () => {
    const gap = loaded(
      'f3',
      'ablate',
      cells,
      specs.filter((s) => !(s.task === 't3' && s.cond === 'A1X0S0')),
    );
    expect(factorialOf(gap, BOOT)!.tasks).toBe(3);
  });
});

describe('unscored pairs and replies without code', () => {
  const failure = (task: string, cond: string, extra: Partial<TaskFailure> = {}): TaskFailure => ({
    taskId: task,
    condition: cond,
    stage: 'generate',
    kind: 'network',
    cause: 'network',
    error: `${task} / ${cond}: generate failed: connection refused`,
    ...extra,
  });
  const withReplies = (r: TaskResult, kinds: ReplyKind[]): TaskResult => ({
    ...r,
    candidates: r.candidates.map((c, i) => ({ ...c, reply: kinds[i]! })),
  });
  // t1 and t2 scored in both; t3 unscored in opencoder (sandbox), t4 unscored in baseline (a failure stored before
  // causes were recorded: its kind stands in), t5 unscored in both.
  const base = loaded('u1', 'run', methods, [
    { task: 't1', cond: 'baseline-rag', c: 0, correct: false },
    { task: 't2', cond: 'baseline-rag', c: 5, correct: true },
    { task: 't3', cond: 'baseline-rag', c: 1, correct: false },
    { task: 't1', cond: 'opencoder', c: 1, correct: true },
    { task: 't2', cond: 'opencoder', c: 5, correct: true },
    { task: 't4', cond: 'opencoder', c: 5, correct: true },
  ]);
  const run: LoadedRun = {
    ...base,
    run: { ...base.run, taskIds: ['t1', 't2', 't3', 't4', 't5'] },
    results: base.results.map((r) =>
      r.taskId === 't1' && r.condition === 'baseline-rag' ? withReplies(r, ['code', 'empty', 'no-code', 'refused', 'no-code']) : r,
    ),
    failures: [
      failure('t3', 'opencoder', { stage: 'evaluate', kind: 'sandbox', cause: 'sandbox', error: 'candidate 2: the sandbox failed: could not start bwrap' }),
      failure('t4', 'baseline-rag', { kind: 'rate_limit', cause: undefined }),
      failure('t5', 'baseline-rag'),
      failure('t5', 'opencoder'),
    ],
  };
  const model = buildReportModel([run], { tool: { name: 'opencoder', version: 't' }, bootstrap: BOOT });
  const cond = (id: string) => model.conditions.find((c) => c.condition === id)!;

  it('figures are over the scored pairs only, with n stated and the unscored counted beside them by cause', () => {
    const b = cond('baseline-rag');
    expect(b.tasks).toBe(3);
    expect(b.unscored).toEqual({ total: 2, byCause: { rate_limit: 1, network: 1 } });
    expect(b.failures).toBe(2);
    expect(b.passAtK[0]!.value.estimate).toBeCloseTo((0 + 1 + 0.2) / 3, 12);
    const o = cond('opencoder');
    expect(o.tasks).toBe(3);
    expect(o.unscored).toEqual({ total: 2, byCause: { sandbox: 1, network: 1 } });
    expect(o.selectedCorrect.estimate).toBe(1);
  });

  it('counts replies without code per condition; results stored before reply kinds count as unknown, not as code', () => {
    expect(cond('baseline-rag').replies).toEqual({ candidates: 15, code: 1, empty: 1, noCode: 2, refused: 1, unknown: 10 });
    expect(cond('opencoder').replies).toEqual({ candidates: 15, code: 0, empty: 0, noCode: 0, refused: 0, unknown: 15 });
    const rows = model.tasks.filter((t) => t.condition === 'baseline-rag');
    expect(rows.find((t) => t.taskId === 't1')).toMatchObject({ emptyReplies: 1, noCodeReplies: 2, refusedReplies: 1, unscored: null });
    expect(rows.find((t) => t.taskId === 't2')).toMatchObject({ emptyReplies: null, noCodeReplies: null });
    expect(model.candidates.filter((c) => c.condition === 'baseline-rag' && c.taskId === 't1').map((c) => c.reply)).toEqual([
      'code',
      'empty',
      'no-code',
      'refused',
      'no-code',
    ]);
    expect(model.candidates.find((c) => c.taskId === 't2')!.reply).toBe('unknown');
  });

  it('task rows name the cause of each unscored pair', () => {
    const unscored = model.tasks.filter((t) => t.unscored).map((t) => `${t.condition}|${t.taskId}|${t.unscored}`);
    expect(unscored.sort()).toEqual(['baseline-rag|t4|rate_limit', 'baseline-rag|t5|network', 'opencoder|t3|sandbox', 'opencoder|t5|network']);
    expect(model.tasks.filter((t) => t.unscored).every((t) => t.error !== null && Number.isNaN(t.pass1))).toBe(true);
  });

  it('a paired comparison pairs only tasks scored in both arms and counts those it dropped', () => {
    const c = model.comparisons[0]!;
    expect([c.a.condition, c.b.condition]).toEqual(['opencoder', 'baseline-rag']);
    expect(c.tasks).toBe(2);
    // t3 (scored in baseline only), t4 (in opencoder only), t5 (in neither): all unscored in an arm.
    expect(c.dropped).toEqual({ tasks: 3, unscored: 3 });
    expect([c.wins, c.losses, c.ties]).toEqual([1, 0, 1]);
    expect(c.selectedDiff.estimate).toBeCloseTo(0.5, 12);
    expect(model.statistics.notes.join(' ')).toMatch(/Unscored pairs: .*left out of Pass@k/);
  });

  it('a comparison with every task scored in both arms drops none', () => {
    const clean = buildReportModel(
      [
        loaded('u2', 'run', methods, [
          { task: 't1', cond: 'baseline-rag', c: 0, correct: false },
          { task: 't1', cond: 'opencoder', c: 1, correct: true },
        ]),
      ],
      { tool: { name: 'opencoder', version: 't' }, bootstrap: BOOT },
    );
    expect(clean.comparisons[0]!.dropped).toEqual({ tasks: 0, unscored: 0 });
    expect(clean.conditions.every((c) => c.unscored.total === 0 && c.tasks === 1)).toBe(true);
  });

  it('the factorial pairs tasks scored in every cell and counts the dropped ones', () => {
    const cells = storedConditions(factorialConditions());
    const specs: Spec[] = ['t0', 't1', 't2'].flatMap((task) => cells.map((c) => ({ task, cond: c.id, c: 2, correct: true })));
    const f = loaded(
      'u3',
      'ablate',
      cells,
      specs.filter((s) => !(s.task === 't2' && s.cond === 'A1X0S0')),
    );
    const withFailure: LoadedRun = { ...f, failures: [failure('t2', 'A1X0S0'), failure('t3', 'A0X0S0')] };
    const fa = factorialOf(withFailure, BOOT)!;
    expect(fa.tasks).toBe(2);
    expect(fa.dropped).toBe(2);
  });
});
