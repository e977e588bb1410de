// Calls over experiments: methods.list, experiment.estimate (what a run would cost, sending nothing),
// experiment.start / experiment.resume (jobs), experiment.list and experiment.result (one task's result).

import path from 'node:path';
import type { CostEstimateInfo, MethodInfo, ParsedInput, RunListItem } from '../../../contract/index.ts';
import { resumableRun } from '../../experiment/orchestrate.ts';
import { causeOf } from '../../experiment/eval/scoring.ts';
import { autoRunLabel, runSubject, storedBackendLabel } from '../../model/run-label.ts';
import { usd } from '../../model/format.ts';
import type { TaskFailure, TaskResult } from '../../model/results.ts';
import { factorialConditions, LADDER, METHODS, type Condition } from '../../pipeline/methods.ts';
import { estimatePlan, overBudget } from '../ops/run.ts';
import { fail, type Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';
import { checkBackend, planAppRun, startExperimentJob } from './runs.ts';

function methods() {
  const info = (c: Condition): MethodInfo => ({ id: c.id, label: c.label, family: c.family, description: c.description });
  return { methods: Object.values(METHODS).map(info), ladder: LADDER.map(info), factorial: factorialConditions().map(info) };
}

/** The plan's estimate with the request's backend, built once and let go; `estimateOnly` lets a missing key through. */
function estimateOf(ws: Workspace, plan: ReturnType<typeof planAppRun>, estimateOnly: boolean): ReturnType<typeof estimatePlan> {
  const backend = ws.backend(plan.request.backend, { estimateOnly });
  try {
    return estimatePlan(plan, backend, ws.prices());
  } finally {
    void backend.dispose?.();
  }
}

function estimate(ws: Workspace, input: ParsedInput<'experiment.estimate'>): CostEstimateInfo {
  const est = estimateOf(ws, planAppRun(ws, input), true);
  return {
    calls: est.calls,
    inputTokens: est.inputTokens,
    outputTokensExpected: est.outputTokensExpected,
    usdExpected: est.usdExpected,
    usdMax: est.usdMax,
    note: est.note,
    assumptions: est.assumptions,
  };
}

function start(ws: Workspace, input: ParsedInput<'experiment.start'>): { jobId: string } {
  const plan = planAppRun(ws, input);
  if (plan.request.maxUsd === undefined) checkBackend(ws, plan.request.backend);
  else {
    // The backend a run would use, built once: it checks the key and prices the plan.
    const est = estimateOf(ws, plan, false);
    if (overBudget(plan, est)) {
      const message = `the estimated cost ${usd(est.usdExpected, 'unknown (no price)')} is over the budget of $${plan.request.maxUsd}; nothing was started`;
      fail('invalid-input', message, [{ path: 'maxUsd', message }]);
    }
  }
  const { kind } = plan.request;
  const n = plan.tasks.length;
  const title = `${kind === 'run' ? 'Run' : kind === 'ladder' ? 'Ladder' : 'Ablation'}: ${n} task${n === 1 ? '' : 's'} × ${plan.conditions.length} conditions (${path.basename(plan.manifest.file)})`;
  return { jobId: startExperimentJob(ws, 'experiment', title, plan).id };
}

function resume(ws: Workspace, runId: string): { jobId: string } {
  const run = resumableRun(ws.store, runId);
  if (run.state === 'done') fail('invalid-input', `run ${runId} is done; there is nothing to resume`, [{ path: 'runId', message: 'run is done' }]);
  checkBackend(ws, run.request.backend);
  return { jobId: startExperimentJob(ws, 'experiment', `Resume ${runId}`, { resume: runId }).id };
}

type ListedRun = ReturnType<Workspace['experiments']['list']>[number];

/** One stored run as the Runs list shows it; a run stored before labels existed shows its automatic label. */
export function runListItem(r: ListedRun): RunListItem {
  const backend = storedBackendLabel(r.backend as { kind?: string; model?: string | null } | null, r.provenance as { backend?: { label?: string } } | null);
  const conditions = (r.conditions as { id: string }[]).map((c) => c.id);
  const autoLabel = autoRunLabel({ manifestFile: r.manifestFile, taskIds: r.taskIds, conditions, backend });
  return {
    id: r.id,
    kind: r.kind,
    state: r.state,
    createdAt: r.createdAt,
    manifestFile: r.manifestFile,
    tasks: r.taskIds.length,
    conditions,
    results: r.results,
    errors: r.errors,
    backend,
    label: r.label ?? autoLabel,
    autoLabel,
    subject: runSubject(r),
  };
}

function list(ws: Workspace): RunListItem[] {
  return ws.experiments.list(1000).map(runListItem);
}

function rename(ws: Workspace, { runId, label }: ParsedInput<'run.rename'>): RunListItem {
  if (!ws.experiments.rename(runId, label)) fail('not-found', `no experiment run ${runId} in ${ws.store.path}`, [{ path: 'runId', message: 'no such run' }]);
  ws.emit({ type: 'runs-changed' });
  return runListItem(ws.experiments.listed(runId)!);
}

function result(ws: Workspace, { runId, taskId, condition }: ParsedInput<'experiment.result'>): TaskResult {
  if (!ws.experiments.get(runId)) fail('not-found', `no experiment run ${runId} in ${ws.store.path}`);
  const r = ws.experiments.result<TaskResult | TaskFailure>(runId, taskId, condition);
  if (!r) fail('not-found', `run ${runId} has no result for task ${taskId} under ${condition} (yet)`);
  if (r!.status === 'error') {
    const f = r!.result as TaskFailure;
    // An unscored pair whose result was computed (the infrastructure decided a verdict) is shown, marked unscored.
    if (f.result) return { ...f.result, unscored: f.result.unscored ?? { cause: causeOf(f), detail: f.error } };
    fail('engine', `task ${taskId} under ${condition} is unscored in run ${runId} (${causeOf(f)}): it failed at ${f.stage}: ${f.error}`);
  }
  return r!.result as TaskResult;
}

export function experimentCalls(
  ws: Workspace,
): CallTable<'methods.list' | 'experiment.estimate' | 'experiment.start' | 'experiment.resume' | 'experiment.list' | 'experiment.result' | 'run.rename'> {
  return {
    'methods.list': () => methods(),
    'experiment.estimate': (input) => estimate(ws, input),
    'experiment.start': (input) => start(ws, input),
    'experiment.resume': ({ runId }) => resume(ws, runId),
    'experiment.list': () => list(ws),
    'experiment.result': (input) => result(ws, input),
    'run.rename': (input) => rename(ws, input),
  };
}
