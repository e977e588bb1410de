// A newcomer's workspace: the sample repository indexed and, when the store has no runs yet, a small offline
// demo (the compared methods, and the evidence-source factorial, on three sample tasks).

import path from 'node:path';
import { redact } from '../../generate/errors.ts';
import { OFFLINE_LABEL } from '../../model/backend-label.ts';
import { checkRepositoryRoot } from '../../index/walk.ts';
import { messageOf } from '../jobs.ts';
import { sampleRepoPath } from '../paths.ts';
import type { Workspace } from '../workspace.ts';
import { startIndexJob } from './indexing.ts';
import { startExperimentJob } from './runs.ts';
import { planRun } from '../ops/run.ts';

async function prepareDemo(ws: Workspace): Promise<void> {
  const root = await checkRepositoryRoot(sampleRepoPath());
  const repo = ws.store.getRepository(root);
  if (!repo?.last_indexed_at) {
    const job = startIndexJob(ws, root);
    const end = await ws.jobs.wait(job.id);
    if (end.state !== 'done' || ws.closed) return;
  }
  if (ws.experiments.list(1).length || ws.closed) return;
  // The sample's first three tasks, offline, with the defaults (not the Settings pipeline constants): what it shows is
  // the same on every machine.
  const request = { manifest: path.join(sampleRepoPath(), 'tasks.jsonl'), limit: 3, backend: { kind: 'offline' } as const };
  const env = { allow: [], defaults: { sandbox: ws.settings.sandbox, parallel: ws.settings.parallel } };
  const run = planRun({ ...request, kind: 'run' }, env);
  const ablate = planRun({ ...request, kind: 'ablate' }, env);
  const n = run.tasks.length;
  const runJob = startExperimentJob(ws, 'experiment', `Demo: ${run.conditions.length} methods on ${n} sample tasks · ${OFFLINE_LABEL}`, run);
  const ablateJob = startExperimentJob(ws, 'experiment', `Demo: evidence-source factorial on ${n} sample tasks · ${OFFLINE_LABEL}`, ablate);
  await Promise.all([ws.jobs.wait(runJob.id), ws.jobs.wait(ablateJob.id)]);
}

/** Starts preparing the demo in the background (the workspace awaits it on close); a failure becomes a notice. */
export function startDemo(ws: Workspace): void {
  ws.demo = prepareDemo(ws).catch((err) => {
    if (!ws.closed) ws.emit({ type: 'notice', level: 'error', message: `The demo workspace could not be prepared: ${redact(messageOf(err))}` });
  });
}
