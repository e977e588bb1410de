// @vitest-environment happy-dom
// The Repository view's "Find tasks": the button starts repo.mine for the open repository (its options checked at
// their fields first), the mining job's card shows with its phase and Pause / Cancel, and a finished set shows its
// counts, its kept and dropped tasks, and hands its manifest to the Experiment or the Ablation view.
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CallName, EngineApi, JobInfo, MinedSet, RepoSummary } from '../../contract/index.ts';
import { EngineCallError } from '../../contract/index.ts';
import { createAppStore, getStore, installStore } from '../../renderer/src/store.ts';
import { FindTasks } from '../../renderer/src/views/repository/FindTasks.tsx';
import { mountPerTest } from './dom.ts';
import { minedSetFixture } from '../helpers/mined-set-fixture.ts';

const ROOT = '/home/u/code/shop';
const OUT = '/data/benchmarks/mined-shop';

const REPO: RepoSummary = {
  id: 1,
  root: ROOT,
  name: 'shop',
  lastIndexedAt: '2026-01-02T10:00:00.000Z',
  files: 4,
  otherFiles: 0,
  units: { function: 9 },
  chunks: 12,
  apiEntries: 9,
  embedded: 30,
  encoder: 'opencoder-subtoken-hash-256',
  skipped: {},
  testFiles: {},
};

const mineJob = (state: JobInfo['state'], progress: JobInfo['progress']): JobInfo => ({
  id: 'mine-1-abc',
  kind: 'mine',
  state,
  title: 'Find tasks in shop',
  startedAt: '2026-01-02T10:01:00.000Z',
  finishedAt: state === 'running' ? null : '2026-01-02T10:02:00.000Z',
  progress,
  error: null,
  result: { mined: { folder: ROOT, out: OUT } },
});

const SET: MinedSet = minedSetFixture(OUT, 0.875);

const calls: { name: string; input: unknown }[] = [];
let listed: JobInfo[] = [];
/** repo.mined answers a stopped run's set. */
let partial = false;

function fakeApi(): EngineApi {
  return {
    async call(name: CallName, input: unknown) {
      calls.push({ name, input });
      if (name === 'repo.mine') return { jobId: 'mine-1-abc', out: OUT } as never;
      if (name === 'job.list') return listed as never;
      if (name === 'repo.mined') return (partial ? { ...SET, complete: false, manifest: null, report: null } : SET) as never;
      if (name === 'tasks.list') return { manifest: (input as { manifest: string }).manifest, hash: 'h', tasks: [] } as never;
      throw new EngineCallError({ code: 'unsupported', message: `not in this test: ${name}` });
    },
    subscribe: () => () => {},
  };
}

beforeEach(() => {
  calls.length = 0;
  listed = [];
  partial = false;
  const api = fakeApi();
  installStore(createAppStore(api), api);
});
const mount = mountPerTest();
const { $, q } = mount;

async function show(jobs: JobInfo[] = []) {
  act(() => getStore().setState({ jobs, view: 'repository' }));
  await act(async () => mount.root.render(<FindTasks repo={REPO} />));
}

function type(testId: string, text: string) {
  const input = $(`[data-testid=${testId}]`) as HTMLInputElement;
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  act(() => {
    setter.call(input, text);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

describe('Find tasks', () => {
  it('starts repo.mine for the open repository and shows the job with its phase, Pause and Cancel', async () => {
    await show();
    listed = [mineJob('running', { phase: 'checks', done: 12, total: 47, message: '12/47 shop.pricing.apply_discount: kept' })];
    await act(async () => $('[data-testid=find-tasks-start]')!.click());
    expect(calls.find((c) => c.name === 'repo.mine')?.input).toEqual({ path: ROOT });
    const card = $('[data-testid=mine-job]')!;
    expect(card.querySelector('[data-testid=job-phase]')!.textContent).toBe('checks');
    expect(card.querySelector('[data-testid=job-count]')!.textContent).toBe('12 / 47');
    expect(card.querySelector('[data-testid=job-pause]')).not.toBeNull();
    expect(card.querySelector('[data-testid=job-cancel]')).not.toBeNull();
    expect(($('[data-testid=find-tasks-start]') as HTMLButtonElement).disabled).toBe(true);
    // Nothing to read until it stops.
    expect($('[data-testid=mined-set]')).toBeNull();
  });

  it('checks its options at their fields before calling, and passes those given', async () => {
    await show();
    await act(async () => $('[data-testid=find-tasks-options-toggle]')!.click());
    type('mine-limit', '0');
    await act(async () => $('[data-testid=find-tasks-start]')!.click());
    expect(calls.some((c) => c.name === 'repo.mine')).toBe(false);
    expect(mount.container.textContent).toContain('a whole number of tasks, at least 1');
    type('mine-limit', '20');
    type('mine-seed', '7');
    type('mine-test-command', ' python3 -m pytest tests ');
    await act(async () => $('[data-testid=find-tasks-start]')!.click());
    expect(calls.find((c) => c.name === 'repo.mine')?.input).toEqual({ path: ROOT, limit: 20, seed: 7, testCommand: 'python3 -m pytest tests' });
  });

  it('shows a finished set: the counts, the kept and dropped tasks, and hands the manifest to the Experiment view', async () => {
    await show([mineJob('done', { phase: 'freeze', done: 0, total: 0, message: 'writing tasks.jsonl and MINE.md' })]);
    expect(calls.find((c) => c.name === 'repo.mined')?.input).toEqual({ out: OUT });
    expect($('[data-testid=mined-candidates] dd')!.textContent).toBe('3');
    expect($('[data-testid=mined-kept-count] dd')!.textContent).toBe('1');
    expect($('[data-testid=mined-median-score] dd')!.textContent).toBe('0.875');
    const kept = $('[data-testid=mined-task][data-task-id="shop.pricing.apply_discount"]')!;
    expect(kept.textContent).toContain('shop/pricing.py:32');
    expect(kept.querySelector('[data-testid=mined-score]')!.textContent).toBe('0.875 (7/8)');
    expect(kept.querySelector('[data-testid=mined-tests]')!.textContent).toBe('16');
    expect(kept.querySelector('[data-testid=mined-isolation]')!.textContent).toBe('isolated');
    expect(q('[data-testid=mined-drop]').map((r) => r.getAttribute('data-reason'))).toEqual(['thin', 'no-docstring']);
    // The reason in a word or two; the whole label is its title.
    const reason = $('[data-testid=mined-drop] [data-testid=mined-reason]')!;
    expect([reason.textContent, reason.title]).toEqual(['thin', 'thin (its tests kill no mutant)']);
    expect($('[data-testid=mined-reasons]')!.textContent).toContain('thin (its tests kill no mutant)');
    type('mined-dropped-filter', 'cart');
    expect(q('[data-testid=mined-drop]').map((r) => r.getAttribute('data-task-id'))).toEqual(['shop.cart.Cart.__init__']);
    await act(async () => $('[data-testid=mined-use-experiment]')!.click());
    const s = getStore().getState();
    expect(s.view).toBe('experiment');
    expect(s.experimentForm.manifest).toBe(SET.manifest);
    expect(s.manifest).toBe(SET.manifest);
  });

  it('shows what a stopped run decided, and hands nothing on until a run finishes', async () => {
    partial = true;
    await show([mineJob('cancelled', { phase: 'checks', done: 12, total: 47 })]);
    expect($('[data-testid=mined-partial]')!.textContent).toContain('3 functions it decided');
    expect(($('[data-testid=mined-use-experiment]') as HTMLButtonElement).disabled).toBe(true);
    expect(($('[data-testid=mined-use-ablation]') as HTMLButtonElement).disabled).toBe(true);
    expect(mount.container.textContent).toContain('Every task decided so far is kept');
  });

  it('hands the manifest to the Ablation view', async () => {
    await show([mineJob('done', null)]);
    await act(async () => $('[data-testid=mined-use-ablation]')!.click());
    expect(getStore().getState().view).toBe('ablation');
    expect(getStore().getState().manifest).toBe(SET.manifest);
  });
});
