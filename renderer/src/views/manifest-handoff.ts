// A manifest made in one view (an import, a mined set) handed to the views that run it: loaded as the store's
// manifest (the Task and Ablation views read it, its first task chosen) and, for an experiment, put in the
// Experiment view's start form.

import { getStore } from '../store.ts';

/** Opens the Experiment view with `manifest` in its start form. */
export function openInExperiment(manifest: string): void {
  const store = getStore().getState();
  void store.loadTasks(manifest);
  store.setExperimentForm({ manifest });
  store.setView('experiment');
}

/** Opens the Ablation view on `manifest`: its task set is the one "Run on a task set" runs, its first task is chosen. */
export function openInAblation(manifest: string): void {
  const store = getStore().getState();
  void store.loadTasks(manifest);
  store.setView('ablation');
}
