// The first retrieval of a fresh process over an index made earlier: what the app's first task after a start
// costs. `npm run bench` runs this file as a child process (bench/retrieve.ts) and reads the JSON line it prints.
//
//   node bin/run-ts.js bench/first-task.ts DB REPO_ID TASK_JSON

import { Store } from '../main/store/store.ts';
import { openConfiguredEncoder } from '../main/embed/select.ts';
import { defaultModelsDir } from '../main/host/paths.ts';
import { retrieveForTask } from '../main/retrieve/engine.ts';
import { VectorIndexCache } from '../main/retrieve/vector-index.ts';

const [db, repoId, taskJson] = process.argv.slice(2);
if (!db || !repoId || !taskJson) {
  console.error('usage: first-task.ts DB REPO_ID TASK_JSON');
  process.exit(2);
}
const { encoder } = await openConfiguredEncoder({ prefer: 'default', modelsDir: defaultModelsDir() });
const t0 = performance.now();
const store = Store.open(db);
const openMs = performance.now() - t0;
try {
  const t = performance.now();
  const trace = await retrieveForTask({ store, encoder, repoId: Number(repoId), task: JSON.parse(taskJson), cache: new VectorIndexCache(), persist: false });
  console.log(JSON.stringify({ openMs, firstTaskMs: performance.now() - t, timings: trace.timingsMs }));
} finally {
  store.close();
  await encoder.dispose();
}
