// The views App shows as lazy parts (lazy/load.tsx says how they load). A static import of one of these views
// elsewhere puts it back into the first screen's bundle (test/renderer/lazy-build.test.ts checks that it is not there).

import { chunk as ablation } from './chunks/ablation.ts';
import { chunk as experiment } from './chunks/experiment.ts';
import { chunk as settings } from './chunks/settings.ts';
import { chunk as task } from './chunks/task.ts';
import { lazyPart } from './load.tsx';

export const TaskPart = lazyPart('task', task, (m) => m.TaskView, 'task view');
export const AblationPart = lazyPart('ablation', ablation, (m) => m.AblationView, 'ablation view');
export const ExperimentPart = lazyPart('experiment', experiment, (m) => m.ExperimentView, 'experiment view');
export const SettingsPart = lazyPart('settings', settings, (m) => m.SettingsView, 'settings');
