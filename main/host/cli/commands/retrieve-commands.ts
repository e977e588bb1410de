// Commands over task manifests that need retrieval: retrieve (one task) and eval-api (RQ4).

import { runIndex } from '../../../index/indexer.ts';
import type { EncoderPreference } from '../../../embed/select.ts';
import { findTask, readManifest, type Task } from '../../../benchmarks/manifest.ts';
import { makeConfig, type PipelineConfig } from '../../../model/config.ts';
import { retrieveForTask } from '../../../retrieve/engine.ts';
import { API_PROTOCOLS, PREDICTION_SCOPES, PROTOCOL_RULES, type ApiProtocol, type PredictionScope, type ProtocolReport } from '../../../retrieve/api-eval.ts';
import { evaluateManifestApis } from '../../../retrieve/api-run.ts';
import type { RetrievalTrace } from '../../../model/trace.ts';
import { defaultModelsDir } from '../../paths.ts';
import { openEngine, type EngineCore } from '../../workspace.ts';
import { allowOf, dbPathOf, UsageError, type Command, type Io } from '../kit.ts';
import { progressPrinter } from './index-commands.ts';
import { RETRIEVE_SPECS } from './specs.ts';
import { fixed } from '../../../model/format.ts';

/** A CLI command's engine: the Store and the encoder its flags ask for (host/workspace.ts composes them). */
export type Workspace = EngineCore;

/** Opens the database and the configured encoder (both closed by `close`); a fallback notice goes to stderr. */
export async function openWorkspace(values: Record<string, unknown>, io: Io): Promise<Workspace> {
  const ws = await openEngine({
    dbPath: dbPathOf(values),
    rebuild: values['rebuild-db'] === true,
    encoder: (values.encoder as EncoderPreference | undefined) ?? 'auto',
    modelsDir: (values.models as string | undefined) ?? defaultModelsDir(),
  });
  if (ws.storeNotice) io.err(`note: ${ws.storeNotice}`);
  if (ws.notice && !values.quiet) io.err(`note: ${ws.notice}`);
  return ws;
}

/** Indexes (or incrementally refreshes) each distinct repository of the tasks once; returns repo ids by path. */
export async function ensureIndexed(ws: Workspace, tasks: Task[], io: Io, quiet: boolean): Promise<Map<string, number>> {
  return ensureIndexedPaths(ws, [...new Set(tasks.map((t) => t.repoPath))], io, quiet);
}

/** Indexes (or refreshes) each folder once; returns repo ids by path. */
export async function ensureIndexedPaths(ws: Workspace, paths: string[], io: Io, quiet: boolean): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const path of paths) {
    const stats = await runIndex({ store: ws.store, root: path, encoder: ws.encoder }, quiet ? undefined : progressPrinter(io, false));
    if (stats.status !== 'completed') throw new Error(`indexing ${path} did not complete (${stats.status})`);
    ids.set(path, stats.repoId);
  }
  return ids;
}

function manifestOf(values: Record<string, unknown>) {
  const file = values.manifest as string | undefined;
  if (!file) throw new UsageError('--manifest FILE is required');
  return readManifest(file, { allow: allowOf(values) });
}

function configOf(values: Record<string, unknown>): PipelineConfig {
  const leak = (values['leak-policy'] as string | undefined) ?? 'drop';
  if (!['drop', 'flag', 'off'].includes(leak)) throw new UsageError(`--leak-policy must be drop, flag or off (got ${leak})`);
  return makeConfig({ retrieval: { leakPolicy: leak as 'drop' | 'flag' | 'off' }, fusion: { refineApi: values['no-refine'] !== true } });
}

/** The leakage audit's line (and one per suspect) for a trace; a trace stored before the audit says so. */
export function leakLines(trace: RetrievalTrace): string[] {
  const a = trace.leak;
  if (!a) return ['Leak audit: not run (policy off, or a trace stored before the audit existed)'];
  return [
    `Leak audit (${a.policy}): leak suspects: ${a.suspects.length} of ${a.checked} items, compared with ${a.against.join(', ') || 'nothing (no reference and no test sources found)'}`,
    ...a.suspects.map(
      (s) =>
        `  ${a.policy === 'drop' ? 'dropped' : 'flagged'}: ${s.title} — ${s.kind === 'token-run' ? 'shares a run of tokens with' : 'holds a value asserted by'} the ${s.against}: ${s.match.slice(0, 120)}`,
    ),
  ];
}

export function traceLines(trace: RetrievalTrace): string[] {
  const f = (x: number) => fixed(x, 3);
  const u = trace.sourceUncertainty;
  const lines = [
    `Task ${trace.taskId} — decomposition: ${trace.decomposition}; encoder: ${trace.encoder.name}`,
    `Masked (target and units containing its reference): ${trace.masked.join(', ') || 'none (target not found in the index)'}`,
    `Source uncertainty ū: API ${u.api == null ? '—' : f(u.api)}, context ${u.context == null ? '—' : f(u.context)}, similar code ${u.similar == null ? '—' : f(u.similar)}`,
    ...leakLines(trace),
    '',
    'Steps:',
    ...trace.steps.map((s) => `  ${s.index + 1}. ${s.text}  [w: A ${f(s.weights.api)} X ${f(s.weights.context)} S ${f(s.weights.similar)}]`),
    '',
    `Fused evidence (top ${trace.fused.length}):`,
    ...trace.fused.map(
      (e, i) =>
        `  ${String(i + 1).padStart(2)}. [${e.source}] ${e.title} (${e.file}:${e.startLine})  r ${f(e.r)}  w ${f(e.w)}  u ${f(e.u)}  γ ${f(e.gamma)}  via ${e.finders.join('+')}`,
    ),
    '',
    'Dropped:',
    ...trace.evidence.filter((e) => !e.kept).map((e) => `  [${e.source} s${e.step + 1}] ${e.title}  r ${f(e.r)}  u ${f(e.u)}  γ ${f(e.gamma)}  — ${e.reason}`),
  ];
  return lines;
}

export const RETRIEVE_COMMANDS: Record<string, Command> = {
  retrieve: {
    ...RETRIEVE_SPECS.retrieve,
    async run({ values }, io) {
      const manifest = manifestOf(values);
      if (!values.id) throw new UsageError('--id ID is required');
      const task = findTask(manifest, values.id as string);
      const ws = await openWorkspace(values, io);
      try {
        const repos = await ensureIndexed(ws, [task], io, values.quiet === true);
        const trace = await retrieveForTask({ store: ws.store, encoder: ws.encoder, repoId: repos.get(task.repoPath)!, task, config: configOf(values) });
        return { text: traceLines(trace), json: { ok: true, command: 'retrieve', manifestHash: manifest.hash, trace, encoderNotice: ws.notice } };
      } finally {
        await ws.close();
      }
    },
  },
  'eval-api': {
    ...RETRIEVE_SPECS['eval-api'],
    async run({ values }, io) {
      const protocol = values.protocol as ApiProtocol;
      if (!API_PROTOCOLS.includes(protocol)) throw new UsageError(`--protocol must be one of ${API_PROTOCOLS.join(', ')} (got ${protocol})`);
      const scope = values.scope as PredictionScope;
      if (!PREDICTION_SCOPES.includes(scope)) throw new UsageError(`--scope must be one of ${PREDICTION_SCOPES.join(', ')} (got ${scope})`);
      const manifest = manifestOf(values);
      const wanted = values.ids ? new Set((values.ids as string).split(',').map((s) => s.trim())) : null;
      const tasks = manifest.tasks.filter((t) => !wanted || wanted.has(t.id));
      if (!tasks.length) throw new UsageError('no tasks selected');
      const usable = tasks.filter((t) => t.reference || t.ground_truth_apis?.length);
      const left = tasks.length - usable.length;
      if (left)
        io.err(
          `note: ${left} tasks have neither a reference solution nor ground_truth_apis and are left out (${tasks
            .filter((t) => !usable.includes(t))
            .slice(0, 3)
            .map((t) => t.id)
            .join(', ')}…)`,
        );
      const config = configOf(values);
      const ws = await openWorkspace(values, io);
      try {
        const quiet = values.quiet === true;
        const repos = await ensureIndexed(ws, usable, io, quiet);
        const viewPaths = [...new Set(usable.map((t) => t.taskViewPath).filter((p): p is string => !!p))];
        const views = await ensureIndexedPaths(ws, viewPaths, io, true);
        if (viewPaths.length && !quiet) io.err(`[eval-api] ${viewPaths.length} task views indexed`);
        const run = await evaluateManifestApis({
          store: ws.store,
          encoder: ws.encoder,
          tasks: usable,
          repos,
          views,
          config,
          onProgress: quiet ? undefined : (done, n) => done % 20 === 0 && io.err(`[eval-api] ${done}/${n}`),
        });
        const head = run[protocol][scope];
        const f = (x: number) => fixed(x, 3);
        const line = (name: string, r: ProtocolReport) => {
          const s = r.summary;
          return (
            `  ${name.padEnd(10)} ${s.matching.padEnd(6)} over ${s.tasks} tasks: P ${f(s.precision)} R ${f(s.recall)} F1 ${f(s.f1)} exact ${f(s.exactMatch)}; count over ${s.count.over} / exact ${s.count.exact} / under ${s.count.under}` +
            `; strict F1 ${f(s.strict.f1)}, bare F1 ${f(s.bare.f1)}; held-out F1 ${f(s.heldOut.f1)} (${s.heldOut.tasks} tasks)`
          );
        };
        const text = [
          `Manifest ${manifest.file} (${manifest.hash.slice(0, 12)}), ${usable.length} tasks, API refinement ${config.fusion.refineApi ? 'on' : 'off'}, encoder ${ws.encoder.name}`,
          ...API_PROTOCOLS.flatMap((p) => [
            `Protocol ${p}${p === protocol ? ' (headline)' : ''}: pool = ${PROTOCOL_RULES[p].pool}; ${PROTOCOL_RULES[p].matching} matching; empty truths ${PROTOCOL_RULES[p].emptyTruths}; ${run[p].kept.summary.tasksWithTruth} of ${usable.length} tasks have a non-empty truth`,
            ...PREDICTION_SCOPES.map((sc) => line(sc, run[p][sc])),
            ...(Object.entries(run[p][scope].benchmarks).length > 1
              ? [
                  `  per benchmark (${scope}): ${Object.entries(run[p][scope].benchmarks)
                    .map(([b, s]) => `${b} F1 ${f(s.f1)} exact ${f(s.exactMatch)} (${s.tasks})`)
                    .join('; ')}; mean F1 ${f(run[p][scope].meanOverBenchmarks!.f1)}`,
                ]
              : []),
            (() => {
              const u = run[p][scope].summary.uncertainty;
              return `  uncertainty: ${u.items} held-out items (${u.wrongItems} false positives, ${u.heldOutTasks} tasks): AUROC ${f(u.auroc)}, AUPRC ${f(u.auprc)}, ECE raw ${f(u.eceRaw)}, after Platt ${f(u.eceCalibrated)}${u.degenerate ? ` — degenerate: ${u.degenerate}` : ''}`;
            })(),
          ]),
        ];
        return {
          text,
          json: {
            ok: true,
            command: 'eval-api',
            manifestHash: manifest.hash,
            refine: config.fusion.refineApi,
            encoder: ws.encoder.name,
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
        await ws.close();
      }
    },
  },
};
