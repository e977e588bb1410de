// Experiment runs, one way in for the CLI (`run`, `ablate`) and the app (experiment.*, task.run): a request is
// planned into the manifest's tasks, the conditions and the one record the run stores (model/run-request.ts);
// the estimate and the budget are checked; the run starts, or a stored run resumes from the request it stored.
// The callers differ only in what surrounds the run: where progress goes, how the backend gets its keys, how a
// repository is indexed (a job in the app, a progress line in the CLI).

import type { ParsedInput } from '../../../contract/index.ts';
import { readManifest } from '../../benchmarks/manifest-file.ts';
import type { Manifest } from '../../model/manifest.ts';
import type { Task } from '../../model/task.ts';
import { estimateRun, resumableRun, resumeExperiment, selectTasks, startExperiment, type ExperimentContext } from '../../experiment/orchestrate.ts';
import { ExperimentError, type RunOutcome } from '../../experiment/runner.ts';
import type { PriceTable } from '../../generate/cost.ts';
import type { LlmBackend } from '../../generate/types.ts';
import { defaultDecompose, type BackendSpec } from '../../model/backend-spec.ts';
import { parseRunRequest, type RunRequest } from '../../model/run-request.ts';
import {
  factorialConditions,
  LADDER,
  METHOD_SETS,
  METHODS,
  resolveConditions,
  withGeneration,
  withOutputRules,
  type Condition,
} from '../../pipeline/methods.ts';
import { fail } from '../workspace.ts';

/** A request whose backend is decided (the CLI's flags, the app's Settings or a sample set: ops/backend.ts). */
export type RunInput = Omit<ParsedInput<'experiment.start'>, 'backend' | 'samples'> & { backend: BackendSpec };

export interface PlanEnv {
  /** Folders besides the manifest's own that its tasks' repositories may lie in. */
  allow: readonly string[];
  /** What a request that does not say takes (the CLI's defaults, or the app's Settings). */
  defaults: { sandbox: RunRequest['sandbox']; parallel: number };
  /** Applied to each condition before the request's own generation rules (the app's Settings pipeline constants). */
  adjust?: (c: Condition) => Condition;
  /** The price table file the run's cost figures read (the CLI's --prices), absolute. */
  prices?: string;
}

export interface RunPlan {
  manifest: Manifest;
  tasks: Task[];
  conditions: Condition[];
  /** What the run stores, and a resume reads back. */
  request: RunRequest;
}

const invalid = (field: string, err: unknown): never => fail('invalid-input', (err as Error).message, [{ path: field, message: (err as Error).message }]);

/** The conditions of a kind: the methods of a run (default: compare), the ladder, or the factorial over its base. */
function conditionsOfKind(kind: RunInput['kind'], methods: string[] | undefined): { conditions: Condition[]; methods?: string[] } {
  if (kind === 'ladder') return { conditions: LADDER };
  if (kind === 'ablate') {
    const baseId = methods?.[0] ?? 'opencoder';
    const base = METHODS[baseId];
    if (!base) invalid('methods', new Error(`the factorial's base method must be one of ${Object.keys(METHODS).join(', ')} (got ${baseId})`));
    return { conditions: factorialConditions(base), methods: [baseId] };
  }
  let conditions: Condition[] = [];
  try {
    conditions = resolveConditions(methods ?? [...METHOD_SETS.compare]);
  } catch (err) {
    invalid('methods', err);
  }
  return { conditions, methods: conditions.map((c) => c.id) };
}

/** The tasks, the conditions and the stored request of a new run; a bad request fails naming its field. */
export function planRun(input: RunInput, env: PlanEnv): RunPlan {
  const manifest = readManifest(input.manifest, { allow: env.allow });
  let tasks: Task[] = [];
  try {
    tasks = selectTasks(manifest, input.taskIds ?? null, input.limit ?? null);
  } catch (err) {
    if (!(err instanceof ExperimentError)) throw err;
    invalid(input.taskIds ? 'taskIds' : 'manifest', err);
  }
  const kind = conditionsOfKind(input.kind, input.methods);
  let conditions = env.adjust ? kind.conditions.map(env.adjust) : kind.conditions;
  try {
    conditions = withGeneration(conditions, { preset: input.preset, candidates: input.candidates, temperature: input.temperature });
    conditions = withOutputRules(conditions, { unverifiedOutput: input.unverifiedOutput, afterFailedRepairs: input.afterFailedRepairs });
  } catch (err) {
    invalid('preset', err);
  }
  const request = parseRunRequest({
    kind: input.kind,
    manifest: manifest.file,
    taskIds: input.taskIds,
    limit: input.limit,
    methods: kind.methods,
    preset: input.preset,
    candidates: input.candidates,
    temperature: input.temperature,
    unverifiedOutput: input.unverifiedOutput,
    afterFailedRepairs: input.afterFailedRepairs,
    backend: input.backend,
    decompose: input.decompose ?? defaultDecompose(input.backend.kind),
    sandbox: input.sandbox ?? env.defaults.sandbox,
    parallel: input.parallel ?? env.defaults.parallel,
    prices: env.prices,
    maxUsd: input.maxUsd,
  });
  return { manifest, tasks, conditions, request };
}

/** What the plan would cost (or take, on this machine), sending nothing. */
export function estimatePlan(plan: RunPlan, backend: LlmBackend, prices: PriceTable): ReturnType<typeof estimateRun> {
  return estimateRun(plan.tasks, plan.conditions, backend, prices, { llmDecomposition: plan.request.decompose === 'llm' });
}

/** Whether the estimate is over the request's budget (an estimate without a price is, when a budget is set). */
export function overBudget(plan: RunPlan, est: { usdExpected: number | null }): boolean {
  const max = plan.request.maxUsd;
  return max !== undefined && (est.usdExpected === null || est.usdExpected > max);
}

/** Everything around a run that its caller supplies: the engine, the backend built from the request, and its hooks. */
export type RunContext = Omit<ExperimentContext, 'sandbox' | 'parallel'> & { parallel?: number };

/** Freezes the plan as a run and runs it. */
export function startRun(ctx: RunContext, plan: RunPlan): Promise<RunOutcome> {
  return startExperiment(
    { ...ctx, sandbox: { mode: plan.request.sandbox }, parallel: ctx.parallel ?? plan.request.parallel },
    { kind: plan.request.kind, manifest: plan.manifest, tasks: plan.tasks, conditions: plan.conditions, request: plan.request },
  );
}

/** Runs what a stored run has left, as its stored request says (the sandbox it froze; the pairs at once unless given). */
export function resumeRun(ctx: RunContext, stored: string | ReturnType<typeof resumableRun>): Promise<RunOutcome> {
  const run = typeof stored === 'string' ? resumableRun(ctx.store, stored) : stored;
  return resumeExperiment({ ...ctx, sandbox: { mode: run.request.sandbox }, parallel: ctx.parallel ?? run.request.parallel }, run);
}
