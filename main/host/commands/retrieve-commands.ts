// Commands over task manifests that need retrieval: retrieve (one task) and eval-api (RQ4).

import type { ParseArgsConfig } from 'node:util';
import { Store } from '../../store/store.ts';
import { runIndex } from '../../index/indexer.ts';
import { openConfiguredEncoder, type EncoderPreference } from '../../embed/select.ts';
import type { Encoder } from '../../embed/encoder.ts';
import { findTask, readManifest, type Task } from '../../experiment/manifest.ts';
import { makeConfig, type PipelineConfig } from '../../pipeline/config.ts';
import { retrieveForTask } from '../../retrieve/engine.ts';
import { predictedApis, referenceCalls, resolveTruth, scoreTask, summarise, type TaskApiResult } from '../../retrieve/api-eval.ts';
import { VectorIndexCache } from '../../retrieve/vector-index.ts';
import type { RetrievalTrace } from '../../retrieve/types.ts';
import { defaultModelsDir } from '../paths.ts';
import { dbPathOf, UsageError, type Command, type Io } from '../cli-kit.ts';
import { ENCODER_OPTS, progressPrinter } from './index-commands.ts';

const MANIFEST_OPTS = {
  ...ENCODER_OPTS,
  manifest: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export interface Workspace {
  store: Store;
  encoder: Encoder;
  notice: string | null;
  close(): Promise<void>;
}

/** Opens the database and the configured encoder (both closed by `close`). */
export async function openWorkspace(values: Record<string, unknown>, io: Io): Promise<Workspace> {
  const store = Store.open(dbPathOf(values), { rebuild: values['rebuild-db'] === true });
  try {
    const { encoder, notice } = await openConfiguredEncoder({
      prefer: (values.encoder as EncoderPreference | undefined) ?? 'auto',
      modelsDir: (values.models as string | undefined) ?? defaultModelsDir(),
    });
    if (notice && !values.quiet) io.err(`note: ${notice}`);
    return {
      store,
      encoder,
      notice,
      async close() {
        await encoder.dispose();
        store.close();
      },
    };
  } catch (err) {
    store.close();
    throw err;
  }
}

/** Indexes (or incrementally refreshes) each distinct repository of the tasks once; returns repo ids by path. */
export async function ensureIndexed(ws: Workspace, tasks: Task[], io: Io, quiet: boolean): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const path of new Set(tasks.map((t) => t.repoPath))) {
    const stats = await runIndex({ store: ws.store, root: path, encoder: ws.encoder }, quiet ? undefined : progressPrinter(io, false));
    if (stats.status !== 'completed') throw new Error(`indexing ${path} did not complete (${stats.status})`);
    ids.set(path, stats.repoId);
  }
  return ids;
}

function manifestOf(values: Record<string, unknown>) {
  const file = values.manifest as string | undefined;
  if (!file) throw new UsageError('--manifest FILE is required');
  return readManifest(file);
}

function configOf(values: Record<string, unknown>): PipelineConfig {
  return makeConfig({ fusion: { refineApi: values['no-refine'] !== true } });
}

export function traceLines(trace: RetrievalTrace): string[] {
  const f = (x: number) => x.toFixed(3);
  const u = trace.sourceUncertainty;
  const lines = [
    `Task ${trace.taskId} — decomposition: ${trace.decomposition}; encoder: ${trace.encoder.name}`,
    `Masked (target and units containing its reference): ${trace.masked.join(', ') || 'none (target not found in the index)'}`,
    `Source uncertainty ū: API ${u.api == null ? '—' : f(u.api)}, context ${u.context == null ? '—' : f(u.context)}, similar code ${u.similar == null ? '—' : f(u.similar)}`,
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
    ...trace.evidence
      .filter((e) => !e.kept)
      .map((e) => `  [${e.source} s${e.step + 1}] ${e.title}  r ${f(e.r)}  u ${f(e.u)}  γ ${f(e.gamma)}  — ${e.reason}`),
  ];
  return lines;
}

export const RETRIEVE_COMMANDS: Record<string, Command> = {
  retrieve: {
    summary: 'retrieve, score and fuse the evidence for one task of a manifest',
    usage: 'opencoder retrieve --manifest FILE --id ID [--no-refine] [--encoder …]',
    options: { ...MANIFEST_OPTS, id: { type: 'string' }, 'no-refine': { type: 'boolean', default: false } },
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
    summary: 'API-retrieval quality (precision / recall / F1, count reliability, uncertainty AUROC / ECE) over a manifest',
    usage: 'opencoder eval-api --manifest FILE [--ids A,B,…] [--no-refine] [--encoder …]',
    options: { ...MANIFEST_OPTS, ids: { type: 'string' }, 'no-refine': { type: 'boolean', default: false } },
    async run({ values }, io) {
      const manifest = manifestOf(values);
      const wanted = values.ids ? new Set((values.ids as string).split(',').map((s) => s.trim())) : null;
      const tasks = manifest.tasks.filter((t) => !wanted || wanted.has(t.id));
      if (!tasks.length) throw new UsageError('no tasks selected');
      const noRef = tasks.filter((t) => !t.reference).map((t) => t.id);
      if (noRef.length) io.err(`note: ${noRef.length} tasks have no reference solution and are left out (${noRef.slice(0, 3).join(', ')}…)`);
      const config = configOf(values);
      const ws = await openWorkspace(values, io);
      try {
        const repos = await ensureIndexed(ws, tasks, io, values.quiet === true);
        const cache = new VectorIndexCache();
        const results: TaskApiResult[] = [];
        const fusedResults: TaskApiResult[] = [];
        let done = 0;
        for (const task of tasks.filter((t) => t.reference)) {
          const repoId = repos.get(task.repoPath)!;
          const trace = await retrieveForTask({ store: ws.store, encoder: ws.encoder, repoId, task, config, cache, persist: false });
          const moduleRow = ws.store.db.prepare('SELECT module FROM files WHERE repo_id = ? AND path = ?').get(repoId, task.file) as { module: string } | undefined;
          const truth = resolveTruth(ws.store, repoId, await referenceCalls(task.reference!), { module: moduleRow?.module ?? null, qualname: task.qualname });
          results.push(scoreTask(task.id, truth, predictedApis(trace, 'retrieved')));
          fusedResults.push(scoreTask(task.id, truth, predictedApis(trace, 'fused')));
          if (!values.quiet && ++done % 20 === 0) io.err(`[eval-api] ${done}/${tasks.length}`);
        }
        const s = summarise(results);
        const sf = summarise(fusedResults);
        const f = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toFixed(3));
        const text = [
          `Manifest ${manifest.file} (${manifest.hash.slice(0, 12)}), ${s.tasks} tasks, API refinement ${config.fusion.refineApi ? 'on' : 'off'}, encoder ${ws.encoder.name}`,
          `Tasks whose reference calls repository APIs: ${s.tasksWithTruth}`,
          `API evidence after refinement (all steps): macro precision ${f(s.precision)}, recall ${f(s.recall)}, F1 ${f(s.f1)}, exact-set match ${f(s.exactMatch)}; count over ${s.count.over}, exact ${s.count.exact}, under ${s.count.under}`,
          `API items in the fused top ${config.fusion.topK}: macro precision ${f(sf.precision)}, recall ${f(sf.recall)}, F1 ${f(sf.f1)}, exact-set match ${f(sf.exactMatch)}; count over ${sf.count.over}, exact ${sf.count.exact}, under ${sf.count.under}`,
          `Uncertainty on the held-out half (${s.uncertainty.heldOutTasks} tasks, ${s.uncertainty.items} items, ${s.uncertainty.wrongItems} wrong): ` +
            `AUROC ${f(s.uncertainty.auroc)}, AUPRC ${f(s.uncertainty.auprc)}, ECE raw ${f(s.uncertainty.eceRaw)}, ECE after Platt scaling (fit on the other half) ${f(s.uncertainty.eceCalibrated)} (10 equal-width bins)`,
        ];
        return {
          text,
          json: { ok: true, command: 'eval-api', manifestHash: manifest.hash, refine: config.fusion.refineApi, summary: s, fusedSummary: sf, tasks: results, fusedTasks: fusedResults },
        };
      } finally {
        await ws.close();
      }
    },
  },
};
