// Calls about the engine itself: app.info (version, mode, encoder, sandbox, keys, allowed roots) and the job
// controls (job.list, job.cancel, job.pause, job.resume).

import path from 'node:path';
import { CONTRACT_VERSION, type AppInfo } from '../../../contract/index.ts';
import { appInfo } from '../../experiment/runner.ts';
import { detectSandbox } from '../../validate/sandbox.ts';
import { messageOf } from '../jobs.ts';
import { packageRoot, sampleRepoPath } from '../paths.ts';
import type { Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';

async function info(ws: Workspace): Promise<AppInfo> {
  let sandbox: string;
  try {
    sandbox = (await detectSandbox({ mode: ws.settings.sandbox })).label;
  } catch (err) {
    sandbox = `unavailable: ${messageOf(err)}`;
  }
  return {
    contract: CONTRACT_VERSION,
    version: appInfo(packageRoot()).version,
    mode: ws.mode,
    dbPath: ws.store.path,
    encoder: { name: ws.encoder.name, notice: ws.encoderNotice },
    sandbox,
    sampleRepo: sampleRepoPath(),
    sampleManifest: path.join(sampleRepoPath(), 'tasks.jsonl'),
    allowedRoots: [...ws.allowedRoots],
    keys: ws.keyFlags(),
    keyStorage: ws.keys.kind,
    folderPicker: !!ws.pickFolder,
  };
}

export function appCalls(ws: Workspace): CallTable<'app.info' | 'job.list' | 'job.cancel' | 'job.pause' | 'job.resume'> {
  return {
    'app.info': () => info(ws),
    'job.list': () => ws.jobs.list(),
    'job.cancel': ({ jobId }) => ws.jobs.cancel(jobId),
    'job.pause': ({ jobId }) => ws.jobs.pause(jobId),
    'job.resume': ({ jobId }) => ws.jobs.resume(jobId),
  };
}
