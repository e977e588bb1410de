// Experiment commands: run (methods on a frozen manifest), ablate (the 2³ evidence factorial or the component
// ladder), report (HTML / Markdown / JSON / CSV from the store), compare (two runs, paired), runs (the list).

import path from 'node:path';
import { FACTORIAL_TESTS, type FactorialTest } from '../../../stats/stats.ts';
import {
  buildReportModel,
  crossRunComparisons,
  defaultComparisons,
  fmtInterval,
  loadRun,
  reportComparisons,
  type LoadedRun,
} from '../../../experiment/analysis.ts';
import { readManifest } from '../../../benchmarks/manifest.ts';
import {
  estimateRun,
  resumableRun,
  resumeExperiment,
  selectTasks,
  startExperiment,
  type ExperimentContext,
  type StoredBackend,
} from '../../../experiment/orchestrate.ts';
import type { ReportModel } from '../../../model/report.ts';
import { writeReport, type ReportFormat } from '../../../experiment/report.ts';
import { displayNames, droppedText, repliesText, scoredText, VERDICTS_APART } from '../../../experiment/report/format.ts';
import { appInfo, type Progress, type RunOutcome } from '../../../experiment/runner.ts';
import { Store } from '../../../store/store.ts';
import { runsCommand } from './runs-listing.ts';
import { factorialConditions, LADDER, METHODS, resolveConditions, withGeneration, withOutputRules, type Condition } from '../../../pipeline/methods.ts';
import { packageRoot } from '../../paths.ts';
import { openReadOnlyStore } from '../read-store.ts';
import { allowOf, dbPathOf, sandboxModeOf, untilInterrupted, UsageError, type Command, type CommandResult, type Io, type SandboxMode } from '../kit.ts';
import { backendChoice, backendOfFlags, num, pricesOf, spendText, type GenerateDeps } from './generate-commands.ts';
import { EXPERIMENT_SPECS } from './specs.ts';
import { parseQueueUrl } from '../../../experiment/queue/url.ts';
import { defaultBundleCache } from '../../../experiment/queue/bundles.ts';
import { QUEUED_BACKENDS } from '../../../experiment/queue/jobs.ts';
import { openConfiguredEncoder, type EncoderPreference } from '../../../embed/select.ts';
import { defaultModelsDir } from '../../paths.ts';
import { ensureIndexed, openWorkspace, type Workspace } from './retrieve-commands.ts';
import { counts as fmtCounts, duration as fmtDuration, fixed, plural, usd as fmtUsd } from '../../../model/format.ts';

const f3 = (x: number | null | undefined) => fixed(x, 3);
const usd = (x: number | null) => fmtUsd(x, 'unknown (no price)');

const duration = (ms: number | null): string => fmtDuration(ms, '?');

function progressLine(p: Progress): string {
  const last = p.last
    ? ` — ${p.last.taskId} / ${p.last.condition}: ${p.last.ok ? (p.last.correct ? 'correct' : 'wrong') : `UNSCORED ${p.last.error?.slice(0, 120)}`}${p.last.worker ? ` (on ${p.last.worker})` : ''}`
    : '';
  const workers = p.workers
    ? `; queue: ${p.queued ?? 0} waiting, workers ${p.workers.map((w) => `${w.name} ${w.active} running/${w.done} done`).join(', ') || 'none seen yet'}`
    : '';
  return `[run ${p.runId}] ${p.done}/${p.total}${p.failed ? ` (${p.failed} unscored)` : ''}${p.resumed ? `, ${p.resumed} from before` : ''}; ETA ${duration(p.etaMs)}; spent ${usd(p.spentUsd)}${workers}${last}`;
}

/** The run's record of the backend flags (main/generate/backends.ts backendSpecOfRecord reads it back for the app). */
function storedBackendOf(values: Record<string, unknown>): StoredBackend {
  const { kind, decompose } = backendChoice(values);
  const extra: Record<string, unknown> = {};
  const keys = ['samples', 'extract', 'replay-run', 'replay-provider', 'thinking-budget', 'timeout', 'retries', 'concurrency', 'prices'];
  // and llama-cpp's models folder, threads and context
  for (const k of [...keys, 'models', 'threads', 'context-size']) if (values[k] !== undefined) extra[k] = values[k];
  let model = (values.model as string | undefined) ?? null;
  // A model file given as a path is stored absolute, so a resume from another folder finds the same file (a bare
  // name stays a name in the models folder, which is stored beside it).
  if (kind === 'llama-cpp' && model && /[\\/]/.test(model)) model = path.resolve(model);
  if (kind === 'llama-cpp' && typeof extra.models === 'string') extra.models = path.resolve(extra.models);
  return { kind, model, baseURL: (values['base-url'] as string | undefined) ?? null, decompose, extra };
}

/** The flags that rebuild a stored backend (a resume uses what the run froze, then today's flags for what it did not record). */
function valuesOfBackend(b: StoredBackend): Record<string, unknown> {
  return { backend: b.kind, decompose: b.decompose, ...(b.model ? { model: b.model } : {}), ...(b.baseURL ? { 'base-url': b.baseURL } : {}), ...b.extra };
}

/** Per condition with unscored pairs or replies without code: its n and what was left out or named. */
function scoringLines(model: ReportModel, name: ReturnType<typeof displayNames>): string[] {
  return model.conditions
    .filter((c) => c.unscored.total || c.replies.empty + c.replies.noCode + c.replies.refused + c.replies.unknown)
    .map(
      (c) =>
        `${name(c.runId, c.condition, c.label)}: ${scoredText(c)} (unscored pairs are excluded from every figure); ${repliesText(c.replies)} (failed samples)`,
    );
}

/** Task ids a summary line lists before it points to the report, which lists them all. */
const SUMMARY_IDS = 10;

/**
 * Per kind counted apart (flaky and in-process verdicts, leak suspects), a line per condition with any, and the leak
 * audit's line for every audited condition (`leak suspects: 0` is worth saying): its counts and (the first) task ids.
 */
export function verdictsApartLines(model: ReportModel, name: ReturnType<typeof displayNames>): string[] {
  return VERDICTS_APART.flatMap((kind) =>
    model.conditions
      .map((c) => ({ c, ids: kind.ids(c) }))
      .filter(({ c, ids }) => ids.length || (kind.list === 'leak' && c.leak.audited > 0))
      .map(({ c, ids }) =>
        `${name(c.runId, c.condition, c.label)}: ${kind.text(c)} ${ids.slice(0, SUMMARY_IDS).join(', ')}${ids.length > SUMMARY_IDS ? ` and ${ids.length - SUMMARY_IDS} more (the report lists them all)` : ''}`.trimEnd(),
      ),
  );
}

/**
 * The summary table and comparisons. A condition's name is the report's display name (displayNames): with its run id
 * when another run shows the same name, so two runs of one method are told apart; `runLabels` (compare) first lists
 * each run's id and label.
 */
function summaryLines(model: ReportModel, runLabels?: ReadonlyMap<string, string | null>): string[] {
  const name = displayNames(model);
  const names = model.conditions.map((c) => name(c.runId, c.condition, c.label));
  const width = Math.max(34, ...names.map((n) => n.length));
  const lines = runLabels ? [...runLabels].map(([id, label]) => `Run ${id}${label ? `: ${label}` : ''}`) : [];
  lines.push(`${'condition'.padEnd(width)} tasks unscd  Pass@1                 selected-correct       raw Pass@1  uncert.  API F1 repo/view  cost`);
  model.conditions.forEach((c, i) => {
    const p1 = c.passAtK.find((p) => p.k === 1)?.value;
    lines.push(
      `${names[i]!.padEnd(width)} ${String(c.tasks).padStart(5)} ${String(c.unscored.total).padStart(5)}  ${(p1 ? fmtInterval(p1) : 'n/a').padEnd(22)} ${fmtInterval(c.selectedCorrect).padEnd(22)} ${f3(c.rawPass1.estimate).padStart(10)}  ${f3(c.uncertainty.mean).padStart(7)}  ${`${c.api ? f3(c.api.f1) : 'n/a'} / ${c.apiTaskView ? f3(c.apiTaskView.f1) : 'n/a'}`.padStart(17)}  ${usd(c.cost.usd)}`,
    );
  });
  lines.push(...scoringLines(model, name), ...verdictsApartLines(model, name));
  for (const cmp of model.comparisons) {
    const dropped = droppedText(cmp);
    lines.push(
      `${cmp.a.label} (${cmp.a.runId}) vs ${cmp.b.label} (${cmp.b.runId}): ${plural(cmp.tasks, 'paired task')}${dropped ? `, ${dropped}` : ''}, W/L/T ${cmp.wins}/${cmp.losses}/${cmp.ties}, McNemar p ${f3(cmp.mcnemarP)} (Holm ${f3(cmp.mcnemarPHolm)} over ${cmp.holmFamily.size} comparison${cmp.holmFamily.size === 1 ? '' : 's'} of ${cmp.holmFamily.key}), Δ selected-correct ${fmtInterval(cmp.selectedDiff)}` +
        (cmp.passAtKDiff.length
          ? `; Δ Pass@1 ${fmtInterval(cmp.passAtKDiff[0]!.diff)}, sign-flip p ${f3(cmp.passAtKDiff[0]!.test.p)} (${cmp.passAtKDiff[0]!.test.method}, ${cmp.passAtKDiff[0]!.test.informative} differing tasks)`
          : ''),
    );
  }
  for (const f of model.factorial) {
    for (const o of f.outcomes) {
      lines.push(
        `Factorial (${plural(f.tasks, 'paired task')}${f.dropped ? `, ${f.dropped} dropped: unscored or missing in a cell` : ''}, ${f.test}) — ${o.label}:`,
      );
      if (o.degenerate) lines.push(`  degenerate: ${o.degenerate}`);
      for (const e of o.effects)
        lines.push(
          `  ${e.name.padEnd(26)} ${fmtInterval(e.value)}  p ${f3(e.p)}  Holm ${f3(e.pHolm)}${e.degenerate ? `  (degenerate: ${e.degenerate})` : e.significant ? '  *' : ''}`,
        );
    }
  }
  return lines;
}

function modelOf(loaded: LoadedRun[], values: Record<string, unknown>, comparisons?: Parameters<typeof buildReportModel>[1]['comparisons']): ReportModel {
  const resamples = num(values, 'resamples', { int: true, min: 100 });
  const seed = num(values, 'seed', { int: true });
  const info = appInfo(packageRoot());
  const factorialTest = (values['factorial-test'] as string | undefined) ?? 't-test';
  if (!(FACTORIAL_TESTS as readonly string[]).includes(factorialTest))
    throw new UsageError(`--factorial-test must be ${FACTORIAL_TESTS.join(' or ')} (got ${factorialTest})`);
  return buildReportModel(loaded, {
    tool: { name: info.name, version: info.version },
    factorialTest: factorialTest as FactorialTest,
    bootstrap: { ...(resamples !== undefined ? { resamples } : {}), ...(seed !== undefined ? { seed } : {}) },
    ...(comparisons ? { comparisons } : {}),
    ...(values.title ? { title: values.title as string } : {}),
  });
}

interface Plan {
  manifest: ReturnType<typeof readManifest>;
  tasks: ReturnType<typeof selectTasks>;
  conditions: Condition[];
}

/** The stored backend a resume continues with. */
function frozenBackend(values: Record<string, unknown>, resume: string): StoredBackend {
  const given = ['candidates', 'temperature', 'preset', 'unverified-output', 'after-failed-repairs'].filter((k) => values[k] !== undefined);
  if (given.length) throw new UsageError(`--resume continues the run as it was frozen; it does not take ${given.map((k) => `--${k}`).join(', ')}`);
  const store = Store.open(dbPathOf(values));
  try {
    return resumableRun(store, resume).backend;
  } finally {
    store.close();
  }
}

/** A new run's tasks and conditions, as the flags choose them. */
function planOf(conditionsOf: (values: Record<string, unknown>) => Condition[], values: Record<string, unknown>): Plan {
  if (!values.manifest) throw new UsageError('--manifest FILE is required (or --resume RUN)');
  const manifest = readManifest(values.manifest as string, { allow: allowOf(values) });
  const ids = values.ids
    ? (values.ids as string)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : null;
  const limit = num(values, 'limit', { int: true, min: 1 }) ?? null;
  let conditions: Condition[];
  try {
    conditions = withOutputRules(
      withGeneration(conditionsOf(values), {
        preset: values.preset as string | undefined,
        candidates: num(values, 'candidates', { int: true, min: 1 }),
        temperature: num(values, 'temperature', { min: 0 }),
      }),
      { unverifiedOutput: values['unverified-output'] as string | undefined, afterFailedRepairs: values['after-failed-repairs'] as string | undefined },
    );
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return { manifest, tasks: selectTasks(manifest, ids, limit), conditions };
}

/** The estimate, then the run, unless the estimate was all that was asked for or it is over --max-usd. */
async function startPlanned(
  ctx: ExperimentContext,
  run: { kind: 'run' | 'ablate' | 'ladder'; plan: Plan; storedBackend: StoredBackend; options: { parallel: number; sandbox: SandboxMode } },
  values: Record<string, unknown>,
  io: Io,
  pricesSource: string,
): Promise<RunOutcome | CommandResult> {
  const { kind, plan, storedBackend, options } = run;
  const est = estimateRun(plan.tasks, plan.conditions, ctx.backend, ctx.prices, { llmDecomposition: storedBackend.decompose === 'llm' });
  const estText = `Estimate before the run: ${est.calls} call(s), ~${est.inputTokens} input / ~${est.outputTokensExpected} output tokens; ${spendText(est)}; ${est.assumptions}. Prices: ${pricesSource}.`;
  if (values['estimate-only']) {
    return {
      text: [estText],
      json: { ok: true, command: kind === 'run' ? 'run' : 'ablate', estimate: est, tasks: plan.tasks.length, conditions: plan.conditions.map((c) => c.id) },
    };
  }
  io.err(estText);
  const maxUsd = num(values, 'max-usd', { min: 0 });
  if (maxUsd !== undefined && (est.usdExpected === null || est.usdExpected > maxUsd)) {
    throw new UsageError(`the estimated cost ${usd(est.usdExpected)} is over --max-usd ${maxUsd}; nothing was sent`);
  }
  return startExperiment(ctx, { kind, manifest: plan.manifest, tasks: plan.tasks, conditions: plan.conditions, storedBackend, options });
}

/** The exit code of a run or ablation that finished with failed (task, condition) pairs. */
export const RUN_FAILED_EXIT = 3;

function outcomeResult(kind: 'run' | 'ablate' | 'ladder', ws: Workspace, outcome: RunOutcome, values: Record<string, unknown>): CommandResult {
  const loaded = loadRun(ws.store.experiments, outcome.runId);
  const model = modelOf([loaded], values);
  const text = [
    `Run ${outcome.runId}: ${outcome.status}; ${outcome.ran} ran now, ${outcome.resumed} from before, ${outcome.failed} failed, of ${outcome.total}; ${duration(outcome.durationMs)}`,
    ...summaryLines(model),
    ...(outcome.failed
      ? [
          `Failed: ${outcome.failed} of ${outcome.total} (task, condition) pairs — ${Object.entries(outcome.failures)
            .sort((a, b) => b[1] - a[1])
            .map(([k, n]) => `${k} ${n}`)
            .join(
              ', ',
            )}; these pairs are unscored (${fmtCounts(outcome.unscored)}): excluded from Pass@k and selected-correct, counted beside them; each pair's error is stored with its result, and a resume runs the failed pairs again.`,
        ]
      : []),
    outcome.status === 'cancelled'
      ? `Resume with: opencoder ${kind === 'run' ? 'run' : 'ablate'} --resume ${outcome.runId}`
      : `Report with: opencoder report ${outcome.runId} --format html --out report.html`,
  ];
  return {
    text,
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

async function runExperimentCommand(
  kind: 'run' | 'ablate' | 'ladder',
  conditionsOf: (values: Record<string, unknown>) => Condition[],
  values: Record<string, unknown>,
  io: Io,
  deps: GenerateDeps,
): Promise<CommandResult> {
  const resume = values.resume as string | undefined;
  const sandbox = sandboxModeOf(values);
  const parallel = num(values, 'parallel', { int: true, min: 1 });
  const validatorWorkers = num(values, 'validator-workers', { int: true, min: 1 });
  const quiet = values.quiet === true;
  const queue = values.queue ? parseQueueUrl(values.queue as string) : undefined;

  const plan = resume ? null : planOf(conditionsOf, values);
  const storedBackend = resume ? frozenBackend(values, resume) : storedBackendOf(values);
  if (queue && storedBackend.kind === 'replay') {
    throw new UsageError('--queue does not take --backend replay: the recorded exchanges stay in this store; replay the run locally');
  }
  const backendValues = resume ? { ...values, ...valuesOfBackend(storedBackend) } : values;
  const ws = await openWorkspace(values, io);
  try {
    return await untilInterrupted(io, 'cancelling… finished tasks are kept; resume with --resume', async (signal) => {
      const backend = backendOfFlags(backendValues, ws.store.exchanges, deps, io);
      const { table: prices, source: pricesSource } = pricesOf(backendValues);
      const ctx: ExperimentContext = {
        store: ws.store,
        encoder: ws.encoder,
        backend,
        prices,
        packageRoot: packageRoot(),
        ensureIndexed: (tasks) => ensureIndexed(ws, tasks, io, quiet),
        allow: allowOf(values),
        sandbox: { mode: sandbox },
        ...(validatorWorkers ? { validatorConcurrency: validatorWorkers } : {}),
        ...(parallel ? { parallel } : {}),
        ...(queue
          ? {
              queue,
              onQueued: (q: { queue: string; jobs: number; bundles: { kind: string; sha256: string; bytes: number }[] }) =>
                io.err(
                  `Queued ${q.jobs} job(s) on ${q.queue} at ${queue.display}; bundles: ${q.bundles.map((b) => `${b.kind} ${b.sha256.slice(0, 12)} (${(b.bytes / 2 ** 20).toFixed(1)} MiB)`).join(', ')}. Start workers with: opencoder worker --queue ${queue.display}`,
                ),
            }
          : {}),
        signal,
        onStart: (run) =>
          io.err(
            `Run ${run.id}: ${run.taskIds.length} tasks × ${run.conditions.length} conditions (${(run.conditions as { id: string }[]).map((c) => c.id).join(', ')}); backend ${backend.label}; manifest ${run.manifestHash.slice(0, 12)}`,
          ),
        onProgress: (p) => {
          if (!quiet) io.err(progressLine(p));
        },
      };
      const outcome = plan
        ? await startPlanned(ctx, { kind, plan, storedBackend, options: { parallel: parallel ?? 2, sandbox } }, values, io, pricesSource)
        : await resumeExperiment(ctx, resume!);
      return 'runId' in outcome ? outcomeResult(kind, ws, outcome, values) : outcome;
    });
  } finally {
    await ws.close();
  }
}

function loadRuns(values: Record<string, unknown>, ids: string[]): { loaded: LoadedRun[]; close(): void } {
  const store = openReadOnlyStore(values);
  try {
    const experiments = store.experiments;
    return { loaded: ids.map((id) => loadRun(experiments, id)), close: () => store.close() };
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
      const { loaded, close } = loadRuns(values, positionals);
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
      const { loaded, close } = loadRuns(values, positionals);
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

export function makeExperimentCommands(deps: GenerateDeps = {}): Record<string, Command> {
  return {
    run: {
      ...EXPERIMENT_SPECS.run,
      run: ({ values }, io) =>
        runExperimentCommand(
          'run',
          (v) => {
            try {
              return resolveConditions((v.method as string).split(','));
            } catch (err) {
              throw new UsageError((err as Error).message);
            }
          },
          values,
          io,
          deps,
        ),
    },
    ablate: {
      ...EXPERIMENT_SPECS.ablate,
      run: ({ values }, io) => {
        const base = METHODS[values.base as string];
        if (!base) throw new UsageError(`--base must be one of ${Object.keys(METHODS).join(', ')}`);
        return runExperimentCommand(values.ladder ? 'ladder' : 'ablate', () => (values.ladder ? LADDER : factorialConditions(base)), values, io, deps);
      },
    },
    worker: {
      ...EXPERIMENT_SPECS.worker,
      run: ({ values }, io) => workerCommand(values, io, deps),
    },
    ...REPORT_COMMANDS,
  };
}

/** `--rate-limit 60/min`: MAX jobs per PERIOD (s, min, h, or a number of milliseconds). */
export function rateLimitOf(text: string): { max: number; durationMs: number } {
  const m = /^(\d+)\s*\/\s*(s|sec|min|h|\d+)$/.exec(text.trim());
  const unit: Record<string, number> = { s: 1000, sec: 1000, min: 60_000, h: 3_600_000 };
  const max = m ? Number(m[1]) : NaN;
  const durationMs = m ? (unit[m[2]!] ?? Number(m[2])) : NaN;
  if (!m || !(max >= 1) || !(durationMs >= 1))
    throw new UsageError(`--rate-limit must be MAX/PERIOD, e.g. 60/min, 5/s or 100/60000 (got ${JSON.stringify(text)})`);
  return { max, durationMs };
}

/** `opencoder worker`: runs queued (task, condition) jobs until interrupted (Ctrl-C finishes the running ones first). */
async function workerCommand(values: Record<string, unknown>, io: Io, deps: GenerateDeps): Promise<CommandResult> {
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
    return await untilInterrupted(io, 'stopping… the running jobs finish first (Ctrl-C again to kill; their jobs go back to the queue)', async (signal) => {
      const w = await startQueueWorker({
        queue,
        encoder,
        prices,
        makeBackend: (b, exchanges) => backendOfFlags(valuesOfBackend(b), exchanges, deps, io),
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
      // Ctrl-C, or SIGTERM from a service manager: stop taking jobs, let the running ones finish.
      await new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true });
        process.once('SIGTERM', () => {
          io.err('SIGTERM: stopping… the running jobs finish first');
          resolve();
        });
      });
      await w.close();
      return { text: [`Worker ${w.name} stopped after ${w.finished} job(s)`], json: { ok: true, command: 'worker', name: w.name, finished: w.finished } };
    });
  } finally {
    await encoder.dispose();
  }
}

export const EXPERIMENT_COMMANDS = makeExperimentCommands();
