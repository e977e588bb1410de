// The engine service in tests: one opened in a home folder of its own (browser mode, no demo, nothing from the
// environment unless given), a call's value (or a throw naming the call and its error), and a job awaited until
// it leaves `running`. Shared by the service tests.

import fs from 'node:fs';
import path from 'node:path';
import type { JobInfo } from '../../contract/index.ts';
import { createEngineService, type EngineService } from '../../main/host/service.ts';

/** A service whose database, settings and data live in `root/name`, allowed to open anything under `root`. */
export function openService(root: string, name: string, extra: Partial<Parameters<typeof createEngineService>[0]> = {}): Promise<EngineService> {
  const home = path.join(root, name);
  fs.mkdirSync(home, { recursive: true });
  return createEngineService({
    dbPath: path.join(home, 'w.db'),
    mode: 'browser',
    allowedRoots: [root],
    settingsFile: path.join(home, 'settings.json'),
    dataDir: path.join(home, 'data'),
    demo: false,
    env: {},
    ...extra,
  });
}

export async function ok<T = unknown>(s: EngineService, name: string, input: unknown = {}): Promise<T> {
  const r = await s.call(name, input);
  if (!r.ok) throw new Error(`${name} failed: ${JSON.stringify(r.error)}`);
  return r.value as T;
}

/** Resolves with the job once it leaves `running` (checked against job.list too, so no event can be missed). */
export function settled(s: EngineService, jobId: string, timeoutMs = 90_000): Promise<JobInfo> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`job ${jobId} did not finish in ${timeoutMs} ms`)), timeoutMs);
    const finish = (j: JobInfo) => {
      clearTimeout(timer);
      off();
      resolve(j);
    };
    const off = s.subscribe((e) => {
      if (e.type === 'job' && e.job.id === jobId && e.job.state !== 'running') finish(e.job);
    });
    void s.call('job.list', {}).then((r) => {
      const j = r.ok ? (r.value as JobInfo[]).find((x) => x.id === jobId) : undefined;
      if (j && j.state !== 'running') finish(j);
    });
  });
}
