// @vitest-environment happy-dom
// The task view names candidates whose reply held no code (empty, prose, refused) and a verdict the infrastructure
// decided, and marks a stored result whose pair is unscored.
import { act } from 'react';
import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../contract/index.ts';
import { ResultView } from '../../renderer/src/views/task/ResultView.tsx';
import { mountPerTest } from './dom.ts';
import { taskResult } from './fixtures.ts';

const mount = mountPerTest();
const { $, q } = mount;

function withReplies(): TaskResult {
  const r = taskResult();
  const kinds = ['code', 'empty', 'no-code', 'refused', 'code'] as const;
  return {
    ...r,
    candidates: r.candidates.map((c, i) => ({
      ...c,
      reply: kinds[i],
      code: kinds[i] === 'code' ? c.code : '',
      ...(i === 4
        ? {
            verdict: {
              ...c.verdict,
              status: 'error' as const,
              infrastructure: { cause: 'sandbox' as const, detail: 'the sandbox failed: bwrap: no namespaces' },
            },
          }
        : {}),
    })),
  };
}

function openCandidates(result: TaskResult) {
  act(() => mount.root.render(<ResultView results={[result]} />));
  act(() => $('[data-testid=tab-candidates]')!.click());
}

describe('candidates without code', () => {
  it('badges each reply without code and the infrastructure verdict in the candidate list', () => {
    openCandidates(withReplies());
    const chips = q('[data-testid=candidate-chip]');
    expect(chips.map((c) => c.querySelector('[data-testid=candidate-reply]')?.textContent ?? null)).toEqual([
      null,
      'empty reply',
      'no code in reply',
      'refused',
      null,
    ]);
    expect(chips[4]!.querySelector('[data-testid=candidate-infrastructure]')!.textContent).toBe('sandbox fault (not the candidate’s)');
    act(() => chips[1]!.click());
    expect($('[data-testid=candidate]')!.dataset.reply).toBe('empty');
    expect($('[data-testid=candidate-no-code]')!.textContent).toBe('No code: empty reply. It counts as a failed sample.');
  });

  it('a result stored before reply kinds gets no reply badge; an unscored result says so above the tabs', () => {
    openCandidates(taskResult());
    expect(q('[data-testid=candidate-reply]')).toHaveLength(0);
    expect($('[data-testid=result-unscored]')).toBeNull();
    act(() => mount.root.render(<ResultView results={[{ ...withReplies(), unscored: { cause: 'sandbox', detail: 'candidate 5: the sandbox failed' } }]} />));
    const note = $('[data-testid=result-unscored]')!;
    expect(note.dataset.cause).toBe('sandbox');
    expect(note.textContent).toMatch(/^Unscored \(sandbox\)\. The infrastructure, not the model, decided a verdict here: candidate 5: the sandbox failed\./);
  });
});
