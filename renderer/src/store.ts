// The UI's state: what the engine told us (app info, settings, repositories, jobs, tasks, runs, report models)
// and what the analyst is looking at. Engine events update it; views only read it and call its actions.

import { createStore, type StoreApi } from 'zustand/vanilla';
import { useStore } from 'zustand';
import {
  EngineCallError,
  type AppInfo,
  type CallError,
  type CustomTask,
  type EngineApi,
  type EngineEvent,
  type JobInfo,
  type MethodInfo,
  type RepoSummary,
  type ReportModel,
  type RunListItem,
  type Settings,
  type Sources,
  type TaskResult,
  type TaskSummary,
} from './api/contract.ts';
import type { ConnectionInfo } from './api/transport.ts';

export type ViewId = 'repository' | 'task' | 'ablation' | 'experiment' | 'reports' | 'import' | 'settings';

export interface Loadable<T> {
  status: 'idle' | 'loading' | 'ready' | 'error';
  data: T | null;
  error: CallError | null;
}

const idle = <T>(): Loadable<T> => ({ status: 'idle', data: null, error: null });
const loading = <T>(prev: Loadable<T>): Loadable<T> => ({ status: 'loading', data: prev.data, error: null });
const ready = <T>(data: T): Loadable<T> => ({ status: 'ready', data, error: null });
const failed = <T>(prev: Loadable<T>, error: CallError): Loadable<T> => ({ status: 'error', data: prev.data, error });

export function asCallError(err: unknown): CallError {
  if (err instanceof EngineCallError) return err.error;
  if (err && typeof err === 'object' && 'code' in err && 'message' in err) return err as CallError;
  return { code: 'engine', message: err instanceof Error ? err.message : String(err) };
}

export const ALL_SOURCES: Sources = { api: true, context: true, similar: true };

/** One interactive run of one task (under one or more conditions), from `task.run` to its loaded results. */
export interface TaskRunRecord {
  jobId: string;
  runId: string | null;
  /** What the analyst sees as the task's name. */
  label: string;
  taskId: string | null;
  manifest: string | null;
  custom: CustomTask | null;
  methods: string[];
  sources: Sources;
  status: 'running' | 'loading' | 'ready' | 'failed' | 'cancelled';
  error: string | null;
  results: TaskResult[];
  startedAt: string;
}

/** A stored result opened from an experiment's task table. */
export interface DrillDown {
  runId: string;
  taskId: string;
  condition: string;
  result: Loadable<TaskResult>;
}

export interface Notice {
  id: number;
  level: 'info' | 'warning' | 'error';
  message: string;
  /** How many times this message came within NOTICE_MERGE_MS of the previous one (one toast, counted). */
  count: number;
  /** When it last came (ms since epoch). */
  at: number;
}

/** The same notice again within this long is counted on the shown toast instead of stacking another. */
export const NOTICE_MERGE_MS = 5_000;

/**
 * How long a toast stays, by level: information and warnings leave by themselves (a repeat, or the pointer resting
 * on one, keeps it for another full spell); an error stays until it is dismissed.
 */
export const NOTICE_TTL_MS: Record<Notice['level'], number | null> = { info: 6_000, warning: 8_000, error: null };

/** At most this many toasts at once: the oldest goes when another comes. */
export const NOTICE_MAX = 4;

export type TaskSource = 'manifest' | 'custom';

/** What the Experiment view's start form starts: methods compared, the 2³ source factorial, or the component ladder. */
export type ExperimentKind = 'run' | 'ablate' | 'ladder';
export const EXPERIMENT_KINDS: readonly ExperimentKind[] = ['run', 'ablate', 'ladder'];
/** The tab of the Experiment view's analysis. */
export type AnalysisTab = 'summary' | 'charts' | 'tasks';
export const ANALYSIS_TABS: readonly AnalysisTab[] = ['summary', 'charts', 'tasks'];
/** Which rows of the analysis's task table are shown. */
export type TaskRowsShown = 'all' | 'correct' | 'wrong' | 'error';
export const TASK_ROWS_SHOWN: readonly TaskRowsShown[] = ['all', 'correct', 'wrong', 'error'];

/** The Experiment view's start form as the analyst left it. */
export interface ExperimentForm {
  kind: ExperimentKind;
  methods: string[];
  /** The manifest field; null until the analyst edits it (it then shows the loaded or the sample manifest). */
  manifest: string | null;
  /** The task limit as typed (empty: all tasks). */
  limit: string;
  samples: string;
}

/** The Experiment view's analysis: the tab shown and the task table's filters. */
export interface AnalysisView {
  tab: AnalysisTab;
  filter: string;
  only: TaskRowsShown;
}

export const DEFAULT_EXPERIMENT_METHODS: readonly string[] = ['baseline-rag', 'rag-verify-repair', 'opencoder'];
export const DEFAULT_TASK_METHODS: readonly string[] = ['opencoder'];
export const DEFAULT_EXPERIMENT_FORM: ExperimentForm = { kind: 'run', methods: [...DEFAULT_EXPERIMENT_METHODS], manifest: null, limit: '', samples: '' };
export const DEFAULT_ANALYSIS: AnalysisView = { tab: 'charts', filter: '', only: 'all' };

/**
 * What the address bar restores after a reload (route.ts writes and reads it). Each field is null (or empty) when it
 * is not shown in the route's view or holds its default.
 */
export interface RouteState {
  view: ViewId;
  repo: number | null;
  /** Task and Ablation views: the loaded manifest; Experiment view: the start form's manifest field. */
  manifest: string | null;
  task: string | null;
  source: TaskSource;
  /** A shown result: the run; with `condition`, one stored result (a drill-down), else the run's results. */
  run: string | null;
  condition: string | null;
  /** Experiment and Reports views: the runs chosen (one, or two compared); a drill-down keeps them for the way back. */
  runs: string[];
  /** Ablation view: the run the current one is compared with. */
  prev: string | null;
  /** Task and Ablation views: the methods chosen; Experiment view: the start form's methods. */
  methods: string[] | null;
  /** Ablation view: the evidence sources switched on (null: all three). */
  sources: Sources | null;
  /** Experiment view: the start form's kind, task limit and published samples. */
  kind: ExperimentKind | null;
  limit: string | null;
  samples: string | null;
  /** Experiment view: the analysis tab and the task table's filters. */
  tab: AnalysisTab | null;
  filter: string | null;
  only: TaskRowsShown | null;
}

export type MethodsList = { methods: MethodInfo[]; ladder: MethodInfo[]; factorial: MethodInfo[] };
export type TaskList = { manifest: string; hash: string; tasks: TaskSummary[] };

export interface AppState {
  view: ViewId;
  connection: ConnectionInfo;
  info: Loadable<AppInfo>;
  settings: Loadable<Settings>;
  repos: Loadable<RepoSummary[]>;
  /** Newest first. */
  jobs: JobInfo[];
  methods: Loadable<MethodsList>;
  manifest: string | null;
  tasks: Loadable<TaskList>;
  selectedTaskId: string | null;
  /** Where the Task view's task comes from: a manifest, or the written-task form. */
  taskSource: TaskSource;
  /** The repository shown in the Repository view (null: the first). */
  selectedRepoId: number | null;
  /** Methods chosen for interactive runs (Task and Ablation views). */
  selectedMethods: string[];
  /** Evidence sources switched on for the next interactive run (Ablation view). */
  ablationSources: Sources;
  taskRun: { current: TaskRunRecord | null; previous: TaskRunRecord | null };
  drill: DrillDown | null;
  runs: Loadable<RunListItem[]>;
  /** Report models by `runIds.join('+')`. */
  models: Record<string, Loadable<ReportModel>>;
  /** Runs chosen in the Experiment view (one, or two to compare); the Reports view reports on the same. */
  selectedRuns: string[];
  experimentForm: ExperimentForm;
  analysis: AnalysisView;
  notices: Notice[];

  setView(view: ViewId): void;
  setTaskSource(source: TaskSource): void;
  selectRepo(id: number | null): void;
  /** Shows what a route names (after a reload, or back / forward): view, repository, manifest, task, result. */
  applyRoute(route: RouteState): void;
  /** Shows the results of a stored interactive run (a reload of a task result): its task in the left panel too. */
  restoreRun(runId: string): Promise<void>;
  init(): Promise<void>;
  handleEvent(e: EngineEvent): void;
  setConnection(info: ConnectionInfo, reopened: boolean): void;
  refreshInfo(): Promise<void>;
  refreshSettings(): Promise<void>;
  refreshRepos(): Promise<void>;
  refreshJobs(): Promise<void>;
  refreshRuns(): Promise<void>;
  refreshMethods(): Promise<void>;
  loadTasks(manifest: string): Promise<void>;
  selectTask(id: string | null): void;
  setSelectedMethods(ids: string[]): void;
  setAblationSources(s: Sources): void;
  runTask(req: { taskId?: string; custom?: CustomTask; methods?: string[]; sources?: Sources }): Promise<string>;
  loadModel(runIds: string[], force?: boolean): Promise<ReportModel | null>;
  selectRuns(ids: string[]): void;
  setExperimentForm(patch: Partial<ExperimentForm>): void;
  setAnalysis(patch: Partial<AnalysisView>): void;
  openResult(runId: string, taskId: string, condition: string): Promise<void>;
  closeDrill(): void;
  jobAction(jobId: string, action: 'cancel' | 'pause' | 'resume'): Promise<void>;
  notify(level: Notice['level'], message: string): void;
  dismissNotice(id: number): void;
  /** The pointer (or focus) rests on a toast: it stays; released, it has another full spell before it leaves. */
  holdNotice(id: number, held: boolean): void;
}

export type AppStore = StoreApi<AppState>;

/** The analysis a route names (its defaults where it names none). */
const analysisOf = (route: RouteState): AnalysisView => ({
  tab: route.tab ?? DEFAULT_ANALYSIS.tab,
  filter: route.filter ?? '',
  only: route.only ?? DEFAULT_ANALYSIS.only,
});

const FINISHED = new Set(['done', 'cancelled', 'failed']);
export const modelKey = (runIds: string[]) => runIds.join('+');

export function createAppStore(api: EngineApi, opts: { initialView?: ViewId } = {}): AppStore {
  let noticeId = 0;
  /** The pending expiry of each toast that leaves by itself (not while held). */
  const noticeTimers = new Map<number, ReturnType<typeof setTimeout>>();
  const held = new Set<number>();
  /** Task-run jobs whose results are being fetched (a job event can arrive twice). */
  const fetching = new Set<string>();
  /** Pauses and cancels asked for and not yet seen through: shown at once, whatever event comes first. */
  const requested = new Map<string, 'paused' | 'cancelled'>();

  return createStore<AppState>()((set, get) => {
    const guard = async <T>(key: 'info' | 'settings' | 'repos' | 'runs' | 'methods', fn: () => Promise<T>) => {
      set({ [key]: loading(get()[key] as Loadable<unknown>) } as Partial<AppState>);
      try {
        const data = await fn();
        set({ [key]: ready(data) } as Partial<AppState>);
      } catch (err) {
        set({ [key]: failed(get()[key] as Loadable<unknown>, asCallError(err)) } as Partial<AppState>);
      }
    };

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

    const updateCurrent = (jobId: string, patch: Partial<TaskRunRecord>) => {
      const { current, previous } = get().taskRun;
      if (current?.jobId === jobId) set({ taskRun: { current: { ...current, ...patch }, previous } });
      else if (previous?.jobId === jobId) set({ taskRun: { current, previous: { ...previous, ...patch } } });
    };

    const fetchTaskResults = async (jobId: string, runId: string) => {
      if (fetching.has(jobId)) return;
      fetching.add(jobId);
      updateCurrent(jobId, { status: 'loading', runId });
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
        updateCurrent(jobId, { status: 'ready', results, error: null });
      } catch (err) {
        updateCurrent(jobId, { status: 'failed', error: asCallError(err).message });
      } finally {
        fetching.delete(jobId);
      }
    };

    /** The runs list item of `runId` (listing the runs again when it is not known yet); null when there is none. */
    const runItem = async (runId: string): Promise<RunListItem | null> => {
      const known = get().runs.data?.find((r) => r.id === runId);
      if (known) return known;
      await get().refreshRuns();
      return get().runs.data?.find((r) => r.id === runId) ?? null;
    };

    /** The left panel of the Task view shows `taskId` of the run's manifest (not whatever manifest was loaded). */
    const showTaskOf = async (runId: string, taskId: string) => {
      set({ selectedTaskId: taskId });
      const item = await runItem(runId);
      if (item?.manifestFile && item.manifestFile !== get().manifest) await get().loadTasks(item.manifestFile);
      if (get().selectedTaskId !== taskId && get().tasks.data?.tasks.some((t) => t.id === taskId)) set({ selectedTaskId: taskId });
    };

    /** Forgets a toast's timer and hold (it is gone). */
    const forgetNotice = (id: number) => {
      const t = noticeTimers.get(id);
      if (t !== undefined) clearTimeout(t);
      noticeTimers.delete(id);
      held.delete(id);
    };

    /** (Re)starts the spell after which a toast of `level` leaves by itself; errors and held toasts stay. */
    const armNotice = (id: number, level: Notice['level']) => {
      const t = noticeTimers.get(id);
      if (t !== undefined) clearTimeout(t);
      noticeTimers.delete(id);
      const ttl = NOTICE_TTL_MS[level];
      if (ttl === null || held.has(id)) return;
      noticeTimers.set(
        id,
        setTimeout(() => {
          noticeTimers.delete(id);
          set({ notices: get().notices.filter((n) => n.id !== id) });
        }, ttl),
      );
    };

    /** What a job's new state means beyond the jobs list. */
    const applyJob = (job: JobInfo, prev: JobInfo | undefined) => {
      upsertJob(job);
      const finishedNow = FINISHED.has(job.state) && (!prev || !FINISHED.has(prev.state));
      const { current, previous } = get().taskRun;
      const rec = current?.jobId === job.id ? current : previous?.jobId === job.id ? previous : null;
      if (rec && (rec.status === 'running' || (rec.status === 'failed' && job.state === 'done' && !rec.results.length))) {
        if (job.state === 'done' && job.result?.runId) void fetchTaskResults(job.id, job.result.runId);
        else if (job.state === 'done') updateCurrent(job.id, { status: 'failed', error: 'the task finished without a run id' });
        else if (job.state === 'failed') updateCurrent(job.id, { status: 'failed', error: job.error ?? 'the task failed' });
        else if (job.state === 'cancelled') updateCurrent(job.id, { status: 'cancelled', error: null });
      }
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

    return {
      view: opts.initialView ?? 'repository',
      connection: { state: 'connecting', attempt: 0, retryAt: null },
      info: idle(),
      settings: idle(),
      repos: idle(),
      jobs: [],
      methods: idle(),
      manifest: null,
      tasks: idle(),
      selectedTaskId: null,
      taskSource: 'manifest',
      selectedRepoId: null,
      selectedMethods: [...DEFAULT_TASK_METHODS],
      ablationSources: { ...ALL_SOURCES },
      taskRun: { current: null, previous: null },
      drill: null,
      runs: idle(),
      models: {},
      selectedRuns: [],
      experimentForm: { ...DEFAULT_EXPERIMENT_FORM, methods: [...DEFAULT_EXPERIMENT_FORM.methods] },
      analysis: { ...DEFAULT_ANALYSIS },
      notices: [],

      setView: (view) => {
        // Back from a stored result to an experiment with no run chosen (after a reload, say): its run is chosen.
        const d = get().drill;
        if (view === 'experiment' && d && !get().selectedRuns.length) set({ view, selectedRuns: [d.runId] });
        else set({ view });
      },
      setTaskSource: (taskSource) => set({ taskSource }),
      selectRepo: (selectedRepoId) => set({ selectedRepoId }),

      applyRoute(route) {
        // A route names only what its view shows: the rest of the state is left as it is; what it shows and leaves
        // out of the address bar is at its default.
        set({ view: route.view });
        if (route.view === 'repository') set({ selectedRepoId: route.repo });
        if (route.view === 'experiment') {
          set({
            selectedRuns: route.runs.slice(-2),
            experimentForm: {
              kind: route.kind ?? DEFAULT_EXPERIMENT_FORM.kind,
              methods: route.methods ? [...route.methods] : [...DEFAULT_EXPERIMENT_METHODS],
              manifest: route.manifest,
              limit: route.limit ?? '',
              samples: route.samples ?? '',
            },
            analysis: analysisOf(route),
          });
          return;
        }
        if (route.view === 'reports') {
          // No run named: the view chooses the newest (or keeps the experiment's choice).
          if (route.runs.length) set({ selectedRuns: route.runs.slice(-2) });
          return;
        }
        if (route.view !== 'task' && route.view !== 'ablation') return;
        if (route.task) set({ selectedTaskId: route.task });
        if (route.manifest && route.manifest !== get().manifest) void get().loadTasks(route.manifest);
        if (route.methods) set({ selectedMethods: [...route.methods] });
        const d = get().drill;
        if (route.view === 'ablation') {
          set({ ablationSources: route.sources ? { ...route.sources } : { ...ALL_SOURCES } });
          const { current, previous } = get().taskRun;
          if (route.run && (current?.runId !== route.run || (route.prev && previous?.runId !== route.prev))) {
            const prev = route.prev;
            const run = route.run;
            // The compared run first: restoring the current one moves it to "previous".
            void (async () => {
              if (prev) await get().restoreRun(prev);
              await get().restoreRun(run);
            })();
          }
          return;
        }
        if (route.run && route.task && route.condition) {
          // The experiment the result was opened from: "Back to the experiment" shows it again, as it was.
          if (route.runs.length) set({ selectedRuns: route.runs.slice(-2), analysis: analysisOf(route) });
          else if (!get().selectedRuns.includes(route.run)) set({ selectedRuns: [route.run] });
          if (!d || d.runId !== route.run || d.taskId !== route.task || d.condition !== route.condition)
            void get().openResult(route.run, route.task, route.condition);
        } else if (route.run) {
          if (d) set({ drill: null });
          if (get().taskRun.current?.runId !== route.run) void get().restoreRun(route.run);
        } else if (d) set({ drill: null });
        // After the result is opened (which shows its task's manifest): the route's choice of tab wins.
        set({ taskSource: route.source });
      },

      async restoreRun(runId) {
        const jobId = `stored:${runId}`;
        const rec: TaskRunRecord = {
          jobId,
          runId,
          label: runId,
          taskId: null,
          manifest: null,
          custom: null,
          methods: [],
          sources: { ...ALL_SOURCES },
          status: 'loading',
          error: null,
          results: [],
          startedAt: new Date().toISOString(),
        };
        // Shown (and so in the route) at once; what the runs list says about it fills in when it arrives.
        set({ taskRun: { current: rec, previous: get().taskRun.current }, drill: null });
        const item = await runItem(runId);
        if (!item) {
          updateCurrent(jobId, { status: 'failed', error: `no stored run ${runId} in this workspace (it may have been deleted); run the task again` });
          return;
        }
        updateCurrent(jobId, { label: item.subject || item.label, manifest: item.manifestFile, methods: item.conditions, startedAt: item.createdAt });
        await fetchTaskResults(jobId, runId);
        const taskId = get().taskRun.current?.jobId === jobId ? get().taskRun.current?.results[0]?.taskId : undefined;
        if (taskId) {
          updateCurrent(jobId, { taskId });
          await showTaskOf(runId, taskId);
        }
      },

      async init() {
        await Promise.all([
          get().refreshInfo(),
          get().refreshSettings(),
          get().refreshRepos(),
          get().refreshJobs(),
          get().refreshMethods(),
          get().refreshRuns(),
        ]);
        const info = get().info.data;
        if (info && !get().manifest && info.sampleManifest) void get().loadTasks(info.sampleManifest);
      },

      handleEvent(e) {
        switch (e.type) {
          case 'job':
            applyJob(
              e.job,
              get().jobs.find((j) => j.id === e.job.id),
            );
            break;
          case 'repos-changed':
            void get().refreshRepos();
            break;
          case 'runs-changed':
            void get().refreshRuns();
            break;
          case 'notice':
            get().notify(e.level, e.message);
            break;
        }
      },

      setConnection(info, reopened) {
        set({ connection: info });
        // Events sent while the stream was down are lost: read the state again.
        if (reopened) {
          void get().refreshJobs();
          void get().refreshRepos();
          void get().refreshRuns();
        }
      },

      refreshInfo: () => guard('info', () => api.call('app.info', {})),
      refreshSettings: () => guard('settings', () => api.call('settings.get', {})),
      refreshRepos: () => guard('repos', () => api.call('repo.list', {})),
      refreshRuns: () => guard('runs', () => api.call('experiment.list', {})),
      refreshMethods: () => guard('methods', () => api.call('methods.list', {})),

      async refreshJobs() {
        try {
          const jobs = await api.call('job.list', {});
          for (const job of jobs)
            applyJob(
              job,
              get().jobs.find((j) => j.id === job.id),
            );
        } catch (err) {
          get().notify('warning', `could not list jobs: ${asCallError(err).message}`);
        }
      },

      async loadTasks(manifest) {
        set({ manifest, tasks: { status: 'loading', data: get().manifest === manifest ? get().tasks.data : null, error: null } });
        try {
          const list = await api.call('tasks.list', { manifest });
          if (get().manifest !== manifest) return;
          const keep = get().selectedTaskId && list.tasks.some((t) => t.id === get().selectedTaskId);
          set({ tasks: ready(list), selectedTaskId: keep ? get().selectedTaskId : (list.tasks[0]?.id ?? null) });
        } catch (err) {
          if (get().manifest === manifest) set({ tasks: failed(idle(), asCallError(err)) });
        }
      },

      selectTask: (id) => set({ selectedTaskId: id }),
      setSelectedMethods: (ids) => set({ selectedMethods: ids }),
      setAblationSources: (s) => set({ ablationSources: s }),

      async runTask(req) {
        const methods = req.methods ?? get().selectedMethods;
        const manifest = get().manifest;
        const sources = req.sources ?? ALL_SOURCES;
        const allOn = sources.api && sources.context && sources.similar;
        const input = req.custom
          ? { custom: req.custom, methods, ...(allOn ? {} : { sources }) }
          : { manifest: manifest ?? '', taskId: req.taskId ?? '', methods, ...(allOn ? {} : { sources }) };
        const { jobId } = await api.call('task.run', input);
        const rec: TaskRunRecord = {
          jobId,
          runId: null,
          label: req.custom ? req.custom.qualname : (req.taskId ?? ''),
          taskId: req.custom ? null : (req.taskId ?? null),
          manifest: req.custom ? null : manifest,
          custom: req.custom ?? null,
          methods,
          sources: { ...sources },
          status: 'running',
          error: null,
          results: [],
          startedAt: new Date().toISOString(),
        };
        const { current } = get().taskRun;
        set({ taskRun: { current: rec, previous: current && current.status === 'ready' ? current : get().taskRun.previous }, drill: null });
        // The job may have finished (and its event arrived) before this call answered.
        const known = get().jobs.find((j) => j.id === jobId);
        if (known) applyJob(known, undefined);
        return jobId;
      },

      async loadModel(runIds, force = false) {
        const key = modelKey(runIds);
        const have = get().models[key];
        if (have && !force && (have.status === 'ready' || have.status === 'loading')) return have.data;
        set({ models: { ...get().models, [key]: loading(have ?? idle()) } });
        try {
          const model = await api.call('experiment.model', { runIds });
          set({ models: { ...get().models, [key]: ready(model) } });
          return model;
        } catch (err) {
          set({ models: { ...get().models, [key]: failed(have ?? idle(), asCallError(err)) } });
          return null;
        }
      },

      selectRuns: (ids) => set({ selectedRuns: ids.slice(-2) }),
      setExperimentForm: (patch) => set({ experimentForm: { ...get().experimentForm, ...patch } }),
      setAnalysis: (patch) => set({ analysis: { ...get().analysis, ...patch } }),

      async openResult(runId, taskId, condition) {
        set({ drill: { runId, taskId, condition, result: { status: 'loading', data: null, error: null } }, view: 'task', taskSource: 'manifest' });
        void showTaskOf(runId, taskId);
        try {
          const result = await api.call('experiment.result', { runId, taskId, condition });
          const d = get().drill;
          if (d && d.runId === runId && d.taskId === taskId && d.condition === condition) set({ drill: { ...d, result: ready(result) } });
        } catch (err) {
          const d = get().drill;
          if (d && d.runId === runId && d.taskId === taskId && d.condition === condition) set({ drill: { ...d, result: failed(idle(), asCallError(err)) } });
        }
      },

      closeDrill: () => set({ drill: null }),

      async jobAction(jobId, action) {
        const known = get().jobs.find((j) => j.id === jobId);
        if (action !== 'resume' && known?.state === 'running') {
          // Acknowledged at once ("pausing…" / "cancelling…"); the engine's event confirms it, its final state follows.
          requested.set(jobId, action === 'pause' ? 'paused' : 'cancelled');
          upsertJob(known);
        }
        try {
          const job = await api.call(action === 'cancel' ? 'job.cancel' : action === 'pause' ? 'job.pause' : 'job.resume', { jobId });
          applyJob(
            job,
            get().jobs.find((j) => j.id === job.id),
          );
        } catch (err) {
          if (requested.delete(jobId)) {
            const now = get().jobs.find((j) => j.id === jobId);
            if (now) upsertJob({ ...now, stopping: null });
          }
          get().notify('error', `could not ${action} the job: ${asCallError(err).message}`);
        }
      },

      notify(level, message) {
        const at = Date.now();
        const notices = get().notices;
        const same = notices.find((n) => n.level === level && n.message === message && at - n.at <= NOTICE_MERGE_MS);
        if (same) {
          // One failing call reported by several views is one toast, counted (and shown for another full spell).
          set({ notices: [...notices.filter((n) => n !== same), { ...same, count: same.count + 1, at }] });
          armNotice(same.id, level);
          return;
        }
        const id = ++noticeId;
        const kept = notices.slice(-(NOTICE_MAX - 1));
        for (const n of notices) if (!kept.includes(n)) forgetNotice(n.id);
        set({ notices: [...kept, { id, level, message, count: 1, at }] });
        armNotice(id, level);
      },

      dismissNotice: (id) => {
        forgetNotice(id);
        set({ notices: get().notices.filter((n) => n.id !== id) });
      },

      holdNotice(id, hold) {
        const n = get().notices.find((x) => x.id === id);
        if (!n) return;
        if (hold) {
          held.add(id);
          const t = noticeTimers.get(id);
          if (t !== undefined) clearTimeout(t);
          noticeTimers.delete(id);
        } else {
          held.delete(id);
          armNotice(id, n.level);
        }
      },
    };
  });
}

// ---- the app's single store, for views ----------------------------------------------------------------------

let appStore: AppStore | null = null;
let appApi: EngineApi | null = null;

export function installStore(store: AppStore, api: EngineApi): void {
  appStore = store;
  appApi = api;
}

export function getStore(): AppStore {
  if (!appStore) throw new Error('the store is not installed yet');
  return appStore;
}

/** The engine API, for views that call it directly (forms that show their own errors). */
export function engine(): EngineApi {
  if (!appApi) throw new Error('the engine API is not installed yet');
  return appApi;
}

export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(getStore(), selector);
}
