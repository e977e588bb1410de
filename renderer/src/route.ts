// The address bar as the UI's route: `#/<view>?repo=…&manifest=…&task=…&source=custom&run=…&condition=…&runs=…&tab=…`.
// The store writes it as the analyst moves (a change of view is a history entry, the rest replaces the current one)
// and reads it at start and on back / forward, so a reload shows the same view with what it showed: the repository;
// the task and its result; the Ablation view's switches and compared runs; the Experiment view's chosen runs,
// analysis tab, task-table filters and start form; the runs a report is made of.

import {
  ANALYSIS_TABS,
  DEFAULT_ANALYSIS,
  DEFAULT_EXPERIMENT_FORM,
  DEFAULT_EXPERIMENT_METHODS,
  DEFAULT_TASK_METHODS,
  EXPERIMENT_KINDS,
  TASK_ROWS_SHOWN,
  type AppState,
  type AppStore,
  type RouteState,
  type TaskSource,
  type ViewId,
} from './store.ts';
import type { Sources } from './api/contract.ts';

const VIEWS: readonly ViewId[] = ['repository', 'task', 'ablation', 'experiment', 'reports', 'import', 'settings'];
const SOURCE_NAMES = ['api', 'context', 'similar'] as const;

export const DEFAULT_ROUTE: RouteState = {
  view: 'repository',
  repo: null,
  manifest: null,
  task: null,
  source: 'manifest',
  run: null,
  condition: null,
  runs: [],
  prev: null,
  methods: null,
  sources: null,
  kind: null,
  limit: null,
  samples: null,
  tab: null,
  filter: null,
  only: null,
};

const oneOf = <T extends string>(list: readonly T[], v: string | null): T | null => (v !== null && (list as readonly string[]).includes(v) ? (v as T) : null);
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
/** A task limit: a whole number of at least 1 (what the form would take), else none. */
const limitOf = (v: string | null | undefined): string | null => (v && /^[1-9]\d{0,8}$/.test(v.trim()) ? v.trim() : null);

/** `api,similar` → the switches (none named: `none`); anything else → null (all on). */
function parseSources(v: string | null): Sources | null {
  if (v === null) return null;
  const names = v === 'none' ? [] : v.split(',');
  if (!names.every((n) => (SOURCE_NAMES as readonly string[]).includes(n))) return null;
  return { api: names.includes('api'), context: names.includes('context'), similar: names.includes('similar') };
}

function formatSources(s: Sources): string {
  const on = SOURCE_NAMES.filter((n) => s[n]);
  return on.length ? on.join(',') : 'none';
}

/** A hash → the route it names; anything it does not name (or names wrongly) takes the default. */
export function parseRoute(hash: string): RouteState {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!h.startsWith('/')) return { ...DEFAULT_ROUTE };
  const q = h.indexOf('?');
  const name = (q >= 0 ? h.slice(1, q) : h.slice(1)) as ViewId;
  const p = new URLSearchParams(q >= 0 ? h.slice(q + 1) : '');
  const repo = Number(p.get('repo'));
  const source: TaskSource = p.get('source') === 'custom' ? 'custom' : 'manifest';
  const methods = p.getAll('method').filter(Boolean);
  return {
    view: VIEWS.includes(name) ? name : DEFAULT_ROUTE.view,
    repo: Number.isInteger(repo) && repo > 0 ? repo : null,
    manifest: p.get('manifest') || null,
    task: p.get('task') || null,
    source,
    run: p.get('run') || null,
    condition: p.get('condition') || null,
    runs: [...new Set(p.getAll('runs').filter(Boolean))].slice(-2),
    prev: p.get('prev') || null,
    methods: methods.length ? methods : p.get('methods') === 'none' ? [] : null,
    sources: parseSources(p.get('sources')),
    kind: oneOf(EXPERIMENT_KINDS, p.get('kind')),
    limit: limitOf(p.get('limit')),
    samples: p.get('samples') || null,
    tab: oneOf(ANALYSIS_TABS, p.get('tab')),
    filter: p.get('filter') || null,
    only: oneOf(TASK_ROWS_SHOWN, p.get('only')),
  };
}

/** The analysis's tab and task-table filters, each unless at its default. */
function analysisRoute(s: AppState): Pick<RouteState, 'tab' | 'filter' | 'only'> {
  const a = s.analysis;
  return { tab: a.tab !== DEFAULT_ANALYSIS.tab ? a.tab : null, filter: a.filter || null, only: a.only !== DEFAULT_ANALYSIS.only ? a.only : null };
}

/** What of the state the route holds: only what the current view shows, and of that only what is not a default. */
export function routeOfState(s: AppState): RouteState {
  const r: RouteState = { ...DEFAULT_ROUTE, view: s.view };
  if (s.view === 'repository') r.repo = s.selectedRepoId;
  if (s.view === 'task' || s.view === 'ablation') {
    // A written task is not of the loaded manifest: the manifest and its task would be stale there.
    if (!(s.view === 'task' && s.taskSource === 'custom' && !s.drill)) {
      r.manifest = s.manifest;
      r.task = s.drill?.taskId ?? s.selectedTaskId;
    }
    if (!sameList(s.selectedMethods, DEFAULT_TASK_METHODS)) r.methods = [...s.selectedMethods];
  }
  if (s.view === 'task') {
    // "Write a task" over a stored result keeps both: the form's tab and the result below it.
    r.source = s.taskSource;
    if (s.drill) {
      r.run = s.drill.runId;
      r.condition = s.drill.condition;
      // The experiment it was opened from, for the way back: its runs, tab and task-table filters.
      r.runs = [...s.selectedRuns];
      r.methods = null;
      Object.assign(r, analysisRoute(s));
    } else if (s.taskRun.current?.runId) r.run = s.taskRun.current.runId;
  }
  if (s.view === 'ablation') {
    const { current, previous } = s.taskRun;
    if (current?.runId) {
      r.run = current.runId;
      if (previous?.runId) r.prev = previous.runId;
    }
    const { api, context, similar } = s.ablationSources;
    if (!(api && context && similar)) r.sources = { ...s.ablationSources };
  }
  if (s.view === 'experiment') {
    r.runs = [...s.selectedRuns];
    const f = s.experimentForm;
    r.manifest = f.manifest;
    if (f.kind !== DEFAULT_EXPERIMENT_FORM.kind) r.kind = f.kind;
    if (!sameList(f.methods, DEFAULT_EXPERIMENT_METHODS)) r.methods = [...f.methods];
    r.limit = limitOf(f.limit);
    r.samples = f.samples.trim() || null;
    Object.assign(r, analysisRoute(s));
  }
  if (s.view === 'reports') r.runs = [...s.selectedRuns];
  return r;
}

export function formatRoute(r: RouteState): string {
  const p = new URLSearchParams();
  if (r.repo !== null) p.set('repo', String(r.repo));
  if (r.manifest) p.set('manifest', r.manifest);
  if (r.task) p.set('task', r.task);
  if (r.source === 'custom') p.set('source', 'custom');
  if (r.run) p.set('run', r.run);
  if (r.condition) p.set('condition', r.condition);
  for (const id of r.runs) p.append('runs', id);
  if (r.prev) p.set('prev', r.prev);
  if (r.methods) {
    if (r.methods.length) for (const m of r.methods) p.append('method', m);
    else p.set('methods', 'none');
  }
  if (r.sources) p.set('sources', formatSources(r.sources));
  if (r.kind) p.set('kind', r.kind);
  if (r.limit) p.set('limit', r.limit);
  if (r.samples) p.set('samples', r.samples);
  if (r.tab) p.set('tab', r.tab);
  if (r.filter) p.set('filter', r.filter);
  if (r.only) p.set('only', r.only);
  const query = p.toString();
  return `#/${r.view}${query ? `?${query}` : ''}`;
}

export interface RouteWindow {
  location: { hash: string; pathname: string; search: string };
  history: { pushState(data: unknown, unused: string, url?: string | null): void; replaceState(data: unknown, unused: string, url?: string | null): void };
  addEventListener(type: 'popstate', fn: () => void): void;
  removeEventListener(type: 'popstate', fn: () => void): void;
}

/** Keeps the store and the address bar in step; the returned function unbinds. */
export function bindRoute(store: AppStore, win: RouteWindow): () => void {
  let written = formatRoute(routeOfState(store.getState()));
  const unsubscribe = store.subscribe((s, prev) => {
    const next = formatRoute(routeOfState(s));
    if (next === written) return;
    written = next;
    const url = win.location.pathname + win.location.search + next;
    if (s.view !== prev.view) win.history.pushState(null, '', url);
    else win.history.replaceState(null, '', url);
  });
  const onPop = () => {
    written = win.location.hash;
    store.getState().applyRoute(parseRoute(win.location.hash));
  };
  win.addEventListener('popstate', onPop);
  return () => {
    unsubscribe();
    win.removeEventListener('popstate', onPop);
  };
}
