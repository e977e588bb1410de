// A running index job as the engine reports it, for the renderer's store tests; `over` changes what a test needs.

import type { JobInfo } from '../../contract/index.ts';

export function jobInfo(over: Partial<JobInfo> = {}): JobInfo {
  return {
    id: 'job-1',
    kind: 'index',
    state: 'running',
    title: 'Index repo',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: null,
    progress: { phase: 'parse', done: 1, total: 10 },
    error: null,
    result: null,
    ...over,
  };
}
