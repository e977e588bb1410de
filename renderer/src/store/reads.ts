// What the store reads from the engine: app info, settings, repositories, runs and methods (each a Loadable), a
// manifest's tasks, and report models (cached by run ids; jobs.ts drops a run's models when the run changes).

import { asCallError, failed, idle, loading, modelKey, ready, type AppState, type Loadable, type StoreContext } from './state.ts';

type Reads = Pick<AppState, 'refreshInfo' | 'refreshSettings' | 'refreshRepos' | 'refreshRuns' | 'refreshMethods' | 'loadTasks' | 'loadModel'>;

export function engineReads({ api, set, get }: StoreContext): Reads {
  const guard = async <T>(key: 'info' | 'settings' | 'repos' | 'runs' | 'methods', fn: () => Promise<T>) => {
    set({ [key]: loading(get()[key] as Loadable<unknown>) } as Partial<AppState>);
    try {
      const data = await fn();
      set({ [key]: ready(data) } as Partial<AppState>);
    } catch (err) {
      set({ [key]: failed(get()[key] as Loadable<unknown>, asCallError(err)) } as Partial<AppState>);
    }
  };
  return {
    refreshInfo: () => guard('info', () => api.call('app.info', {})),
    refreshSettings: () => guard('settings', () => api.call('settings.get', {})),
    refreshRepos: () => guard('repos', () => api.call('repo.list', {})),
    refreshRuns: () => guard('runs', () => api.call('experiment.list', {})),
    refreshMethods: () => guard('methods', () => api.call('methods.list', {})),

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
  };
}
