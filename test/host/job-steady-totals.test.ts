// Issue 31, item 2: an index job paused at "parse 32 / 60" resumes at "parse 32 / 60", not "parse 0 / 28". The
// resumed launch of the indexer plans only the files not yet written (the cause of the shrinking total); the job
// keeps each phase's total from before and counts the files written then as done. Also: the job's count never goes
// past its total, ends full, and a job whose counts already span its launches (an experiment) is left alone.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineEvent, JobInfo, JobProgress } from '../../contract/index.ts';
import { startIndexJob } from '../../main/host/calls/indexing.ts';
import { JobManager } from '../../main/host/jobs.ts';
import type { Workspace } from '../../main/host/workspace.ts';
import { Store } from '../../main/store/store.ts';
import { fakeEncoder } from '../helpers/fake-encoder.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
});

const FILES = 60;

/** The parts of a workspace an index job uses, around a real store, a real job manager (no throttle) and a fake encoder. */
function workspace(onJob: (job: JobInfo, ws: { jobs: JobManager }) => void) {
  const dbDir = tmpDir('oc-steady-db-');
  cleanup.push(dbDir);
  const store = Store.open(path.join(dbDir, 'w.db'));
  const ws = {
    store,
    encoder: fakeEncoder(),
    indexLocks: new Map<string, Promise<unknown>>(),
    indexJobs: new Map<string, string>(),
    emit: (_e: EngineEvent) => {},
    jobs: null as unknown as JobManager,
  };
  ws.jobs = new JobManager((e) => e.type === 'job' && onJob(e.job, ws), { throttleMs: 0 });
  return { ws: ws as unknown as Workspace, store };
}

describe('an index job paused and resumed', () => {
  it('keeps the parse total and goes on counting from where it stopped', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++) files[`pkg/m${i}.py`] = `def f${i}(a, b):\n    """Add ${i}."""\n    return a + b + ${i}\n`;
    const repo = makeRepo(files, 'oc-steady-repo-');
    cleanup.push(repo);

    const parse: { launch: number; p: JobProgress }[] = [];
    let launch = 1;
    let pausedOnce = false;
    const { ws, store } = workspace((job, w) => {
      const p = job.progress;
      if (job.state !== 'running' || !p) return;
      // The resumed launch's own counts begin with its scan (its first event still shows where the pause left it).
      if (launch === 2 && p.phase === 'scan') launch = 3;
      if (p.phase !== 'parse') return;
      parse.push({ launch, p: { ...p } });
      // Paused once files are written: the writer holds fewer than 32 parsed files, so 32 parsed means one written.
      if (!pausedOnce && p.done >= 32) {
        pausedOnce = true;
        w.jobs.pause(job.id);
      }
    });
    try {
      const started = startIndexJob(ws, repo);
      const paused = await ws.jobs.wait(started.id);
      expect(paused.state).toBe('paused');
      const at = paused.progress!;
      expect(at).toMatchObject({ phase: 'parse', total: FILES });
      expect(at.done).toBeGreaterThanOrEqual(32);
      expect(at.done).toBeLessThan(FILES);
      const written = store.catalog(store.listRepositories()[0]!.id).size;
      // What made the total shrink: the resumed launch has only the unwritten files to parse.
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(FILES);

      launch = 2;
      ws.jobs.resume(started.id);
      const done = await ws.jobs.wait(started.id);
      expect(done.state).toBe('done');
      const resumed = parse.filter((x) => x.launch === 3 && x.p.total > 0).map((x) => x.p);
      expect(resumed.length).toBe(FILES - written);
      // Every count of the resumed launch is of the same total, starts at the files written before, and ends full.
      expect(new Set(resumed.map((p) => p.total))).toEqual(new Set([FILES]));
      expect(resumed[0]!.done).toBe(written + 1);
      expect(resumed.at(-1)!.done).toBe(FILES);
      for (let i = 1; i < resumed.length; i++) expect(resumed[i]!.done).toBeGreaterThan(resumed[i - 1]!.done);
    } finally {
      await ws.jobs.close();
      store.close();
    }
  }, 120_000);
});

describe('steady totals in the job manager', () => {
  /** A job whose launches report `plan(launch)`: [done, total] pairs, pausing itself after the first launch. */
  function run(steadyTotals: boolean, plan: (launch: number) => [number, number][]) {
    const seen: JobProgress[][] = [[], []];
    const jobs = new JobManager(() => {}, { throttleMs: 0 });
    let launch = 0;
    const fn = async (ctx: { signal: AbortSignal; progress: (p: JobProgress) => void }) => {
      const mine = launch++;
      for (const [done, total] of plan(mine)) {
        ctx.progress({ phase: 'run', done, total });
        seen[mine]!.push({ ...jobs.get(id)!.progress! });
      }
      if (mine === 0) {
        jobs.pause(id);
        throw new Error('stopped');
      }
    };
    const id = jobs.start('index', 'job', fn, { pausable: true, resumable: true, steadyTotals }).id;
    return { jobs, id, seen };
  }

  it('leaves counts that already span the launches as they are (an experiment counts the pairs stored before)', async () => {
    const { jobs, id, seen } = run(true, (l) =>
      l === 0
        ? [
            [1, 10],
            [2, 10],
          ]
        : [
            [3, 10],
            [10, 10],
          ],
    );
    await jobs.wait(id);
    jobs.resume(id);
    await jobs.wait(id);
    expect(seen[1]!.map((p) => [p.done, p.total])).toEqual([
      [3, 10],
      [10, 10],
    ]);
  });

  it('without the option, a launch shows its own counts', async () => {
    const { jobs, id, seen } = run(false, (l) => (l === 0 ? [[2, 10]] : [[0, 8]]));
    await jobs.wait(id);
    jobs.resume(id);
    await jobs.wait(id);
    expect(seen[1]!.map((p) => [p.done, p.total])).toEqual([[0, 8]]);
  });
});
