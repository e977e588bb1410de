// Issue 17, item 7: a pause or cancel is acknowledged by the engine the moment it is asked for — a `job` event
// with `stopping` set goes out before the job has stopped — and the final state clears it.

import { describe, expect, it } from 'vitest';
import type { EngineEvent, JobInfo } from '../../contract/index.ts';
import { JobManager } from '../../main/host/jobs.ts';

/** A job that runs until its signal aborts, then takes `release()` to finish its current step. */
function slowJob() {
  let release: () => void = () => {};
  const stepDone = new Promise<void>((r) => (release = r));
  const fn = async (ctx: { signal: AbortSignal }) => {
    await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
    await stepDone;
  };
  return { fn, release: () => release() };
}

describe('pause and cancel acknowledgement', () => {
  for (const action of ['pause', 'cancel'] as const) {
    it(`${action}: sends the stopping event at once and clears it when the job stops`, async () => {
      const events: JobInfo[] = [];
      const jobs = new JobManager((e: EngineEvent) => e.type === 'job' && events.push(e.job), { throttleMs: 0 });
      const job = slowJob();
      const started = jobs.start('index', 'Index big', job.fn, { pausable: true, resumable: true });
      const answered = action === 'pause' ? jobs.pause(started.id) : jobs.cancel(started.id);
      const want = action === 'pause' ? 'paused' : 'cancelled';
      // Answered and announced before the job has stopped.
      expect(answered).toMatchObject({ state: 'running', stopping: want });
      expect(events.at(-1)).toMatchObject({ state: 'running', stopping: want });
      job.release();
      const end = await jobs.wait(started.id);
      expect(end).toMatchObject({ state: want, stopping: null });
      expect(events.at(-1)).toMatchObject({ state: want, stopping: null });
    });
  }

  it('a pause asked after a cancel does not turn the cancel into a pause', async () => {
    const jobs = new JobManager(() => {}, { throttleMs: 0 });
    const job = slowJob();
    const started = jobs.start('index', 'Index big', job.fn, { pausable: true, resumable: true });
    jobs.cancel(started.id);
    expect(jobs.pause(started.id).stopping).toBe('cancelled');
    job.release();
    expect((await jobs.wait(started.id)).state).toBe('cancelled');
  });
});
