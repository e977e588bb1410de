// @vitest-environment happy-dom
// The Experiment view's sample-set panel: asks the engine for a set's Pass@k and shows what it is computed over.
import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CallName, EngineApi, SamplePassK } from '../../contract/index.ts';
import { EngineCallError } from '../../contract/index.ts';
import { createAppStore, installStore } from '../../renderer/src/store.ts';
import { SampleSets } from '../../renderer/src/views/experiment/SampleSets.tsx';
import { handOffPassK } from '../../renderer/src/views/import-handoff.ts';
import { mountPerTest } from './dom.ts';

const calls: { name: string; input: unknown }[] = [];

const RESULT: SamplePassK = {
  path: '/data/phi-2-results',
  format: 'repoexec',
  tasks: 355,
  samples: 3550,
  n: { min: 10, max: 10 },
  ks: [1, 5, 10],
  kOverN: 'refuse',
  passAtK: { '1': 0.1904225352112676, '5': 0.2455734406438632, '10': 0.2704225352112676 },
  perTask: [],
  shortTasks: [],
  computedOver: 'mean over 355 tasks of the unbiased per-task estimate',
};

function fakeApi(): EngineApi {
  return {
    async call(name: CallName, input: unknown) {
      calls.push({ name, input });
      if (name !== 'samples.passk') throw new EngineCallError({ code: 'unsupported', message: `not in this test: ${name}` });
      if ((input as { path: string }).path.endsWith('broken')) throw new EngineCallError({ code: 'invalid-input', message: '/data/broken:2: not valid JSON' });
      return RESULT as never;
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

function type(value: string) {
  const input = $('[data-testid=samples-path]') as HTMLInputElement;
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  act(() => {
    setter.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

describe('sample sets panel', () => {
  it('shows the Pass@k the engine computed, with what it is computed over', async () => {
    act(() => mount.root.render(<SampleSets />));
    type('/data/phi-2-results');
    act(() => $('[data-testid=samples-humaneval]')!.click());
    await act(async () => $('[data-testid=samples-load]')!.click());
    expect(calls).toEqual([{ name: 'samples.passk', input: { path: '/data/phi-2-results', kOverN: 'humaneval' } }]);
    // Three decimals like every other rate; the full value in the tooltip.
    expect($('[data-testid=samples-pass-1]')!.textContent).toBe(RESULT.passAtK['1']!.toFixed(3));
    expect($('[data-testid=samples-pass-10]')!.textContent).toBe(RESULT.passAtK['10']!.toFixed(3));
    expect($('[data-testid=samples-pass-10]')!.getAttribute('title')).toBe(String(RESULT.passAtK['10']));
    expect($('[data-testid=samples-result]')!.textContent).toMatch(/355 tasks, 3,550 samples \(n 10\), official labels/);
    expect($('[data-testid=samples-result]')!.textContent).toMatch(/Computed over: mean over 355 tasks/);
  });

  it('names a bad path before calling, and shows the engine’s error for a broken file', async () => {
    act(() => mount.root.render(<SampleSets />));
    type('relative/path');
    await act(async () => $('[data-testid=samples-load]')!.click());
    expect(calls).toHaveLength(0);
    expect(mount.container.textContent).toMatch(/the path must be absolute/);
    type('/data/broken');
    await act(async () => $('[data-testid=samples-load]')!.click());
    expect($('[data-testid=samples-error]')!.textContent).toMatch(/not valid JSON/);
  });

  it('computes the set the Import view handed over, once', async () => {
    handOffPassK('/data/sample-sets/phi-2-results.jsonl');
    await act(async () => mount.root.render(<SampleSets />));
    expect(calls).toEqual([{ name: 'samples.passk', input: { path: '/data/sample-sets/phi-2-results.jsonl', kOverN: 'refuse' } }]);
    expect(($('[data-testid=samples-path]') as HTMLInputElement).value).toBe('/data/sample-sets/phi-2-results.jsonl');
    expect($('[data-testid=samples-result]')).not.toBeNull();
    act(() => mount.root.render(<div />));
    act(() => mount.root.render(<SampleSets />));
    expect(calls).toHaveLength(1);
    expect(($('[data-testid=samples-path]') as HTMLInputElement).value).toBe('');
  });
});
