// @vitest-environment happy-dom
// A lazy part (renderer/src/lazy/charts.tsx) with its chunk loader standing in for the build's: a loading state
// while the chunk loads, the part once it has, an error naming the failure with "Try again", which loads it anew.

import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { mountPerTest } from './dom.ts';

type Loader = () => Promise<unknown>;
const loaders = vi.hoisted(() => ({ charts: [] as Loader[] }));

vi.mock('../../renderer/src/lazy/chunks/charts.ts', () => ({
  chunk: () => {
    const next = loaders.charts.shift();
    if (!next) throw new Error('no loader queued for the charts chunk');
    return next();
  },
}));

const { ChartsPart } = await import('../../renderer/src/lazy/charts.tsx');
const mount = mountPerTest();
const { $ } = mount;

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const panel = { ChartsPanel: ({ model }: { model: { tag: string } }) => <div data-testid="fake-charts">{model.tag}</div> };
const model = { tag: 'run-1' } as never;

describe('lazy parts', () => {
  it('shows a loading state, an error with the reason, and the part after "Try again"', async () => {
    const first = deferred<unknown>();
    loaders.charts.push(() => first.promise);
    await act(async () => mount.root.render(<ChartsPart model={model} />));
    expect($('[data-testid=lazy-charts-loading]')!.textContent).toBe('Loading the charts…');
    expect($('[data-testid=fake-charts]')).toBeNull();

    // React reports the error the boundary caught on the console; keep the test's output clean.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    await act(async () => first.reject(new Error('OpenCoder UI: could not load file:///x/assets/charts-1.js')));
    logged.mockRestore();
    const error = $('[data-testid=lazy-charts-error]')!;
    expect(error.getAttribute('role')).toBe('alert');
    expect(error.textContent).toContain('Could not load the charts');
    expect(error.textContent).toContain('charts-1.js');

    const second = deferred<unknown>();
    loaders.charts.push(() => second.promise);
    await act(async () => $('[data-testid=lazy-charts-retry]')!.click());
    expect($('[data-testid=lazy-charts-loading]')).not.toBeNull();
    await act(async () => second.resolve(panel));
    expect($('[data-testid=fake-charts]')!.textContent).toBe('run-1');
    expect($('[data-testid=lazy-charts-error]')).toBeNull();
    expect(loaders.charts).toHaveLength(0);
  });

  // After the test above: the chunk is loaded now.
  it('renders a chunk that has loaded at once, without loading it again', async () => {
    await act(async () => mount.root.render(<ChartsPart model={model} />));
    expect($('[data-testid=fake-charts]')!.textContent).toBe('run-1');
    expect($('[data-testid=lazy-charts-loading]')).toBeNull();
  });
});
