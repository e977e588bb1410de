// Ablation runs at the edges of what the charts must draw (issue 31): every candidate failing (all-zero), every
// condition the same non-zero value (all-equal), and eight conditions that differ (eight). Each is a 2³ ablation
// run with the eight factorial cells, so every chart of the app and the report has something to draw; `storeEdgeRuns`
// writes them into a store (end-to-end tests), `edgeLoaded` / `edgeModel` give them in memory (unit tests).

import { buildReportModel } from '../../main/experiment/analysis.ts';
import type { LoadedRun, StoredProvenance } from '../../main/experiment/loaded-run.ts';
import { storedConditions, type StoredCondition } from '../../main/experiment/runner.ts';
import type { ReportModel } from '../../main/model/report.ts';
import type { ApiProtocolScore, TaskResult } from '../../main/model/results.ts';
import { factorialConditions } from '../../main/pipeline/methods.ts';
import { Store } from '../../main/store/store.ts';

export type EdgeKind = 'all-zero' | 'all-equal' | 'eight';
export const EDGE_KINDS: readonly EdgeKind[] = ['all-zero', 'all-equal', 'eight'];

/** Run ids, oldest first (the runs list shows the newest on top). */
export const EDGE_RUN_IDS: Record<EdgeKind, string> = {
  'all-zero': 'ablate-20260301T000000-zero00',
  'all-equal': 'ablate-20260302T000000-equal0',
  eight: 'ablate-20260303T000000-eight0',
};

const TASKS = ['pkg/a', 'pkg/b', 'pkg/c', 'pkg/d', 'pkg/e', 'pkg/f'];
const N = 5;

/** What one task of one cell produces: correct candidates, the selected output's verdict, its uncertainty and API F1. */
interface Cell {
  c: number;
  correct: boolean;
  u: number;
  apiF1: number;
}

function apiProtocol(f1: number, matching: 'strict' | 'bare'): ApiProtocolScore {
  const set = { precision: f1, recall: f1, f1, exact: f1 === 1, count: 'exact' as const };
  return { ...set, truth: 2, predicted: 2, matching, strict: set, bare: set, truthFrom: 'reference', items: [] };
}

function taskResult(taskId: string, condition: string, x: Cell): TaskResult {
  return {
    taskId,
    condition,
    retrieval: {
      steps: 1,
      decomposition: 'fallback',
      fused: 4,
      fusedBySource: { api: 2, context: 1, similar: 1 },
      sourceUncertainty: { api: 0.3, context: 0.4, similar: 0.5 },
      api: { ...apiProtocol(x.apiF1, 'strict'), protocol: 'repository', scope: 'kept', taskView: apiProtocol(x.apiF1, 'bare') },
      promptEvidenceChars: 100,
    },
    generation: {
      backend: 'offline:edge',
      model: 'edge',
      promptVersion: 'v',
      promptKind: 'baseline',
      uncertainty: { aggregate: x.u, entropy: null, consistency: null, variance: null },
      groups: [Array.from({ length: N }, (_, i) => i)],
      inputTokens: 10,
      outputTokens: 20,
      costUsd: 0,
      warnings: [],
    },
    candidates: Array.from({ length: N }, (_, i) => ({
      index: i,
      code: `c${i}`,
      group: i,
      origin: null,
      reply: 'code' as const,
      passed: i < x.c,
      verdict: {
        status: i < x.c ? ('passed' as const) : ('failed' as const),
        reason: '',
        passedTests: i < x.c ? 2 : 0,
        totalTests: 2,
        durationMs: 5,
        isolation: 'isolated' as const,
      },
    })),
    n: N,
    c: x.c,
    selected: {
      origin: 'candidate',
      candidateIndex: 0,
      repairRound: null,
      correct: x.correct,
      verified: null,
      status: x.correct ? 'passed' : 'failed',
      isolation: 'isolated',
      code: 'c0',
    },
    repairs: [],
    repairRecovered: false,
    repairAttempted: false,
    selectionTrace: [],
    timingsMs: { retrieve: 1, generate: 1, validate: 1, total: 3 },
  };
}

/** The cell of task `t` (0-based) in condition `ci` (0 = A1X1S1 … 7 = A0X0S0) of a run of `kind`. */
function cellOf(kind: EdgeKind, ci: number, t: number): Cell {
  if (kind === 'all-zero') return { c: 0, correct: false, u: [0.15, 0.35, 0.55, 0.75, 0.9, 1][t]!, apiF1: 0 };
  if (kind === 'all-equal') {
    const c = [5, 0, 3, 5, 0, 2][t]!;
    return { c, correct: c >= 3, u: [0.1, 0.9, 0.4, 0.1, 0.9, 0.6][t]!, apiF1: 0.5 };
  }
  // Eight conditions that differ: more sources, more correct candidates; one task passes everywhere, one nowhere.
  const strength = 7 - ci; // A0X0S0 weakest
  const c = t === 0 ? 5 : t === 5 ? 0 : Math.max(0, Math.min(5, Math.round((strength * (5 - t)) / 7)));
  return { c, correct: c >= 3, u: Math.min(1, Math.max(0, 1 - c / 5 + (ci % 3) * 0.03)), apiF1: Math.round((0.2 + strength * 0.1 - t * 0.02) * 1000) / 1000 };
}

const PROVENANCE: StoredProvenance = {
  backend: { id: 'offline:edge', provider: 'offline', model: 'edge', label: 'edge' },
  encoder: { id: 'e', name: 'enc' },
  prompts: { version: 'v', hash: 'h' },
  configHashes: [],
  sandbox: 'strong',
  machine: { platform: 'linux', arch: 'x64', cpus: 2, memoryGiB: 8, node: 'v20' },
  app: { name: 'opencoder', version: '0.1.0', commit: null },
  manifestTasks: TASKS.length,
};

const CONDITIONS: StoredCondition[] = storedConditions(factorialConditions());

/** The results of one edge run, every task in every cell. */
export function edgeResults(kind: EdgeKind): TaskResult[] {
  return TASKS.flatMap((taskId, t) => CONDITIONS.map((cond, ci) => taskResult(taskId, cond.id, cellOf(kind, ci, t))));
}

/** An edge run as the analysis loads it. */
export function edgeLoaded(kind: EdgeKind): LoadedRun {
  return {
    run: {
      id: EDGE_RUN_IDS[kind],
      kind: 'ablate',
      createdAt: '2026-03-01T00:00:00Z',
      updatedAt: '2026-03-01T00:00:00Z',
      finishedAt: '2026-03-01T01:00:00Z',
      status: 'done',
      state: 'done',
      manifestFile: '/m/tasks.jsonl',
      manifestHash: 'edge',
      taskIds: TASKS,
      conditions: CONDITIONS,
      backend: { kind: 'offline', model: null },
      provenance: PROVENANCE,
      options: {},
      label: `edge: ${kind}`,
      pid: null,
      host: null,
    },
    results: edgeResults(kind),
    failures: [],
  };
}

/** The report model of one edge run (a small bootstrap: the figures, not the intervals, are what is tested). */
export function edgeModel(kind: EdgeKind): ReportModel {
  return buildReportModel([edgeLoaded(kind)], { bootstrap: { resamples: 200, seed: 7 }, tool: { name: 'opencoder', version: 'test' } });
}

/** Stores the three edge runs (done) into the database at `db`. */
export function storeEdgeRuns(db: string): void {
  const store = Store.open(db);
  try {
    for (const kind of EDGE_KINDS) {
      const id = EDGE_RUN_IDS[kind];
      store.experiments.create({
        id,
        kind: 'ablate',
        label: `edge: ${kind}`,
        manifestFile: '/m/tasks.jsonl',
        manifestHash: 'edge',
        taskIds: TASKS,
        conditions: CONDITIONS,
        backend: { kind: 'offline', model: null },
        provenance: PROVENANCE,
        options: {},
      });
      for (const r of edgeResults(kind)) store.experiments.saveResult(id, { taskId: r.taskId, condition: r.condition, status: 'ok', costUsd: 0, result: r });
      store.experiments.finish(id, 'done');
    }
  } finally {
    store.close();
  }
}
