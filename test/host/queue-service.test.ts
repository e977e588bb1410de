// The desktop side of a queued run: with a queue in the settings, a task runs through a private redis-server and
// a worker in this process, and the job's progress — checked against the contract's event schema — names the
// worker with its counts and the jobs waiting, says when no worker has taken a job yet, and which worker ran the
// pair.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineEventSchema, type EngineEvent, type JobProgress, type Settings } from '../../contract/index.ts';
import { parseQueueUrl } from '../../main/experiment/queue/url.ts';
import { startQueueWorker, type RunningWorker } from '../../main/experiment/queue/worker.ts';
import { DEFAULT_PRICES } from '../../main/generate/cost.ts';
import { OfflineBackend } from '../../main/generate/offline-backend.ts';
import { sampleRepoPath } from '../../main/host/paths.ts';
import type { EngineService } from '../../main/host/service.ts';
import { openEncoderFor } from '../../main/host/workspace.ts';
import type { Encoder } from '../../main/model/encoder.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { ok, openService, settled } from '../helpers/service-calls.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { needs } from '../helpers/system.ts';

const REDIS = needs('redis-server');
const MANIFEST = path.join(sampleRepoPath(), 'tasks.jsonl');

describe.skipIf(REDIS.skip)(`a queued run from the desktop${REDIS.note}`, () => {
  const dir = tmpDir('oc-queue-service-');
  let redis: TestRedis;
  let s: EngineService;
  let encoder: Encoder | undefined;
  let worker: RunningWorker | undefined;
  beforeAll(async () => {
    redis = await startRedis();
    await copyIndexedSample(path.join(dir, 'q', 'w.db'));
    s = await openService(dir, 'q');
  }, 120_000);
  afterAll(async () => {
    await worker?.close();
    await encoder?.dispose();
    await s?.close();
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the worker, its jobs and the queue in the job progress, all valid events', async () => {
    expect(await ok<Settings>(s, 'settings.set', { queue: redis.url })).toMatchObject({ queue: redis.url });
    const events: EngineEvent[] = [];
    let sawNoWorker!: () => void;
    const noWorker = new Promise<void>((resolve) => (sawNoWorker = resolve));
    const off = s.subscribe((e) => {
      events.push(EngineEventSchema.parse(e));
      if (e.type === 'job' && e.job.progress?.workers?.length === 0) sawNoWorker();
    });
    try {
      const { jobId } = await ok<{ jobId: string }>(s, 'task.run', {
        manifest: MANIFEST,
        taskId: 'inventory/apply_discount',
        methods: ['opencoder', 'baseline-rag'],
      });
      await noWorker; // queued, nobody working it yet
      const queuedAt = events.flatMap((e) => (e.type === 'job' && e.job.id === jobId && e.job.progress?.workers ? [e.job.progress] : []))[0]!;
      expect(queuedAt).toMatchObject({ workers: [], queued: 2, message: expect.stringMatching(/^queued 2 pairs on redis:\/\/127\.0\.0\.1:\d+$/) });

      encoder = (await openEncoderFor('auto')).encoder;
      worker = await startQueueWorker({
        queue: parseQueueUrl(redis.url, {}),
        encoder,
        prices: DEFAULT_PRICES,
        makeBackend: () => new OfflineBackend(),
        cacheDir: fs.mkdtempSync(path.join(os.tmpdir(), 'oc-queue-service-cache-')),
        name: 'desk-worker',
      });
      const job = await settled(s, jobId, 180_000);
      expect(job, JSON.stringify(job)).toMatchObject({ state: 'done', progress: { done: 2, total: 2 } });
      const seen: JobProgress[] = events.flatMap((e) => (e.type === 'job' && e.job.id === jobId && e.job.progress ? [e.job.progress] : []));
      expect(seen.some((p) => p.workers?.some((w) => w.name === 'desk-worker' && w.done >= 1))).toBe(true);
      expect(seen.some((p) => /^inventory\/apply_discount \/ (opencoder|baseline-rag): .* \(on desk-worker\)$/.test(p.message ?? ''))).toBe(true);
      // The last pair's line and the workers stay on the finished job's card.
      expect(job.progress!.message).toMatch(/\(on desk-worker\)$/);
      expect(job.progress!.workers!.map((w) => w.name)).toEqual(['desk-worker']);
      expect(worker.finished).toBe(2);
    } finally {
      off();
    }
  }, 240_000);
});
