// Experiment runs as jobs: the backend a run uses (the Settings backend as a BackendSpec, or the imported
// backend over a sample set), the experiment context over the workspace, and the job that starts a run or
// continues a stored one (job.resume, experiment.resume). Used by task.run, experiment.* and the demo.

import type { JobInfo, JobProgress, Settings } from '../../../contract/index.ts';
import type { Manifest, Task } from '../../benchmarks/manifest.ts';
import { resumableRun, resumeExperiment, startExperiment, type ExperimentContext, type StoredBackend } from '../../experiment/orchestrate.ts';
import { parseQueueUrl, type QueueAddress } from '../../experiment/queue/url.ts';
import type { Progress } from '../../experiment/runner.ts';
import { backendSpecOfRecord, type BackendSpec } from '../../generate/backends.ts';
import type { LlmBackend } from '../../generate/types.ts';
import type { Condition } from '../../pipeline/methods.ts';
import type { JobContext } from '../jobs.ts';
import { packageRoot } from '../paths.ts';
import type { Workspace } from '../workspace.ts';
import { indexRoot } from './indexing.ts';

/** A run's backend: the spec it is built from, and the non-secret record the run keeps (and a resume reads back). */
export interface RunBackend {
  spec: BackendSpec;
  stored: StoredBackend;
}

/**
 * The Settings backend: no model, OpenAI or an OpenAI-compatible server (a base URL: a local server the model
 * picker found), Gemini, or a GGUF file run in process (its path; a bare file name is looked up in the workspace's
 * models folder when the backend is built).
 */
export function settingsBackend(b: Settings['backend']): RunBackend {
  const model = b.model?.trim() || undefined;
  const spec: BackendSpec =
    b.kind === 'offline'
      ? { kind: 'offline' }
      : b.kind === 'llama-cpp'
        ? { kind: 'llama-cpp', model: model ?? '' }
        : { kind: b.kind, ...(model ? { model } : {}), ...(b.baseURL ? { baseURL: b.baseURL } : {}) };
  return {
    spec,
    stored: {
      kind: b.kind,
      model: model ?? null,
      baseURL: b.kind === 'llama-cpp' ? null : (b.baseURL ?? null),
      decompose: b.kind === 'offline' ? 'fallback' : 'llm',
      extra: {},
    },
  };
}

/** The Settings backend, or the imported backend over a sample set when an experiment names one. */
export function runBackendFor(ws: Workspace, input: { samples?: string | undefined }): RunBackend {
  if (!input.samples) return settingsBackend(ws.settings.backend);
  return {
    spec: { kind: 'imported', samplesFile: input.samples },
    stored: { kind: 'imported', model: null, baseURL: null, decompose: 'fallback', extra: { samples: input.samples } },
  };
}

export const OFFLINE_BACKEND: RunBackend = settingsBackend({ kind: 'offline' });

/** Builds the backend once and lets it go, so that a missing key fails the call now, not later in the job. */
export function checkBackend(ws: Workspace, spec: BackendSpec): void {
  void ws.backend(spec).dispose?.();
}

/** The backend a stored run froze. */
export function storedRunSpec(ws: Workspace, runId: string): BackendSpec {
  return backendSpecOfRecord(resumableRun(ws.store, runId).backend);
}

export interface NewRun {
  kind: 'run' | 'ablate' | 'ladder';
  manifest: Manifest;
  tasks: Task[];
  conditions: Condition[];
  backend: RunBackend;
  detail?: 'full';
}

function lastLine(last: NonNullable<Progress['last']>): string {
  const line = `${last.taskId} / ${last.condition}: ${last.ok ? (last.correct ? 'correct' : 'wrong') : `unscored: ${(last.error ?? '').slice(0, 200)}`}`;
  return last.worker ? `${line} (on ${last.worker})` : line;
}

/** The Settings queue, checked (a bad URL fails the job with parseQueueUrl's message); undefined: run in this process. */
function settingsQueue(ws: Workspace): QueueAddress | undefined {
  const text = ws.settings.queue?.trim();
  return text ? parseQueueUrl(text, ws.env) : undefined;
}

function context(
  ws: Workspace,
  job: JobContext,
  backend: LlmBackend,
  detail: ExperimentContext['detail'],
  queue: QueueAddress | undefined,
  onRun: (id: string) => void,
): ExperimentContext {
  // A queued run reports its workers and waiting jobs on each poll, a finished pair without them: the job keeps
  // the latest of each (and of the last pair's line), so the card does not lose them between reports.
  let latest: Progress | null = null;
  let message: string | undefined;
  let workers: Progress['workers'];
  let queued: number | undefined;
  const send = (p: Progress) => {
    const out: JobProgress = { phase: 'run', done: p.done, total: p.total, etaMs: p.etaMs, spentUsd: p.spentUsd };
    if (message) out.message = message;
    if (workers) out.workers = workers.map((w) => ({ name: w.name, active: w.active, done: w.done }));
    if (queued !== undefined) out.queued = queued;
    job.progress(out);
  };
  return {
    store: ws.store,
    encoder: ws.encoder,
    backend,
    prices: ws.prices(),
    packageRoot: packageRoot(),
    allow: ws.allowedRoots,
    ensureIndexed: async (tasks) => {
      const ids = new Map<string, number>();
      for (const repo of new Set(tasks.map((t) => t.repoPath))) ids.set(repo, await indexRoot(ws, repo, job, 'index '));
      return ids;
    },
    sandbox: { mode: ws.settings.sandbox },
    parallel: ws.settings.parallel,
    ...(detail ? { detail } : {}),
    ...(queue
      ? {
          queue,
          onQueued: (info: { jobs: number }) => {
            workers ??= [];
            queued ??= info.jobs;
            message = `queued ${info.jobs.toLocaleString('en-US')} pair${info.jobs === 1 ? '' : 's'} on ${queue.display}`;
            if (latest) send(latest);
          },
        }
      : {}),
    signal: job.signal,
    onStart: (run) => {
      onRun(run.id);
      job.setResult({ runId: run.id });
      ws.emit({ type: 'runs-changed' });
    },
    onProgress: (p: Progress) => {
      latest = p;
      if (p.last) message = lastLine(p.last);
      if (p.workers) workers = p.workers;
      if (p.queued !== undefined) queued = p.queued;
      send(p);
    },
  };
}

/**
 * A run stopped by an error before the runner finished it would read as running for as long as this process
 * lives: mark it cancelled so that it can be resumed.
 */
function markStopped(ws: Workspace, runId: string | null): void {
  if (!runId) return;
  try {
    if (ws.experiments.get(runId)?.status === 'running') ws.experiments.finish(runId, 'cancelled');
  } catch {
    /* the store may be what failed */
  }
}

/** An experiment as a job: starts the run, or (job.resume, experiment.resume) continues the stored one. */
export function startExperimentJob(ws: Workspace, jobKind: 'task' | 'experiment', title: string, plan: NewRun | { resume: string }): JobInfo {
  let runId: string | null = 'resume' in plan ? plan.resume : null;
  const fresh = 'resume' in plan ? null : plan;
  return ws.jobs.start(
    jobKind,
    title,
    async (job) => {
      const queue = settingsQueue(ws);
      const backend = ws.backend(runId ? storedRunSpec(ws, runId) : fresh!.backend.spec);
      const ctx = context(ws, job, backend, fresh?.detail, queue, (id) => {
        runId = id;
      });
      try {
        const outcome =
          runId !== null
            ? await resumeExperiment(ctx, runId)
            : await startExperiment(ctx, {
                kind: fresh!.kind,
                manifest: fresh!.manifest,
                tasks: fresh!.tasks,
                conditions: fresh!.conditions,
                storedBackend: fresh!.backend.stored,
                options: { parallel: ws.settings.parallel, sandbox: ws.settings.sandbox, source: jobKind === 'task' ? 'desktop task' : 'desktop experiment' },
              });
        return { runId: outcome.runId };
      } finally {
        markStopped(ws, runId);
        await backend.dispose?.().catch(() => {});
        ws.emit({ type: 'runs-changed' });
      }
    },
    { resumable: true },
  );
}
