// Issue 32: one way in. The same run asked for through the CLI, through the app, and with its pairs on a queue
// worker stores the same backend record and the same request record, byte for byte; a resume by the app reads them
// back and leaves them as they were; the worker builds its backend from exactly the stored record. Old runs, stored
// with the earlier backend shape, still read and resume.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobInfo } from '../../contract/index.ts';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import { parseQueueUrl } from '../../main/experiment/queue/url.ts';
import { startQueueWorker } from '../../main/experiment/queue/worker.ts';
import { OfflineBackend } from '../../main/generate/offline-backend.ts';
import type { BackendSpec } from '../../main/model/backend-spec.ts';
import { defaultModelsDir, sampleRepoPath } from '../../main/host/paths.ts';
import type { EngineService } from '../../main/host/service.ts';
import { cli } from '../helpers/cli.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { ok, openService, settled } from '../helpers/service-calls.ts';
import { needs } from '../helpers/system.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const MANIFEST = path.join(sampleRepoPath(), 'tasks.jsonl');
const TASKS = ['inventory/apply_discount', 'inventory/parse_money'];
const FLAGS = ['--backend', 'offline', '--method', 'baseline-rag', '--ids', TASKS.join(','), '--candidates', '2', '--temperature', '0.3'];
const FLAGS_JSON = ['--unverified-output', 'first', '--encoder', 'default'];
const APP_REQUEST = { manifest: MANIFEST, kind: 'run', methods: ['baseline-rag'], taskIds: TASKS, candidates: 2, temperature: 0.3, unverifiedOutput: 'first' };

interface Records {
  backend: string;
  options: string;
}

describe('one request per run', () => {
  const dir = tmpDir('oc-one-request-');
  const db = path.join(dir, 'app', 'w.db');
  let s: EngineService;
  const records = (runId: string): Records => {
    const d = new Database(db, { readonly: true });
    try {
      return d.prepare('SELECT backend, options FROM experiment_runs WHERE id = ?').get(runId) as Records;
    } finally {
      d.close();
    }
  };
  const cliRun = async (extra: string[] = []) => {
    const r = await cli(['run', '--manifest', MANIFEST, ...FLAGS, ...FLAGS_JSON, '--db', db, '--quiet', '--json', ...extra]);
    expect(r.code, r.text).toBe(0);
    return r.json().runId as string;
  };

  beforeAll(async () => {
    s = await openService(dir, 'app', { allowedRoots: [dir, sampleRepoPath()] });
    await ok(s, 'settings.set', { encoder: 'default' });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the CLI and the app store the same bytes for the same request, and an app resume keeps them', async () => {
    const fromCli = await cliRun();
    const stored = records(fromCli);
    const request = JSON.parse(stored.options);
    expect(request).toMatchObject({
      kind: 'run',
      manifest: MANIFEST,
      taskIds: TASKS,
      methods: ['baseline-rag'],
      candidates: 2,
      temperature: 0.3,
      unverifiedOutput: 'first',
      backend: { kind: 'offline' },
      decompose: 'fallback',
      sandbox: 'auto',
      parallel: 2,
    });
    expect(JSON.parse(stored.backend)).toEqual({ kind: 'offline' });

    const { jobId } = await ok<{ jobId: string }>(s, 'experiment.start', APP_REQUEST);
    const job = await settled(s, jobId, 240_000);
    expect(job.state, JSON.stringify(job)).toBe('done');
    const fromApp = (job.result as { runId: string }).runId;
    expect(records(fromApp)).toEqual(stored);

    // Killed halfway: one pair's result gone, the run left cancelled. The app resumes it from its stored request.
    const d = new Database(db);
    d.prepare('DELETE FROM experiment_results WHERE run_id = ? AND task_id = ?').run(fromCli, TASKS[1]);
    d.prepare("UPDATE experiment_runs SET status = 'cancelled', pid = NULL WHERE id = ?").run(fromCli);
    d.close();
    const resumed = await ok<{ jobId: string }>(s, 'experiment.resume', { runId: fromCli });
    const end: JobInfo = await settled(s, resumed.jobId, 240_000);
    expect(end.state, JSON.stringify(end)).toBe('done');
    expect(records(fromCli)).toEqual(stored);
  }, 600_000);

  const REDIS = needs('redis-server');
  describe.skipIf(REDIS.skip)(`on a queue${REDIS.note}`, () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('a queued run stores the same bytes, and its worker builds the backend from exactly that record', async () => {
      const local = records(await cliRun());
      const { encoder } = await openConfiguredEncoder({ prefer: 'default', modelsDir: defaultModelsDir() });
      const seen: BackendSpec[] = [];
      const worker = await startQueueWorker({
        queue: parseQueueUrl(redis.url, {}),
        encoder,
        prices: { models: {} } as never,
        makeBackend: (spec) => {
          seen.push(spec);
          return new OfflineBackend();
        },
        cacheDir: path.join(dir, 'cache'),
        backends: ['offline'],
      });
      try {
        const queued = await cliRun(['--queue', redis.url]);
        expect(records(queued)).toEqual(local);
        expect(seen.length).toBeGreaterThan(0);
        for (const spec of seen) expect(JSON.stringify(spec)).toBe(local.backend);
      } finally {
        await worker.close();
        await encoder.dispose();
      }
    }, 600_000);
  });

  it('a run stored with the old backend shape reads back and resumes', async () => {
    const id = await cliRun();
    const d = new Database(db);
    d.prepare('UPDATE experiment_runs SET backend = ?, options = ? WHERE id = ?').run(
      JSON.stringify({ kind: 'offline', model: null, baseURL: null, decompose: 'fallback', extra: {} }),
      JSON.stringify({ parallel: 2, sandbox: 'auto', source: 'desktop experiment' }),
      id,
    );
    d.prepare('DELETE FROM experiment_results WHERE run_id = ? AND task_id = ?').run(id, TASKS[0]);
    d.prepare("UPDATE experiment_runs SET status = 'cancelled', pid = NULL WHERE id = ?").run(id);
    d.close();
    const r = await cli(['run', '--resume', id, '--db', db, '--encoder', 'default', '--quiet', '--json']);
    expect(r.code, r.text).toBe(0);
    expect(r.json().outcome).toMatchObject({ status: 'done', ran: 1, resumed: 1 });
  }, 300_000);
});
