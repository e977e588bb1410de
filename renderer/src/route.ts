// The address bar as the UI's route: `#/<view>?repo=…&manifest=…&task=…&source=custom&run=…&condition=…`. The store
// writes it as the analyst moves (a change of view is a history entry, the rest replaces the current one) and reads
// it at start and on back / forward, so a reload shows the same view, repository, task and stored result.

import type { AppState, AppStore, RouteState, TaskSource, ViewId } from './store.ts';

const VIEWS: readonly ViewId[] = ['repository', 'task', 'ablation', 'experiment', 'reports', 'settings'];

export const DEFAULT_ROUTE: RouteState = { view: 'repository', repo: null, manifest: null, task: null, source: 'manifest', run: null, condition: null };

/** A hash → the route it names; anything it does not name (or names wrongly) takes the default. */
export function parseRoute(hash: string): RouteState {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!h.startsWith('/')) return { ...DEFAULT_ROUTE };
  const q = h.indexOf('?');
  const name = (q >= 0 ? h.slice(1, q) : h.slice(1)) as ViewId;
  const p = new URLSearchParams(q >= 0 ? h.slice(q + 1) : '');
  const repo = Number(p.get('repo'));
  const source: TaskSource = p.get('source') === 'custom' ? 'custom' : 'manifest';
  return {
    view: VIEWS.includes(name) ? name : DEFAULT_ROUTE.view,
    repo: Number.isInteger(repo) && repo > 0 ? repo : null,
    manifest: p.get('manifest') || null,
    task: p.get('task') || null,
    source,
    run: p.get('run') || null,
    condition: p.get('condition') || null,
  };
}

/** What of the state the route holds: only what the current view shows. */
export function routeOfState(s: AppState): RouteState {
  const r: RouteState = { ...DEFAULT_ROUTE, view: s.view };
  if (s.view === 'repository') r.repo = s.selectedRepoId;
  if (s.view === 'task' || s.view === 'ablation') {
    r.manifest = s.manifest;
    r.task = s.drill?.taskId ?? s.selectedTaskId;
  }
  if (s.view === 'task') {
    r.source = s.taskSource;
    if (s.drill) {
      r.run = s.drill.runId;
      r.condition = s.drill.condition;
    } else if (s.taskRun.current?.runId) r.run = s.taskRun.current.runId;
  }
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
