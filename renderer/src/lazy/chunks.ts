// The parts of the UI no first screen needs, each its own chunk: `import * as name from 'path';` lines, nothing else
// imported here. In tests and the dev server these are plain imports and `chunks.name()` returns the module at
// once; the production build (renderer/classic-chunks.ts) reads these lines, builds each path as its own classic
// script and replaces this module with calls to the loader the main bundle carries, so there it returns a promise.
// Import the parts through lazy/parts.tsx only: a static import of one of these paths elsewhere puts it back into
// the first screen's bundle (test/renderer/lazy-build.test.ts checks that it is not there).

import * as ablation from '../views/AblationView.tsx';
import * as charts from '../views/experiment/ChartsPanel.tsx';
import * as experiment from '../views/ExperimentView.tsx';
import * as settings from '../views/SettingsView.tsx';
import * as task from '../views/TaskView.tsx';

interface Modules {
  ablation: typeof ablation;
  charts: typeof charts;
  experiment: typeof experiment;
  settings: typeof settings;
  task: typeof task;
}

export type ChunkName = keyof Modules;
export type ChunkModule<N extends ChunkName> = Modules[N];

export const chunks: { [N in ChunkName]: () => ChunkModule<N> | Promise<ChunkModule<N>> } = {
  ablation: () => ablation,
  charts: () => charts,
  experiment: () => experiment,
  settings: () => settings,
  task: () => task,
};
