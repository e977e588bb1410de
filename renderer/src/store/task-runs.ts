// Interactive task runs and stored results: the current and the previous run of the Task and Ablation views (their
// results fetched when the job is done), a stored run restored after a reload, and one stored result opened from an
// experiment's task table (a drill-down).

import type { JobInfo, RunListItem } from '../api/contract.ts';
import { ALL_SOURCES, asCallError, failed, idle, modelKey, ready, type AppState, type DrillDown, type StoreContext, type TaskRunRecord } from './state.ts';

/** The task run of `jobId` (the current or the previous one) with `patch` applied. */
function updateRecord({ set, get }: StoreContext, jobId: string, patch: Partial<TaskRunRecord>): void {
  const { current, previous } = get().taskRun;
  if (current?.jobId === jobId) set({ taskRun: { current: { ...current, ...patch }, previous } });
  else if (previous?.jobId === jobId) set({ taskRun: { current, previous: { ...previous, ...patch } } });
}

/** The runs list item of `runId` (listing the runs again when it is not known yet); null when there is none. */
async function runItem({ get }: StoreContext, runId: string): Promise<RunListItem | null> {
  const known = get().runs.data?.find((r) => r.id === runId);
  if (known) return known;
  await get().refreshRuns();
  return get().runs.data?.find((r) => r.id === runId) ?? null;
}

/** The left panel of the Task view shows `taskId` of the run's manifest (not whatever manifest was loaded). */
async function showTaskOf(ctx: StoreContext, runId: string, taskId: string): Promise<void> {
  const { set, get } = ctx;
  set({ selectedTaskId: taskId });
  const item = await runItem(ctx, runId);
  if (item?.manifestFile && item.manifestFile !== get().manifest) await get().loadTasks(item.manifestFile);
  if (get().selectedTaskId !== taskId && get().tasks.data?.tasks.some((t) => t.id === taskId)) set({ selectedTaskId: taskId });
}

/** Fetches the results of the task run of `jobId` (stored as run `runId`); `fetching` holds the jobs under way. */
async function fetchTaskResults(ctx: StoreContext, fetching: Set<string>, jobId: string, runId: string): Promise<void> {
  const { api, set, get } = ctx;
  const updateCurrent = (patch: Partial<TaskRunRecord>) => updateRecord(ctx, jobId, patch);
  if (fetching.has(jobId)) return;
  fetching.add(jobId);
  updateCurrent({ status: 'loading', runId });
  try {
    const rec = get().taskRun.current?.jobId === jobId ? get().taskRun.current : get().taskRun.previous;
    let pairs: { taskId: string; condition: string }[] = [];
    try {
      const model = await api.call('experiment.model', { runIds: [runId] });
      pairs = model.tasks.filter((t) => t.runId === runId && !t.error).map((t) => ({ taskId: t.taskId, condition: t.condition }));
      if (!get().models[modelKey([runId])]) set({ models: { ...get().models, [modelKey([runId])]: ready(model) } });
      const errors = model.tasks.filter((t) => t.runId === runId && t.error);
      if (!pairs.length && errors.length) throw new Error(errors.map((t) => `${t.condition}: ${t.error}`).join('; '));
    } catch (err) {
      if (!rec?.taskId) throw err;
      pairs = rec.methods.map((condition) => ({ taskId: rec.taskId!, condition }));
    }
    const results = await Promise.all(pairs.map((p) => api.call('experiment.result', { runId, taskId: p.taskId, condition: p.condition })));
    updateCurrent({ status: 'ready', results, error: null });
  } catch (err) {
    updateCurrent({ status: 'failed', error: asCallError(err).message });
  } finally {
    fetching.delete(jobId);
  }
}

/** Opens one stored result (a drill-down) in the Task view, with its task in the left panel. */
async function openResult(ctx: StoreContext, runId: string, taskId: string, condition: string): Promise<void> {
  const { api, set, get } = ctx;
  set({ drill: { runId, taskId, condition, result: { status: 'loading', data: null, error: null } }, view: 'task', taskSource: 'manifest' });
  void showTaskOf(ctx, runId, taskId);
  // Only while the drill-down shown is still this one.
  const settle = (result: DrillDown['result']) => {
    const d = get().drill;
    if (d && d.runId === runId && d.taskId === taskId && d.condition === condition) set({ drill: { ...d, result } });
  };
  try {
    settle(ready(await api.call('experiment.result', { runId, taskId, condition })));
  } catch (err) {
    settle(failed(idle(), asCallError(err)));
  }
}

/** A task run as it starts: nothing loaded yet. */
const newRecord = (
  rec: Pick<TaskRunRecord, 'jobId' | 'runId' | 'label' | 'taskId' | 'manifest' | 'custom' | 'methods' | 'sources' | 'status'>,
): TaskRunRecord => ({
  ...rec,
  error: null,
  results: [],
  startedAt: new Date().toISOString(),
});

type Actions = Pick<AppState, 'restoreRun' | 'runTask' | 'openResult' | 'closeDrill'>;

export interface TaskRuns {
  /** A job's new state, for the task run it belongs to (if any). */
  onJob(job: JobInfo): void;
  actions: Actions;
}

/** The task-runs part of the store; `jobKnown` acts on a job the list had before `task.run` answered (jobs.ts). */
export function taskRuns(ctx: StoreContext, jobKnown: (job: JobInfo) => void): TaskRuns {
  /** Task-run jobs whose results are being fetched (a job event can arrive twice). */
  const fetching = new Set<string>();
  const { api, set, get } = ctx;
  const updateCurrent = (jobId: string, patch: Partial<TaskRunRecord>) => updateRecord(ctx, jobId, patch);

  const onJob = (job: JobInfo) => {
    const { current, previous } = get().taskRun;
    const rec = current?.jobId === job.id ? current : previous?.jobId === job.id ? previous : null;
    if (!rec || !(rec.status === 'running' || (rec.status === 'failed' && job.state === 'done' && !rec.results.length))) return;
    if (job.state === 'done' && job.result?.runId) void fetchTaskResults(ctx, fetching, job.id, job.result.runId);
    else if (job.state === 'done') updateCurrent(job.id, { status: 'failed', error: 'the task finished without a run id' });
    else if (job.state === 'failed') updateCurrent(job.id, { status: 'failed', error: job.error ?? 'the task failed' });
    else if (job.state === 'cancelled') updateCurrent(job.id, { status: 'cancelled', error: null });
  };

  const actions: Actions = {
    async restoreRun(runId) {
      const jobId = `stored:${runId}`;
      const rec = newRecord({
        jobId,
        runId,
        label: runId,
        taskId: null,
        manifest: null,
        custom: null,
        methods: [],
        sources: { ...ALL_SOURCES },
        status: 'loading',
      });
      // Shown (and so in the route) at once; what the runs list says about it fills in when it arrives.
      set({ taskRun: { current: rec, previous: get().taskRun.current }, drill: null });
      const item = await runItem(ctx, runId);
      if (!item) {
        updateCurrent(jobId, { status: 'failed', error: `no stored run ${runId} in this workspace (it may have been deleted); run the task again` });
        return;
      }
      updateCurrent(jobId, { label: item.subject || item.label, manifest: item.manifestFile, methods: item.conditions, startedAt: item.createdAt });
      await fetchTaskResults(ctx, fetching, jobId, runId);
      const taskId = get().taskRun.current?.jobId === jobId ? get().taskRun.current?.results[0]?.taskId : undefined;
      if (taskId) {
        updateCurrent(jobId, { taskId });
        await showTaskOf(ctx, runId, taskId);
      }
    },

    async runTask(req) {
      const methods = req.methods ?? get().selectedMethods;
      const manifest = get().manifest;
      const sources = req.sources ?? ALL_SOURCES;
      const allOn = sources.api && sources.context && sources.similar;
      const input = req.custom
        ? { custom: req.custom, methods, ...(allOn ? {} : { sources }) }
        : { manifest: manifest ?? '', taskId: req.taskId ?? '', methods, ...(allOn ? {} : { sources }) };
      const { jobId } = await api.call('task.run', input);
      const rec = newRecord({
        jobId,
        runId: null,
        label: req.custom ? req.custom.qualname : (req.taskId ?? ''),
        taskId: req.custom ? null : (req.taskId ?? null),
        manifest: req.custom ? null : manifest,
        custom: req.custom ?? null,
        methods,
        sources: { ...sources },
        status: 'running',
      });
      const { current } = get().taskRun;
      set({ taskRun: { current: rec, previous: current && current.status === 'ready' ? current : get().taskRun.previous }, drill: null });
      // The job may have finished (and its event arrived) before this call answered.
      const known = get().jobs.find((j) => j.id === jobId);
      if (known) jobKnown(known);
      return jobId;
    },

    openResult: (runId, taskId, condition) => openResult(ctx, runId, taskId, condition),
    closeDrill: () => set({ drill: null }),
  };
  return { onJob, actions };
}
