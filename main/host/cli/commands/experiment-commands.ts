// Experiment commands: run (methods on a frozen manifest), ablate (the 2³ evidence factorial or the component
// ladder), worker (queued pairs), report (HTML / Markdown / JSON / CSV from the store), compare (two runs, paired),
// runs (the list). A run's flags become one request (flags.ts runInputOf) that host/ops/run.ts plans, starts or,
// with --resume, reads back from the store, as the app's experiment calls do.

import path from 'node:path';
import { FACTORIAL_TESTS, type FactorialTest } from '../../../stats/stats.ts';
import { crossRunComparisons, defaultComparisons, reportComparisons } from '../../../experiment/comparisons.ts';
import { loadRun, type LoadedRun } from '../../../experiment/loaded-run.ts';
import { loadRuns, reportModel, type ReportOptions } from '../../ops/report.ts';
import { resumableRun } from '../../../experiment/orchestrate.ts';
import type { ReportModel } from '../../../model/report.ts';
import { usd } from '../../../model/format.ts';
import { writeReport, type ReportFormat } from '../../../experiment/report.ts';
import type { RunOutcome } from '../../../experiment/runner.ts';
import { runsCommand } from './runs-listing.ts';
import { METHODS } from '../../../pipeline/methods.ts';
import { defaultModelsDir, packageRoot, userDataDir } from '../../paths.ts';
import { openReadOnlyStore } from '../read-store.ts';
import { allowOf, untilInterrupted, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';
import { EXPERIMENT_SPECS } from '../specs.ts';
import { parseQueueUrl, type QueueAddress } from '../../../experiment/queue/url.ts';
import { defaultBundleCache } from '../../../experiment/queue/bundles.ts';
import { QUEUED_BACKENDS } from '../../../experiment/queue/jobs.ts';
import { openConfiguredEncoder, type EncoderPreference } from '../../../embed/select.ts';
import { normalizedSpec } from '../../ops/backend.ts';
import { runProgressLine } from '../../ops/progress.ts';
import { estimatePlan, overBudget, planRun, resumeRun, startRun, type RunContext, type RunPlan } from '../../ops/run.ts';
import type { EngineCore } from '../../workspace.ts';
import { indexTasks, openEngineFor } from '../engine.ts';
import { asUsage, cliBackend, num, pricesOf, rateLimitOf, refuseOnResume, runInputOf, type BackendDeps, type Flags } from '../flags.ts';
import { estimateText, outcomeLines, queuedText, summaryLines } from '../text/run-text.ts';

/** The report model of loaded runs, with the report flags (--resamples, --seed, --factorial-test, --title). */
function modelOf(loaded: LoadedRun[], values: Flags, comparisons?: ReportOptions['comparisons']): ReportModel {
  const resamples = num(values, 'resamples', { int: true, min: 100 });
  const seed = num(values, 'seed', { int: true });
  const factorialTest = (values['factorial-test'] as string | undefined) ?? 't-test';
  if (!(FACTORIAL_TESTS as readonly string[]).includes(factorialTest))
    throw new UsageError(`--factorial-test must be ${FACTORIAL_TESTS.join(' or ')} (got ${factorialTest})`);
  return reportModel(loaded, {
    factorialTest: factorialTest as FactorialTest,
    bootstrap: { ...(resamples !== undefined ? { resamples } : {}), ...(seed !== undefined ? { seed } : {}) },
    ...(comparisons ? { comparisons } : {}),
    ...(values.title ? { title: values.title as string } : {}),
  });
}

/** The exit code of a run or ablation that finished with failed (task, condition) pairs. */
export const RUN_FAILED_EXIT = 3;

function outcomeResult(kind: 'run' | 'ablate' | 'ladder', engine: EngineCore, outcome: RunOutcome, values: Flags): CommandResult {
  const model = modelOf([loadRun(engine.store.experiments, outcome.runId)], values);
  return {
    text: outcomeLines(kind, outcome, model),
    json: {
      ok: outcome.failed === 0,
      command: kind === 'run' ? 'run' : 'ablate',
      runId: outcome.runId,
      outcome,
      conditions: model.conditions,
      comparisons: model.comparisons,
      factorial: model.factorial,
    },
    // 130: cancelled (resume it); 3: finished, but some pairs failed (an API error, a sandbox that would not start, …).
    exit: outcome.status === 'cancelled' ? 130 : outcome.failed ? RUN_FAILED_EXIT : 0,
  };
}

/** A new run's plan from its flags (the CLI's defaults: the sandbox flag's, two pairs at once). */
function planOfFlags(kind: 'run' | 'ablate' | 'ladder', values: Flags): RunPlan {
  if (kind === 'ablate' && !METHODS[values.base as string]) throw new UsageError(`--base must be one of ${Object.keys(METHODS).join(', ')}`);
  const input = runInputOf(values, kind);
  const prices = values.prices ? path.resolve(values.prices as string) : undefined;
  return asUsage(() =>
    planRun(
      { ...input, backend: normalizedSpec(input.backend, userDataDir()) },
      { allow: allowOf(values), defaults: { sandbox: 'auto', parallel: 2 }, ...(prices ? { prices } : {}) },
    ),
  );
}

/** The estimate, and whether it is all that was asked for; a run over its budget is refused before anything is sent. */
function estimateFirst(kind: 'run' | 'ablate' | 'ladder', plan: RunPlan, ctx: RunContext, values: Flags, io: Io, pricesSource: string): CommandResult | null {
  const est = estimatePlan(plan, ctx.backend, ctx.prices);
  const line = estimateText(est, pricesSource);
  if (values['estimate-only']) {
    return {
      text: [line],
      json: { ok: true, command: kind === 'run' ? 'run' : 'ablate', estimate: est, tasks: plan.tasks.length, conditions: plan.conditions.map((c) => c.id) },
    };
  }
  io.err(line);
  if (overBudget(plan, est))
    throw new UsageError(`the estimated cost ${usd(est.usdExpected, 'unknown (no price)')} is over --max-usd ${plan.request.maxUsd}; nothing was sent`);
  return null;
}

/** The context a CLI run has: its engine, its backend, progress lines on stderr, indexing with progress lines. */
function cliRunContext(
  engine: EngineCore,
  backend: RunContext['backend'],
  prices: RunContext['prices'],
  values: Flags,
  io: Io,
  signal: AbortSignal,
  queue?: QueueAddress,
): RunContext {
  const quiet = values.quiet === true;
  const parallel = num(values, 'parallel', { int: true, min: 1 });
  const validatorWorkers = num(values, 'validator-workers', { int: true, min: 1 });
  return {
    store: engine.store,
    encoder: engine.encoder,
    backend,
    prices,
    packageRoot: packageRoot(),
    ensureIndexed: (tasks) => indexTasks(engine, tasks, io, quiet),
    allow: allowOf(values),
    ...(parallel ? { parallel } : {}),
    ...(validatorWorkers ? { validatorConcurrency: validatorWorkers } : {}),
    ...(queue ? { queue, onQueued: (q) => io.err(queuedText(q, queue)) } : {}),
    signal,
    onStart: (run) =>
      io.err(
        `Run ${run.id}: ${run.taskIds.length} tasks × ${run.conditions.length} conditions (${(run.conditions as { id: string }[]).map((c) => c.id).join(', ')}); backend ${backend.label}; manifest ${run.manifestHash.slice(0, 12)}`,
      ),
    onProgress: (p) => {
      if (!quiet) io.err(runProgressLine(p));
    },
  };
}

async function runExperimentCommand(kind: 'run' | 'ablate' | 'ladder', values: Flags, io: Io, deps: BackendDeps): Promise<CommandResult> {
  const resume = values.resume as string | undefined;
  if (resume) refuseOnResume(values);
  const queue = values.queue ? parseQueueUrl(values.queue as string) : undefined;
  const plan = resume ? null : planOfFlags(kind, values);
  const engine = await openEngineFor(values, io);
  try {
    const stored = resume ? resumableRun(engine.store, resume) : null;
    const request = plan?.request ?? stored!.request;
    if (queue && request.backend.kind === 'replay') {
      throw new UsageError('--queue does not take --backend replay: the recorded exchanges stay in this store; replay the run locally');
    }
    return await untilInterrupted(io, 'cancelling… finished tasks are kept; resume with --resume', async (signal) => {
      const backend = cliBackend(request.backend, engine.store.exchanges, deps, io);
      const { table: prices, source: pricesSource } = pricesOf(values, request.prices);
      const ctx = cliRunContext(engine, backend, prices, values, io, signal, queue);
      if (plan) {
        const early = estimateFirst(kind, plan, ctx, values, io, pricesSource);
        if (early) return early;
      }
      const outcome = plan ? await startRun(ctx, plan) : await resumeRun(ctx, stored!);
      return outcomeResult(kind, engine, outcome, values);
    });
  } finally {
    await engine.close();
  }
}

function loadStoredRuns(values: Flags, ids: string[]): { loaded: LoadedRun[]; close(): void } {
  const store = openReadOnlyStore(values);
  try {
    return { loaded: loadRuns(store.experiments, ids), close: () => store.close() };
  } catch (err) {
    store.close();
    throw err;
  }
}

/** The commands that read runs from the store: report, compare, runs. */
const REPORT_COMMANDS: Record<string, Command> = {
  report: {
    ...EXPERIMENT_SPECS.report,
    async run({ values, positionals }) {
      if (!positionals.length) throw new UsageError('report needs a run id (see opencoder runs)');
      const format = values.format as ReportFormat;
      if (!['html', 'md', 'json', 'csv'].includes(format)) throw new UsageError(`--format must be html, md, json or csv (got ${format})`);
      if (!values.out) throw new UsageError('--out FILE is required');
      const { loaded, close } = loadStoredRuns(values, positionals);
      try {
        const model = modelOf(loaded, values, reportComparisons(loaded));
        const files = writeReport(model, format, path.resolve(values.out as string));
        return { text: [`Wrote ${files.join(', ')}`], json: { ok: true, command: 'report', runs: positionals, format, files } };
      } finally {
        close();
      }
    },
  },
  compare: {
    ...EXPERIMENT_SPECS.compare,
    async run({ values, positionals }) {
      if (positionals.length !== 2) throw new UsageError('compare needs exactly two run ids');
      const { loaded, close } = loadStoredRuns(values, positionals);
      try {
        if (loaded[0]!.run.manifestHash !== loaded[1]!.run.manifestHash) {
          throw new UsageError(
            `the runs froze different manifests (${loaded[0]!.run.manifestHash.slice(0, 12)} vs ${loaded[1]!.run.manifestHash.slice(0, 12)}): only tasks with the same id are paired, and they may differ`,
          );
        }
        // The same comparisons, hence the same Holm families, as `report A B`; only the cross-run pairs are shown.
        const cross = crossRunComparisons(loaded[0]!, loaded[1]!);
        const full = modelOf(loaded, values, [...defaultComparisons(loaded), ...cross]);
        const key = (c: { a: { runId: string; condition: string }; b: { runId: string; condition: string } }) =>
          `${c.a.runId}|${c.a.condition}|${c.b.runId}|${c.b.condition}`;
        const shown = new Set(cross.map(key));
        const model = { ...full, comparisons: full.comparisons.filter((c) => shown.has(key(c))) };
        return {
          text: summaryLines(model, new Map(loaded.map((l) => [l.run.id, l.run.label]))),
          json: { ok: true, command: 'compare', runs: positionals, conditions: model.conditions, comparisons: model.comparisons },
        };
      } finally {
        close();
      }
    },
  },
  runs: runsCommand,
};

export function makeExperimentCommands(deps: BackendDeps = {}): Record<string, Command> {
  return {
    run: { ...EXPERIMENT_SPECS.run, run: ({ values }, io) => runExperimentCommand('run', values, io, deps) },
    ablate: { ...EXPERIMENT_SPECS.ablate, run: ({ values }, io) => runExperimentCommand(values.ladder ? 'ladder' : 'ablate', values, io, deps) },
    worker: { ...EXPERIMENT_SPECS.worker, run: ({ values }, io) => workerCommand(values, io, deps) },
    ...REPORT_COMMANDS,
  };
}

/** `opencoder worker`: runs queued (task, condition) jobs until interrupted (Ctrl-C finishes the running ones first). */
async function workerCommand(values: Flags, io: Io, deps: BackendDeps): Promise<CommandResult> {
  if (!values.queue) throw new UsageError('--queue redis://HOST:PORT is required');
  const queue = parseQueueUrl(values.queue as string);
  const concurrency = num(values, 'concurrency', { int: true, min: 1 }) ?? 1;
  const validatorConcurrency = num(values, 'validator-workers', { int: true, min: 1 });
  const lockMs = num(values, 'lock-ms', { int: true, min: 1000 });
  const rateLimit = values['rate-limit'] ? rateLimitOf(values['rate-limit'] as string) : undefined;
  const backends = values.backends ? (values.backends as string).split(',').map((s) => s.trim()) : undefined;
  const unknown = (backends ?? []).filter((b) => !(QUEUED_BACKENDS as readonly string[]).includes(b));
  if (unknown.length) throw new UsageError(`--backends: unknown kind ${unknown.join(', ')} (one of ${QUEUED_BACKENDS.join(', ')})`);
  const { encoder, notice } = await openConfiguredEncoder({
    prefer: (values.encoder as EncoderPreference | undefined) ?? 'auto',
    modelsDir: (values.models as string | undefined) ?? defaultModelsDir(),
  });
  if (notice && !values.quiet) io.err(`note: ${notice}`);
  const { table: prices } = pricesOf(values);
  const { startQueueWorker } = await import('../../../experiment/queue/worker.ts');
  try {
    return await untilInterrupted(io, 'stopping: the running jobs go back to the queue (Ctrl-C again to kill)', async (signal) => {
      const w = await startQueueWorker({
        queue,
        encoder,
        prices,
        makeBackend: (spec, exchanges) => cliBackend(spec, exchanges, deps, io),
        concurrency,
        ...(validatorConcurrency ? { validatorConcurrency } : {}),
        ...(rateLimit ? { rateLimit } : {}),
        ...(backends ? { backends } : {}),
        ...(lockMs ? { lockMs } : {}),
        cacheDir: (values.cache as string | undefined) ?? defaultBundleCache(),
        onEvent: (line) => {
          if (!values.quiet) io.err(`[worker] ${line}`);
        },
      });
      // Ctrl-C, or SIGTERM from a service manager or a pod's termination: take no more jobs, give the running ones
      // back, and exit within seconds whether or not the queue answers (a second signal kills at once).
      await new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true });
        process.once('SIGTERM', () => {
          io.err('SIGTERM: stopping: the running jobs go back to the queue');
          resolve();
        });
      });
      const stopped = await w.stop(STOP_GRACE_MS);
      // The queue's client library may keep timers of a connection it could not close: once this command has
      // answered, they must not hold the process (a service manager would wait for it, then kill it).
      setTimeout(() => {
        io.err(`exiting now: the queue's client still held the process 2 s after the worker stopped`);
        process.exit(process.exitCode ?? 0);
      }, 2000).unref();
      if (stopped.unreachable) io.err(`the queue did not answer; jobs this worker held go back to it once their locks lapse`);
      const back = stopped.givenBack ? `; ${stopped.givenBack} given back to the queue` : '';
      return {
        text: [`Worker ${w.name} stopped after ${w.finished} job(s)${back}`],
        json: { ok: true, command: 'worker', name: w.name, finished: w.finished, givenBack: stopped.givenBack, queueAnswered: !stopped.unreachable },
      };
    });
  } finally {
    await encoder.dispose();
  }
}

/** How long a stopping worker waits for the queue before it lets go of it. */
const STOP_GRACE_MS = 5000;

export const EXPERIMENT_COMMANDS = makeExperimentCommands();
