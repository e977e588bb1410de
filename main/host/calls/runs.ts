// Experiment runs as jobs: an app request planned through ops/run.ts (what it leaves out from Settings), the run's
// context over the workspace (progress on the job, indexing as jobs), and the job that starts a run or continues a
// stored one (job.resume, experiment.resume). Used by task.run, experiment.* and the demo.

import type { JobInfo, JobProgress, ParsedInput } from '../../../contract/index.ts';
import { resumableRun } from '../../experiment/orchestrate.ts';
import { parseQueueUrl, type QueueAddress } from '../../experiment/queue/url.ts';
import type { Progress } from '../../experiment/runner.ts';
import type { LlmBackend } from '../../generate/types.ts';
import type { BackendSpec } from '../../model/backend-spec.ts';
import type { JobContext } from '../jobs.ts';
import { backendSpecOfChoice, normalizedSpec } from '../ops/backend.ts';
import { ensureIndexed } from '../ops/indexing.ts';
import { planRun, resumeRun, startRun, type PlanEnv, type RunContext, type RunPlan } from '../ops/run.ts';
import { pairText } from '../ops/progress.ts';
import { packageRoot } from '../paths.ts';
import type { Workspace } from '../workspace.ts';
import { applyOverrides } from './conditions.ts';
import { indexRoot } from './indexing.ts';

/** The backend an app request runs with: a published sample set, the request's own choice, or the Settings one. */
export function appBackendSpec(ws: Workspace, input: Pick<ParsedInput<'experiment.start'>, 'backend' | 'samples'>): BackendSpec {
  const spec: BackendSpec = input.samples ? { kind: 'imported', samplesFile: input.samples } : backendSpecOfChoice(input.backend ?? ws.settings.backend);
  return normalizedSpec(spec, ws.dataDir);
}

/** What an app request leaves out comes from Settings (the sandbox, the pairs at once, the pipeline constants). */
export function appPlanEnv(ws: Workspace, sources?: Parameters<typeof applyOverrides>[2]): PlanEnv {
  return {
    allow: ws.allowedRoots,
    defaults: { sandbox: ws.settings.sandbox, parallel: ws.settings.parallel },
    adjust: (c) => applyOverrides(ws, c, sources),
  };
}

/** An app request planned as ops/run.ts plans the CLI's (the same request stores the same record). */
export function planAppRun(ws: Workspace, input: ParsedInput<'experiment.start'>, sources?: Parameters<typeof applyOverrides>[2]): RunPlan {
  const { backend: _choice, samples: _samples, ...rest } = input;
  return planRun({ ...rest, backend: appBackendSpec(ws, input) }, appPlanEnv(ws, sources));
}

/** Builds the backend once and lets it go, so that a missing key fails the call now, not later in the job. */
export function checkBackend(ws: Workspace, spec: BackendSpec): void {
  void ws.backend(spec).dispose?.();
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
  detail: RunContext['detail'],
  queue: QueueAddress | undefined,
  onRun: (id: string) => void,
): RunContext {
  // A queued run reports its workers and waiting jobs on each poll, a finished pair without them: the job keeps
  // the latest of each (and of the last pair's line), so the card does not lose them between reports.
  let latest: Progress | null = null;
  let message: string | undefined;
  let warning: string | undefined;
  let workers: Progress['workers'];
  let queued: number | undefined;
  const send = (p: Progress) => {
    const out: JobProgress = { phase: 'run', done: p.done, total: p.total, etaMs: p.etaMs, spentUsd: p.spentUsd };
    // Why this queue is unsafe with this sandbox stays on the card for the whole run, before the latest pair's line.
    if (message || warning) out.message = [warning, message].filter(Boolean).join(' · ');
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
    ensureIndexed: (tasks) =>
      ensureIndexed(
        tasks.map((t) => t.repoPath),
        (root) => indexRoot(ws, root, job, 'index '),
      ),
    ...(detail ? { detail } : {}),
    ...(queue
      ? {
          queue,
          onQueued: (info: { jobs: number; warning?: string }) => {
            workers ??= [];
            queued ??= info.jobs;
            warning = info.warning;
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
      if (p.last) message = pairText(p.last);
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

/** An experiment as a job: starts the planned run, or (job.resume, experiment.resume) continues the stored one. */
export function startExperimentJob(
  ws: Workspace,
  jobKind: 'task' | 'experiment',
  title: string,
  plan: (RunPlan & { detail?: 'full' }) | { resume: string },
): JobInfo {
  let runId: string | null = 'resume' in plan ? plan.resume : null;
  const fresh = 'resume' in plan ? null : plan;
  return ws.jobs.start(
    jobKind,
    title,
    async (job) => {
      const queue = settingsQueue(ws);
      // A resume reads the stored run once: its request's backend here, and the same record for the run itself.
      const stored = runId !== null ? resumableRun(ws.store, runId) : null;
      const backend = ws.backend(stored ? stored.request.backend : fresh!.request.backend);
      const ctx = context(ws, job, backend, fresh?.detail, queue, (id) => {
        runId = id;
      });
      try {
        const outcome = stored ? await resumeRun(ctx, stored) : await startRun(ctx, fresh!);
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
