// The UI's state: what the engine told us (app info, settings, repositories, jobs, tasks, runs, report models)
// and what the analyst is looking at. Engine events update it; views only read it and call its actions.
// The shape and its helpers are in store/state.ts; engine reads, jobs, task runs, toasts and routes each have a file
// there.

import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { EngineApi } from './api/contract.ts';
import { applyRoute } from './store/apply-route.ts';
import { jobs } from './store/jobs.ts';
import { noticeActions } from './store/notices.ts';
import { engineReads } from './store/reads.ts';
import {
  ALL_SOURCES,
  DEFAULT_ANALYSIS,
  DEFAULT_EXPERIMENT_FORM,
  DEFAULT_TASK_METHODS,
  idle,
  type AppState,
  type AppStore,
  type StoreContext,
  type ViewId,
} from './store/state.ts';
import { taskRuns } from './store/task-runs.ts';

export {
  ALL_SOURCES,
  ANALYSIS_TABS,
  asCallError,
  DEFAULT_ANALYSIS,
  DEFAULT_EXPERIMENT_FORM,
  DEFAULT_EXPERIMENT_METHODS,
  DEFAULT_TASK_METHODS,
  EXPERIMENT_KINDS,
  modelKey,
  NOTICE_MAX,
  NOTICE_MERGE_MS,
  NOTICE_TTL_MS,
  TASK_ROWS_SHOWN,
} from './store/state.ts';
export type {
  AnalysisTab,
  AnalysisView,
  AppState,
  AppStore,
  DrillDown,
  ExperimentForm,
  ExperimentKind,
  Loadable,
  MethodsList,
  Notice,
  RouteState,
  TaskList,
  TaskRowsShown,
  TaskRunRecord,
  TaskSource,
  ViewId,
} from './store/state.ts';

/** What the state holds, without its actions. */
type AppData = { [K in keyof AppState as AppState[K] extends (...args: never[]) => unknown ? never : K]: AppState[K] };

/** The state before anything is loaded. */
function initialState(view: ViewId): AppData {
  return {
    view,
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
  };
}

export function createAppStore(api: EngineApi, opts: { initialView?: ViewId } = {}): AppStore {
  return createStore<AppState>()((set, get) => {
    const ctx: StoreContext = { api, set, get };
    const runs = taskRuns(ctx, (job) => jobList.applyNew(job));
    const jobList = jobs(ctx, runs.onJob);

    return {
      ...initialState(opts.initialView ?? 'repository'),
      ...runs.actions,
      ...jobList.actions,
      ...noticeActions(ctx),
      ...engineReads(ctx),

      setView: (view) => {
        // Back from a stored result to an experiment with no run chosen (after a reload, say): its run is chosen.
        const d = get().drill;
        if (view === 'experiment' && d && !get().selectedRuns.length) set({ view, selectedRuns: [d.runId] });
        else set({ view });
      },
      setTaskSource: (taskSource) => set({ taskSource }),
      selectRepo: (selectedRepoId) => set({ selectedRepoId }),
      applyRoute: (route) => applyRoute(ctx, route),
      selectTask: (id) => set({ selectedTaskId: id }),
      setSelectedMethods: (ids) => set({ selectedMethods: ids }),
      setAblationSources: (s) => set({ ablationSources: s }),

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
            jobList.applyJob(e.job);
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

      selectRuns: (ids) => set({ selectedRuns: ids.slice(-2) }),
      setExperimentForm: (patch) => set({ experimentForm: { ...get().experimentForm, ...patch } }),
      setAnalysis: (patch) => set({ analysis: { ...get().analysis, ...patch } }),
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
