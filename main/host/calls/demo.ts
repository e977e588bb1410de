// A newcomer's workspace: the sample repository indexed and, when the store has no runs yet, a small offline
// demo (the compared methods, and the evidence-source factorial, on three sample tasks).

import path from 'node:path';
import { readManifest } from '../../benchmarks/manifest.ts';
import { redact } from '../../generate/errors.ts';
import { OFFLINE_LABEL } from '../../model/backend-label.ts';
import { checkRepositoryRoot } from '../../index/walk.ts';
import { factorialConditions, METHOD_SETS } from '../../pipeline/methods.ts';
import { messageOf } from '../jobs.ts';
import { sampleRepoPath } from '../paths.ts';
import type { Workspace } from '../workspace.ts';
import { resolveMethods } from './conditions.ts';
import { startIndexJob } from './indexing.ts';
import { OFFLINE_BACKEND, startExperimentJob } from './runs.ts';

async function prepareDemo(ws: Workspace): Promise<void> {
  const root = await checkRepositoryRoot(sampleRepoPath());
  const repo = ws.store.getRepository(root);
  if (!repo?.last_indexed_at) {
    const job = startIndexJob(ws, root);
    const end = await ws.jobs.wait(job.id);
    if (end.state !== 'done' || ws.closed) return;
  }
  if (ws.experiments.list(1).length || ws.closed) return;
  const manifest = readManifest(path.join(sampleRepoPath(), 'tasks.jsonl'));
  const tasks = manifest.tasks.slice(0, 3);
  const run = startExperimentJob(ws, 'experiment', `Demo: ${METHOD_SETS.compare.length} methods on ${tasks.length} sample tasks · ${OFFLINE_LABEL}`, {
    kind: 'run',
    manifest,
    tasks,
    conditions: resolveMethods([...METHOD_SETS.compare]),
    backend: OFFLINE_BACKEND,
  });
  const ablate = startExperimentJob(ws, 'experiment', `Demo: evidence-source factorial on ${tasks.length} sample tasks · ${OFFLINE_LABEL}`, {
    kind: 'ablate',
    manifest,
    tasks,
    conditions: factorialConditions(),
    backend: OFFLINE_BACKEND,
  });
  await Promise.all([ws.jobs.wait(run.id), ws.jobs.wait(ablate.id)]);
}

/** Starts preparing the demo in the background (the workspace awaits it on close); a failure becomes a notice. */
export function startDemo(ws: Workspace): void {
  ws.demo = prepareDemo(ws).catch((err) => {
    if (!ws.closed) ws.emit({ type: 'notice', level: 'error', message: `The demo workspace could not be prepared: ${redact(messageOf(err))}` });
  });
}
