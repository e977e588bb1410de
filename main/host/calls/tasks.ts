// Calls over task manifests: tasks.list, and task.run (one task, from a manifest or written in the app as a
// custom task, under the chosen methods, as a job with full detail).

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ParsedInput, TaskSummary } from '../../../contract/index.ts';
import { readManifest } from '../../benchmarks/manifest-file.ts';
import type { Manifest } from '../../model/manifest.ts';
import type { Task } from '../../model/task.ts';
import { canonicalPath, fail, writeAtomic, type Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';
import { checkBackend, planAppRun, startExperimentJob } from './runs.ts';

/** A one-task manifest in the user data folder for a task written in the app. */
function customManifest(ws: Workspace, custom: NonNullable<ParsedInput<'task.run'>['custom']>): Manifest {
  const repo = canonicalPath(custom.repo);
  if (!fs.existsSync(path.join(repo, custom.file))) {
    fail('invalid-input', `custom.file ${custom.file} does not exist in ${repo}`, [{ path: 'custom.file', message: `not found in ${repo}` }]);
  }
  const record = {
    id: `custom/${custom.qualname}`,
    repo,
    file: custom.file.split(path.sep).join('/'),
    qualname: custom.qualname,
    requirement: custom.requirement,
    signature: custom.signature,
    test_command: custom.test_command,
    source: { benchmark: 'custom', createdIn: 'OpenCoder desktop' },
  };
  const line = JSON.stringify(record) + '\n';
  // Named by content: the same task written twice is the same manifest, so its runs pair and resume.
  const file = path.join(ws.dataDir, 'custom-tasks', `${createHash('sha256').update(line).digest('hex').slice(0, 16)}.jsonl`);
  if (!fs.existsSync(file)) writeAtomic(file, line);
  return readManifest(file, { allow: ws.allowedRoots });
}

function listTasks(ws: Workspace, manifest: string): { manifest: string; hash: string; tasks: TaskSummary[] } {
  const m = readManifest(manifest, { allow: ws.allowedRoots });
  const tasks: TaskSummary[] = m.tasks.map((t) => ({
    id: t.id,
    file: t.file,
    qualname: t.qualname,
    requirement: t.requirement,
    signature: t.signature,
    shape: t.check_template !== undefined ? 'check-template' : 'repository',
    hasReference: !!t.reference,
  }));
  return { manifest: m.file, hash: m.hash, tasks };
}

function runTask(ws: Workspace, input: ParsedInput<'task.run'>): { jobId: string } {
  let manifest: Manifest;
  let task: Task;
  if (input.custom) {
    manifest = customManifest(ws, input.custom);
    task = manifest.tasks[0]!;
  } else {
    // Its tasks' repositories must lie in the manifest's folder (itself inside an allowed root) or an allowed root.
    manifest = readManifest(input.manifest!, { allow: ws.allowedRoots });
    const found = manifest.tasks.find((t) => t.id === input.taskId);
    if (!found) fail('not-found', `no task ${input.taskId} in ${manifest.file} (${manifest.tasks.length} tasks)`);
    task = found!;
  }
  const plan = planAppRun(ws, { kind: 'run', manifest: manifest.file, taskIds: [task.id], methods: input.methods }, input.sources);
  checkBackend(ws, plan.request.backend);
  const job = startExperimentJob(ws, 'task', `${task.id} — ${plan.conditions.map((c) => c.id).join(', ')}`, { ...plan, detail: 'full' });
  return { jobId: job.id };
}

export function taskCalls(ws: Workspace): CallTable<'tasks.list' | 'task.run'> {
  return {
    'tasks.list': ({ manifest }) => listTasks(ws, manifest),
    'task.run': (input) => runTask(ws, input),
  };
}
