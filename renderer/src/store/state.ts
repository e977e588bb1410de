// The UI state's shape: what the engine told us and what the analyst is looking at (AppState), the records it
// keeps (task runs, drill-downs, toasts, forms, routes), their defaults, and the small helpers every part of the
// store uses. renderer/src/store.ts builds the store from the parts beside this file.

import type { StoreApi } from 'zustand/vanilla';
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
} from '../api/contract.ts';
import type { ConnectionInfo } from '../api/transport.ts';

export type ViewId = 'repository' | 'task' | 'ablation' | 'experiment' | 'reports' | 'import' | 'settings';

export interface Loadable<T> {
  status: 'idle' | 'loading' | 'ready' | 'error';
  data: T | null;
  error: CallError | null;
}

export const idle = <T>(): Loadable<T> => ({ status: 'idle', data: null, error: null });
export const loading = <T>(prev: Loadable<T>): Loadable<T> => ({ status: 'loading', data: prev.data, error: null });
export const ready = <T>(data: T): Loadable<T> => ({ status: 'ready', data, error: null });
export const failed = <T>(prev: Loadable<T>, error: CallError): Loadable<T> => ({ status: 'error', data: prev.data, error });

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

/** What each part of the store works with: the engine API and zustand's set and get. */
export interface StoreContext {
  api: EngineApi;
  set: AppStore['setState'];
  get: () => AppState;
}

export const modelKey = (runIds: string[]) => runIds.join('+');
