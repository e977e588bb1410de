// @vitest-environment happy-dom
// Issue 31 in the renderer: toasts leave (information and warnings after a few seconds, not while the pointer rests
// on one; errors stay until closed), and a job card tells the truth about its state (a finished job is full and
// still, an unknown total is said in words, only running work moves, paused says paused).

import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineApi, JobInfo } from '../../contract/index.ts';
import { Toasts } from '../../renderer/src/components/Toasts.tsx';
import { JobCard } from '../../renderer/src/components/ui.tsx';
import { createAppStore, installStore, NOTICE_MAX, NOTICE_MERGE_MS, NOTICE_TTL_MS, type AppStore } from '../../renderer/src/store.ts';
import { jobInfo } from '../helpers/job-info.ts';
import { mountPerTest } from './dom.ts';

const mount = mountPerTest();
const { $, q } = mount;

const api: EngineApi = {
  call: () => Promise.reject(new Error('no engine in this test')),
  subscribe: () => () => {},
};

const INFO_TTL = NOTICE_TTL_MS.info!;
const WARNING_TTL = NOTICE_TTL_MS.warning!;
const messages = (store: AppStore) => store.getState().notices.map((n) => n.message);

describe('toasts', () => {
  let store: AppStore;
  beforeEach(() => {
    vi.useFakeTimers();
    store = createAppStore(api);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an information toast leaves after its spell, a warning after its own; an error stays until dismissed', () => {
    expect(INFO_TTL).toBeGreaterThan(0);
    expect(WARNING_TTL).toBeGreaterThan(0);
    expect(NOTICE_TTL_MS.error).toBeNull();
    store.getState().notify('info', 'OpenCoder may now open /data/repo');
    store.getState().notify('warning', 'the price table is old');
    store.getState().notify('error', 'could not list jobs: down');
    vi.advanceTimersByTime(INFO_TTL - 1);
    expect(messages(store)).toContain('OpenCoder may now open /data/repo');
    vi.advanceTimersByTime(1);
    expect(messages(store)).not.toContain('OpenCoder may now open /data/repo');
    vi.advanceTimersByTime(Math.max(0, WARNING_TTL - INFO_TTL));
    expect(messages(store)).toEqual(['could not list jobs: down']);
    vi.advanceTimersByTime(60 * 60_000);
    expect(messages(store)).toEqual(['could not list jobs: down']);
    store.getState().dismissNotice(store.getState().notices[0]!.id);
    expect(store.getState().notices).toEqual([]);
  });

  it('a repeat is counted on the shown toast and keeps it for another full spell', () => {
    store.getState().notify('info', 'reconnected');
    // Again within the merge window, shortly before the first would have left.
    vi.advanceTimersByTime(Math.min(NOTICE_MERGE_MS, INFO_TTL) - 1);
    store.getState().notify('info', 'reconnected');
    vi.advanceTimersByTime(INFO_TTL - 1);
    expect(store.getState().notices).toMatchObject([{ message: 'reconnected', count: 2 }]);
    vi.advanceTimersByTime(1);
    expect(store.getState().notices).toEqual([]);
  });

  it('never stacks past the limit: the oldest goes, and no timer of a dropped toast removes a newer one', () => {
    for (let i = 0; i < NOTICE_MAX + 3; i++) store.getState().notify('error', `error ${i}`);
    expect(messages(store)).toEqual(Array.from({ length: NOTICE_MAX }, (_, i) => `error ${i + 3}`));
  });

  it('stays while the pointer rests on it, and leaves a full spell after the pointer leaves', () => {
    installStore(store, api);
    store.getState().notify('info', 'OpenCoder may now open /data/repo');
    act(() => mount.root.render(<Toasts />));
    const toast = $('[data-testid=notice]')!;
    act(() => {
      toast.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    });
    act(() => {
      vi.advanceTimersByTime(10 * INFO_TTL);
    });
    expect(q('[data-testid=notice]')).toHaveLength(1);
    act(() => {
      toast.dispatchEvent(new MouseEvent('mouseout', { bubbles: true }));
    });
    act(() => {
      vi.advanceTimersByTime(INFO_TTL - 1);
    });
    expect(q('[data-testid=notice]')).toHaveLength(1);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect($('[data-testid=notices]')).toBeNull();
  });

  it('can be closed, one or all at once', () => {
    installStore(store, api);
    store.getState().notify('error', 'first');
    store.getState().notify('error', 'second');
    store.getState().notify('warning', 'third');
    act(() => mount.root.render(<Toasts />));
    act(() => $('[data-testid=notice-close]')!.click());
    expect(q('[data-testid=notice]').map((n) => n.querySelector('.toast-text')!.textContent)).toEqual(['second', 'third']);
    act(() => $('[data-testid=notices-dismiss-all]')!.click());
    expect($('[data-testid=notices]')).toBeNull();
  });
});

describe('the job card says what the job is doing', () => {
  const render = (job: JobInfo) => act(() => mount.root.render(<JobCard job={job} />));
  const bar = () => $('[data-testid=job-progress]')!;
  const countText = () => $('[data-testid=job-count]')!.textContent;
  const fill = () => (bar().firstElementChild as HTMLElement).style.width;

  it('a finished index job with nothing to embed: full, still, "done", no question mark', () => {
    render(jobInfo({ state: 'done', progress: { phase: 'embed', done: 0, total: 0 } }));
    expect(bar().dataset.animated).toBe('false');
    expect(bar().classList.contains('progress-indeterminate')).toBe(false);
    expect(fill()).toBe('100.0%');
    expect(countText()).toBe('done: nothing to embed');
    expect($('[data-testid=job-card]')!.textContent).not.toContain('?');
  });

  it('running with an unknown total: moves, and says so in words', () => {
    render(jobInfo({ progress: { phase: 'scan', done: 0, total: 0 } }));
    expect(bar().dataset.animated).toBe('true');
    expect(countText()).toBe('total not known yet');
    render(jobInfo({ progress: { phase: 'scan', done: 40, total: 0 } }));
    expect(countText()).toBe('40 so far, total not known yet');
  });

  it('paused: still, where it stopped, and says paused; stopped jobs are still too', () => {
    render(jobInfo({ state: 'paused', progress: { phase: 'parse', done: 1, total: 25 } }));
    expect(bar().dataset.animated).toBe('false');
    expect(bar().dataset.state).toBe('paused');
    expect(fill()).toBe('4.0%');
    expect(countText()).toBe('paused at 1 / 25');
    render(jobInfo({ state: 'paused', progress: { phase: 'scan', done: 0, total: 0 } }));
    expect(bar().dataset.animated).toBe('false');
    render(jobInfo({ state: 'cancelled', progress: { phase: 'parse', done: 3, total: 25 } }));
    expect(bar().dataset.animated).toBe('false');
    expect(countText()).toBe('stopped at 3 / 25');
  });

  it('a finished experiment keeps its count; a job with no progress yet says it is starting, a finished one that it is done', () => {
    render(jobInfo({ kind: 'experiment', state: 'done', progress: { phase: 'run', done: 10, total: 10, etaMs: 5000 } }));
    expect(countText()).toBe('done: 10 / 10');
    expect($('[data-testid=job-card]')!.textContent).not.toContain('ETA');
    render(jobInfo({ kind: 'experiment', progress: null }));
    expect(bar().dataset.animated).toBe('true');
    expect(countText()).toBe('starting…');
    render(jobInfo({ kind: 'experiment', state: 'done', progress: null }));
    expect(bar().dataset.animated).toBe('false');
    expect(countText()).toBe('done');
  });
});
