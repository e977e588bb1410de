// Commands over task manifests that need retrieval: retrieve (one task) and eval-api (RQ4).

import { findTask, type Manifest } from '../../../model/manifest.ts';
import { readManifest } from '../../../benchmarks/manifest-file.ts';
import type { Task } from '../../../model/task.ts';
import { makeConfig, type PipelineConfig } from '../../../model/config.ts';
import { retrieveForTask } from '../../../retrieve/engine.ts';
import { API_PROTOCOLS, PREDICTION_SCOPES, PROTOCOL_RULES, type ApiProtocol, type PredictionScope } from '../../../experiment/eval/api-eval.ts';
import { evaluateManifestApis } from '../../../experiment/eval/api-run.ts';
import type { EngineCore } from '../../workspace.ts';
import { indexFolders, indexTasks, openEngineFor } from '../engine.ts';
import type { Flags } from '../flags.ts';
import { allowOf, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';
import { RETRIEVE_SPECS } from '../specs.ts';
import { evalApiLines, traceLines } from '../text/retrieve-text.ts';

function manifestOf(values: Flags) {
  const file = values.manifest as string | undefined;
  if (!file) throw new UsageError('--manifest FILE is required');
  return readManifest(file, { allow: allowOf(values) });
}

function configOf(values: Flags): PipelineConfig {
  const leak = (values['leak-policy'] as string | undefined) ?? 'drop';
  if (!['drop', 'flag', 'off'].includes(leak)) throw new UsageError(`--leak-policy must be drop, flag or off (got ${leak})`);
  return makeConfig({ retrieval: { leakPolicy: leak as 'drop' | 'flag' | 'off' }, fusion: { refineApi: values['no-refine'] !== true } });
}

/** `--word` checked against the values it takes. */
function oneOf<T extends string>(values: Flags, key: string, allowed: readonly T[]): T {
  const v = values[key] as T;
  if (!allowed.includes(v)) throw new UsageError(`--${key} must be one of ${allowed.join(', ')} (got ${v})`);
  return v;
}

/** The tasks `--ids` picks that have a truth to score against (a reference or ground_truth_apis); the rest named on stderr. */
function scorableTasks(manifest: Manifest, values: Flags, io: Io): Task[] {
  const wanted = values.ids ? new Set((values.ids as string).split(',').map((s) => s.trim())) : null;
  const tasks = manifest.tasks.filter((t) => !wanted || wanted.has(t.id));
  if (!tasks.length) throw new UsageError('no tasks selected');
  const usable = tasks.filter((t) => t.reference || t.ground_truth_apis?.length);
  const left = tasks.filter((t) => !usable.includes(t));
  if (left.length)
    io.err(
      `note: ${left.length} tasks have neither a reference solution nor ground_truth_apis and are left out (${left
        .slice(0, 3)
        .map((t) => t.id)
        .join(', ')}…)`,
    );
  return usable;
}

/** Both protocols over the tasks: their repositories and task views indexed first. */
async function evaluateApis(engine: EngineCore, tasks: Task[], config: PipelineConfig, io: Io, quiet: boolean) {
  const repos = await indexTasks(engine, tasks, io, quiet);
  const viewPaths = [...new Set(tasks.map((t) => t.taskViewPath).filter((p): p is string => !!p))];
  const views = await indexFolders(engine, viewPaths, io, true);
  if (viewPaths.length && !quiet) io.err(`[eval-api] ${viewPaths.length} task views indexed`);
  return evaluateManifestApis({
    store: engine.store,
    encoder: engine.encoder,
    tasks,
    repos,
    views,
    config,
    onProgress: quiet ? undefined : (done, n) => done % 20 === 0 && io.err(`[eval-api] ${done}/${n}`),
  });
}

async function evalApi(values: Flags, io: Io): Promise<CommandResult> {
  const protocol = oneOf<ApiProtocol>(values, 'protocol', API_PROTOCOLS);
  const scope = oneOf<PredictionScope>(values, 'scope', PREDICTION_SCOPES);
  const manifest = manifestOf(values);
  const usable = scorableTasks(manifest, values, io);
  const config = configOf(values);
  const engine = await openEngineFor(values, io);
  try {
    const run = await evaluateApis(engine, usable, config, io, values.quiet === true);
    const head = run[protocol][scope];
    const refine = config.fusion.refineApi;
    const encoder = engine.encoder.name;
    return {
      text: evalApiLines({ file: manifest.file, hash: manifest.hash, tasks: usable.length, refine, encoder }, run, protocol, scope),
      json: {
        ok: true,
        command: 'eval-api',
        manifestHash: manifest.hash,
        refine,
        encoder,
        protocol,
        scope,
        rules: PROTOCOL_RULES,
        summary: head.summary,
        benchmarks: head.benchmarks,
        meanOverBenchmarks: head.meanOverBenchmarks,
        protocols: run,
        tasks: run.tasks[protocol][scope],
      },
    };
  } finally {
    await engine.close();
  }
}

export const RETRIEVE_COMMANDS: Record<string, Command> = {
  retrieve: {
    ...RETRIEVE_SPECS.retrieve,
    async run({ values }, io) {
      const manifest = manifestOf(values);
      if (!values.id) throw new UsageError('--id ID is required');
      const task = findTask(manifest, values.id as string);
      const engine = await openEngineFor(values, io);
      try {
        const repos = await indexTasks(engine, [task], io, values.quiet === true);
        const trace = await retrieveForTask({
          store: engine.store,
          encoder: engine.encoder,
          repoId: repos.get(task.repoPath)!,
          task,
          config: configOf(values),
        });
        return { text: traceLines(trace), json: { ok: true, command: 'retrieve', manifestHash: manifest.hash, trace, encoderNotice: engine.notice } };
      } finally {
        await engine.close();
      }
    },
  },
  'eval-api': { ...RETRIEVE_SPECS['eval-api'], run: ({ values }, io) => evalApi(values, io) },
};
