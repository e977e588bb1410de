// @vitest-environment happy-dom
// What the task result's counts are computed over (issue 31): "0 API items fused" beside "API F1 0.667" is not a
// contradiction — the fused count is over the fused top K, the repository API F1 over every API item retrieval kept.

import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { ApiSet } from '../../renderer/src/views/task/ApiSet.tsx';
import { ResultView, scopeText } from '../../renderer/src/views/task/ResultView.tsx';
import { mountPerTest } from './dom.ts';
import { taskResult } from './fixtures.ts';

const mount = mountPerTest();

/** The fixture with no API item in the fused top 3, while retrieval kept 3 API items. */
function noApiFused() {
  const r = taskResult();
  return { ...r, retrieval: { ...r.retrieval, fused: 3, fusedBySource: { api: 0, context: 2, similar: 1 } } };
}

describe('the result summary says what each count is over', () => {
  it('names the fused top K and the kept API set, and says none of the kept API items is in the top K', () => {
    const r = noApiFused();
    const text = scopeText(r);
    expect(text).toBe(
      `Fused top 3: 0 API · 2 context · 1 similar-code item (what the prompt showed). API F1 repository: over ${r.retrieval.api!.predicted} API items retrieval kept, at any rank — not only those in the fused top 3, where none is. API F1 task-view: over ${r.retrieval.api!.taskView!.predicted} APIs predicted from the task’s own view.`,
    );
    act(() => mount.root.render(<ResultView results={[r]} />));
    expect(mount.container.querySelector('[data-testid=summary-scope]')!.textContent).toBe(text);
    expect(mount.container.querySelector('[data-testid=stat-fused] dt')!.textContent).toBe('Fused top 3 by source');
  });

  it('without an API score it says so', () => {
    const r = taskResult();
    expect(scopeText({ ...r, retrieval: { ...r.retrieval, api: null } })).toMatch(/\(what the prompt showed\)\. No API set was scored\.$/);
  });

  it("the API set tab says the repository set is retrieval's kept items and how many API items the fused top K holds", () => {
    act(() => mount.root.render(<ApiSet result={noApiFused()} />));
    const scopes = [...mount.container.querySelectorAll('[data-testid=api-set-predicted-scope]')].map((e) => e.textContent.trim());
    expect(scopes).toEqual([
      '(the API items retrieval kept, at any rank; 0 of the fused top 3 are API items)',
      '(predicted from the task’s own view, not from the fused evidence)',
    ]);
  });
});
