// @vitest-environment happy-dom
// A queued run's job card lists the queue's waiting jobs and each worker with the jobs it runs and has done, and
// says how to start a worker while none has taken a job; a run in this process shows no such list.
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import type { JobInfo, JobProgress } from '../../contract/index.ts';
import { JobCard } from '../../renderer/src/components/ui.tsx';
import { mountPerTest } from './dom.ts';

const mount = mountPerTest();
const { $, q } = mount;

function job(progress: Partial<JobProgress>, state: JobInfo['state'] = 'running'): JobInfo {
  return {
    id: 'j1',
    kind: 'experiment',
    state,
    title: 'Experiment: run',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: null,
    progress: { phase: 'run', done: 3, total: 10, ...progress },
    error: null,
    result: null,
  };
}

describe('the job card of a queued run', () => {
  it('lists the waiting jobs and every worker with its running and done counts', () => {
    const workers = [
      { name: 'gpu-box:4121', active: 2, done: 1 },
      { name: 'laptop:77', active: 0, done: 1200 },
    ];
    act(() => mount.root.render(<JobCard job={job({ workers, queued: 5, message: 't/1 / opencoder: correct (on laptop:77)' })} />));
    const list = $('[data-testid=job-workers]')!;
    expect(list.textContent).toContain('queue: 5 waiting');
    expect(q('[data-testid=job-worker]').map((r) => r.textContent)).toEqual(['gpu-box:4121 — 2 running, 1 done', 'laptop:77 — 0 running, 1,200 done']);
    expect(list.textContent).not.toContain('no worker');
  });

  it('says how to start a worker while none has taken a job', () => {
    act(() => mount.root.render(<JobCard job={job({ workers: [], queued: 10 })} />));
    expect($('[data-testid=job-workers]')!.textContent).toContain('queue: 10 waiting');
    expect(q('[data-testid=job-worker]')).toHaveLength(0);
    expect($('[data-testid=job-workers]')!.textContent).toContain('no worker has taken a job yet — start one with: opencoder worker --queue URL');
  });

  it('a finished run with no worker does not ask for one; a run in this process has no list', () => {
    act(() => mount.root.render(<JobCard job={job({ workers: [] }, 'cancelled')} />));
    expect($('[data-testid=job-workers]')!.textContent).toBe('no worker took a job');
    act(() => mount.root.render(<JobCard job={job({})} />));
    expect($('[data-testid=job-workers]')).toBeNull();
    expect($('[data-testid=job-count]')!.textContent).toBe('3 / 10');
  });
});
