// A lazily loaded part of the UI as a component. It shows a small loading state while its chunk loads, then the
// part; when the chunk cannot be loaded it says which part and why, and offers to try again. A chunk that is already
// there (always so in tests and the dev server) renders at once. The parts are lazy/parts.tsx and lazy/charts.tsx;
// their chunks are lazy/chunks/<name>.ts. This module imports no view, so any view may show a lazy part.

import { Component, createElement, lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react';
import { Loading } from '../components/ui.tsx';

/** A lazy part's loader (lazy/chunks/<name>.ts): the module, or a promise of it in the production build. */
export type Chunk<M> = () => M | Promise<M>;

const ready = new Map<string, unknown>();
const loading = new Map<string, Promise<unknown>>();

/** The chunk's exports, or a promise of them while it loads; a failed load is forgotten, so the next call tries again. */
function loadChunk<M>(name: string, chunk: Chunk<M>): M | Promise<M> {
  if (ready.has(name)) return ready.get(name) as M;
  const pending = loading.get(name) as Promise<M> | undefined;
  if (pending) return pending;
  const got = chunk();
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

/** A component that shows `pick(exports of the chunk)`, loading the chunk on first render; `what` names it to people. */
export function lazyPart<M, P extends object>(name: string, chunk: Chunk<M>, pick: (m: M) => ComponentType<P>, what: string): ComponentType<P> {
  const testId = `lazy-${name}`;
  // One part per attempt: a React.lazy that failed keeps failing, so "Try again" starts a new load. A chunk that is
  // there at once (tests, the dev server) needs no Suspense round.
  const attempts: ComponentType<P>[] = [];
  const attemptAt = (i: number): ComponentType<P> => {
    if (!attempts[i]) {
      const got = loadChunk(name, chunk);
      attempts[i] = got instanceof Promise ? lazy(() => got.then((m) => ({ default: pick(m) }))) : pick(got);
    }
    return attempts[i];
  };
  function LazyPart(props: P) {
    const [attempt, setAttempt] = useState(0);
    const part = ready.has(name) ? pick(ready.get(name) as M) : attemptAt(attempt);
    return (
      <ChunkBoundary key={attempt} what={what} testId={testId} onRetry={() => setAttempt(attempt + 1)}>
        <Suspense fallback={<Loading label={`Loading the ${what}…`} testId={`${testId}-loading`} />}>{createElement(part, props)}</Suspense>
      </ChunkBoundary>
    );
  }
  LazyPart.displayName = `Lazy(${name})`;
  return LazyPart;
}
