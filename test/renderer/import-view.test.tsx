// @vitest-environment happy-dom
// The Import view's next steps and its refused paths: a finished import offers its manifest (or sample set) to the
// Experiment view's form; a path outside the allowed folders is refused at its field with "Allow this folder" there.
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CallName, EngineApi, ImportSummary, JobInfo } from '../../contract/index.ts';
import { EngineCallError } from '../../contract/index.ts';
import { createAppStore, getStore, installStore } from '../../renderer/src/store.ts';
import { ImportView } from '../../renderer/src/views/ImportView.tsx';
import { mountPerTest } from './dom.ts';

const calls: { name: string; input: unknown }[] = [];

const job = (id: string, title: string): JobInfo => ({
  id,
  kind: 'import',
  state: 'done',
  title,
  startedAt: '2025-01-01T00:00:00.000Z',
  finishedAt: '2025-01-01T00:00:03.000Z',
  progress: { phase: 'report', done: 2, total: 2 },
  error: null,
  result: null,
});

const BENCH: ImportSummary = {
  jobId: 'import-1',
  kind: 'repoexec',
  input: '/bench/repoexec',
  out: '/data/benchmarks/repoexec',
  manifest: '/data/benchmarks/repoexec/tasks.jsonl',
  sampleSet: null,
  reportFile: '/data/benchmarks/repoexec/IMPORT.md',
  report: '# RepoExec import\n\n- tasks in tasks.jsonl: 2\n',
  tasks: 2,
  dropped: { 'garbage-line': 3 },
  warnings: {
    count: 1,
    byReason: { 'malformed-json': 1 },
    first: [{ reason: 'malformed-json', file: '/bench/repoexec/repoexec_inline.jsonl', line: 2, message: 'not valid JSON' }],
  },
  facts: [{ label: 'Projects', value: '1' }],
  samples: null,
};

const SET: ImportSummary = {
  ...BENCH,
  jobId: 'import-2',
  kind: 'samples',
  input: '/bench/phi-2-results',
  out: '/data/sample-sets/phi-2-results.jsonl',
  manifest: null,
  sampleSet: '/data/sample-sets/phi-2-results.jsonl',
  reportFile: null,
  report: '# Sample set import\n',
  dropped: {},
  warnings: { count: 0, byReason: {}, first: [] },
  facts: [],
  samples: { format: 'repoexec', samples: 20, labelled: 20, perTask: [10], source: '/bench/phi-2-results' },
};

function fakeApi(): EngineApi {
  return {
    async call(name: CallName, input: unknown) {
      calls.push({ name, input });
      if (name === 'import.defaults') return { out: '/data/benchmarks/repoexec', dataDir: '/data' } as never;
      if (name === 'import.result') return ((input as { jobId: string }).jobId === 'import-2' ? SET : BENCH) as never;
      if (name === 'tasks.list') return { manifest: (input as { manifest: string }).manifest, hash: 'h', tasks: [] } as never;
      if (name === 'import.benchmark')
        throw new EngineCallError({
          code: 'forbidden-path',
          message: 'path /elsewhere/repoexec is outside the folders OpenCoder may open',
          issues: [{ path: 'path', message: 'outside the allowed roots' }],
          allow: '/elsewhere/repoexec',
        });
      throw new EngineCallError({ code: 'unsupported', message: `not in this test: ${name}` });
    },
    subscribe: () => () => {},
  };
}

beforeEach(() => {
  calls.length = 0;
  const api = fakeApi();
  installStore(createAppStore(api), api);
});
const mount = mountPerTest();
const { $ } = mount;

async function show(jobs: JobInfo[]) {
  act(() => getStore().setState({ jobs, view: 'import' }));
  await act(async () => mount.root.render(<ImportView />));
}

describe('the Import view', () => {
  it('shows a finished benchmark import and hands its manifest to the Experiment view', async () => {
    await show([job('import-1', 'Import RepoExec from repoexec')]);
    expect($('[data-testid=import-report]')!.textContent).toBe(BENCH.report);
    expect($('[data-testid=import-tasks] dd')!.textContent).toBe('2');
    expect($('[data-testid=import-dropped-reasons]')!.textContent).toMatch(/3\s*garbage-line/);
    await act(async () => $('[data-testid=import-use-manifest]')!.click());
    const s = getStore().getState();
    expect(s.view).toBe('experiment');
    expect(s.experimentForm.manifest).toBe(BENCH.manifest);
    expect(s.manifest).toBe(BENCH.manifest);
  });

  it('hands a sample set to the experiment form as its published samples', async () => {
    await show([job('import-2', 'Import sample set from phi-2-results'), job('import-1', 'Import RepoExec from repoexec')]);
    expect($('[data-testid=import-report]')!.textContent).toBe(SET.report);
    await act(async () => $('[data-testid=import-use-samples]')!.click());
    expect(getStore().getState().experimentForm.samples).toBe(SET.sampleSet);
    expect(getStore().getState().view).toBe('experiment');
  });

  it('refuses a path outside the allowed folders at its field, offering to allow that folder there', async () => {
    await show([]);
    const input = $('[data-testid=import-path]') as HTMLInputElement;
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    act(() => {
      setter.call(input, '/elsewhere/repoexec');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => $('[data-testid=import-start]')!.click());
    expect(calls.find((c) => c.name === 'import.benchmark')?.input).toEqual({ kind: 'repoexec', path: '/elsewhere/repoexec' });
    expect($('[data-testid=import-path-allow-open]')).not.toBeNull();
    expect($('[data-testid=import-error]')).toBeNull();
    expect(mount.container.textContent).toContain('outside the allowed roots');
  });
});
