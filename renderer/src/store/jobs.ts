// The jobs list, kept current by `job` events, and what a job's new state means beyond it: a finished index job
// lists the repositories again, a finished run drops its cached report models and lists the runs again, a failed
// job (other than a task's, which its view shows) is a toast. Pauses and cancels show at once.

import type { JobInfo } from '../api/contract.ts';
import { asCallError, type AppState, type StoreContext } from './state.ts';

const FINISHED = new Set(['done', 'cancelled', 'failed']);

export interface Jobs {
  /** Puts a job's new state in the list and acts on it, as of a job the list did not know. */
  applyNew(job: JobInfo): void;
  /** The same against the state the list has for it (an event, a listing, an answer to an action). */
  applyJob(job: JobInfo): void;
  actions: Pick<AppState, 'refreshJobs' | 'jobAction'>;
}

/** The jobs part of the store; `onTaskJob` hears of every job's new state (task-runs.ts). */
export function jobs({ api, set, get }: StoreContext, onTaskJob: (job: JobInfo) => void): Jobs {
  /** Pauses and cancels asked for and not yet seen through: shown at once, whatever event comes first. */
  const requested = new Map<string, 'paused' | 'cancelled'>();

  const upsertJob = (incoming: JobInfo) => {
    let job = incoming;
    const asked = requested.get(job.id);
    if (asked && job.state === 'running' && !job.stopping) job = { ...job, stopping: asked };
    if (job.state !== 'running') requested.delete(job.id);
    const jobs = get().jobs;
    const i = jobs.findIndex((j) => j.id === job.id);
    const next = i >= 0 ? jobs.map((j, k) => (k === i ? job : j)) : [job, ...jobs];
    next.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
    set({ jobs: next });
  };

  /** What a job's new state means beyond the jobs list; `prev` is the state the list had (none: a job just known). */
  const applyJob = (job: JobInfo, prev: JobInfo | undefined) => {
    upsertJob(job);
    const finishedNow = FINISHED.has(job.state) && (!prev || !FINISHED.has(prev.state));
    onTaskJob(job);
    if (!finishedNow) return;
    if (job.kind === 'index') void get().refreshRepos();
    if (job.kind === 'experiment' || job.kind === 'task') {
      const runId = job.result?.runId;
      if (runId) {
        // Cached models of this run are stale now.
        const models = Object.fromEntries(Object.entries(get().models).filter(([k]) => !k.split('+').includes(runId)));
        set({ models });
      }
      void get().refreshRuns();
    }
    if (job.state === 'failed' && job.kind !== 'task') get().notify('error', `${job.title}: ${job.error ?? 'failed'}`);
  };

  const applyListed = (job: JobInfo) =>
    applyJob(
      job,
      get().jobs.find((j) => j.id === job.id),
    );

  return {
    applyNew: (job) => applyJob(job, undefined),
    applyJob: applyListed,
    actions: {
      async refreshJobs() {
        try {
          const jobs = await api.call('job.list', {});
          for (const job of jobs) applyListed(job);
        } catch (err) {
          get().notify('warning', `could not list jobs: ${asCallError(err).message}`);
        }
      },

      async jobAction(jobId, action) {
        const known = get().jobs.find((j) => j.id === jobId);
        if (action !== 'resume' && known?.state === 'running') {
          // Acknowledged at once ("pausing…" / "cancelling…"); the engine's event confirms it, its final state follows.
          requested.set(jobId, action === 'pause' ? 'paused' : 'cancelled');
          upsertJob(known);
        }
        try {
          applyListed(await api.call(action === 'cancel' ? 'job.cancel' : action === 'pause' ? 'job.pause' : 'job.resume', { jobId }));
        } catch (err) {
          if (requested.delete(jobId)) {
            const now = get().jobs.find((j) => j.id === jobId);
            if (now) upsertJob({ ...now, stopping: null });
          }
          get().notify('error', `could not ${action} the job: ${asCallError(err).message}`);
        }
      },
    },
  };
}
