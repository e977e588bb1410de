// The lazily loaded parts of the UI as components (lazy/chunks.ts lists them). Each shows a small loading state
// while its chunk loads, then the part; when the chunk cannot be loaded it says which part and why, and offers to
// try again. A chunk that is already there (always so in tests and the dev server) renders at once.

import { Component, createElement, lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react';
import { Loading } from '../components/ui.tsx';
import { chunks, type ChunkModule, type ChunkName } from './chunks.ts';

const ready = new Map<ChunkName, unknown>();
const loading = new Map<ChunkName, Promise<unknown>>();

/** The chunk's exports, or a promise of them while it loads; a failed load is forgotten, so the next call tries again. */
export function loadChunk<N extends ChunkName>(name: N): ChunkModule<N> | Promise<ChunkModule<N>> {
  if (ready.has(name)) return ready.get(name) as ChunkModule<N>;
  const pending = loading.get(name) as Promise<ChunkModule<N>> | undefined;
  if (pending) return pending;
  const got = chunks[name]() as ChunkModule<N> | Promise<ChunkModule<N>>;
  if (!(got instanceof Promise)) {
    ready.set(name, got);
    return got;
  }
  const p = got.then(
    (m) => {
      ready.set(name, m);
      loading.delete(name);
      return m;
    },
    (e: unknown) => {
      loading.delete(name);
      throw e instanceof Error ? e : new Error(String(e));
    },
  );
  loading.set(name, p);
  return p;
}

class ChunkBoundary extends Component<{ what: string; testId: string; onRetry: () => void; children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="state state-error" role="alert" data-testid={`${this.props.testId}-error`}>
        <div className="state-title">Could not load the {this.props.what}</div>
        <div className="state-text">{error.message}</div>
        <button type="button" className="btn btn-small" onClick={this.props.onRetry} data-testid={`${this.props.testId}-retry`}>
          Try again
        </button>
      </div>
    );
  }
}

/** A component that shows `pick(exports of chunk name)`, loading the chunk on first render; `what` names it to people. */
export function lazyPart<N extends ChunkName, P extends object>(name: N, pick: (m: ChunkModule<N>) => ComponentType<P>, what: string): ComponentType<P> {
  const testId = `lazy-${name}`;
  // One part per attempt: a React.lazy that failed keeps failing, so "Try again" starts a new load. A chunk that is
  // there at once (tests, the dev server) needs no Suspense round.
  const attempts: ComponentType<P>[] = [];
  const attemptAt = (i: number): ComponentType<P> => {
    if (!attempts[i]) {
      const got = loadChunk(name);
      attempts[i] = got instanceof Promise ? lazy(() => got.then((m) => ({ default: pick(m) }))) : pick(got);
    }
    return attempts[i];
  };
  function LazyPart(props: P) {
    const [attempt, setAttempt] = useState(0);
    const part = ready.has(name) ? pick(ready.get(name) as ChunkModule<N>) : attemptAt(attempt);
    return (
      <ChunkBoundary key={attempt} what={what} testId={testId} onRetry={() => setAttempt(attempt + 1)}>
        <Suspense fallback={<Loading label={`Loading the ${what}…`} testId={`${testId}-loading`} />}>{createElement(part, props)}</Suspense>
      </ChunkBoundary>
    );
  }
  LazyPart.displayName = `Lazy(${name})`;
  return LazyPart;
}

export const TaskPart = lazyPart('task', (m) => m.TaskView, 'task view');
export const AblationPart = lazyPart('ablation', (m) => m.AblationView, 'ablation view');
export const ExperimentPart = lazyPart('experiment', (m) => m.ExperimentView, 'experiment view');
export const SettingsPart = lazyPart('settings', (m) => m.SettingsView, 'settings');
export const ChartsPart = lazyPart('charts', (m) => m.ChartsPanel, 'charts');
