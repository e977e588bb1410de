// What a route names (after a reload, or back / forward) applied to the store: view, repository, manifest, task,
// result, forms and analysis. route.ts reads and writes the address bar; this is the store's side of it.

import {
  ALL_SOURCES,
  DEFAULT_ANALYSIS,
  DEFAULT_EXPERIMENT_FORM,
  DEFAULT_EXPERIMENT_METHODS,
  type AnalysisView,
  type RouteState,
  type StoreContext,
} from './state.ts';

/** The analysis a route names (its defaults where it names none). */
const analysisOf = (route: RouteState): AnalysisView => ({
  tab: route.tab ?? DEFAULT_ANALYSIS.tab,
  filter: route.filter ?? '',
  only: route.only ?? DEFAULT_ANALYSIS.only,
});

export function applyRoute({ set, get }: StoreContext, route: RouteState): void {
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
}
