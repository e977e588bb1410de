// A line diff (LCS) of two code texts, removed lines red and added lines green, with old / new line numbers.

import { useMemo } from 'react';
import { diffLines, diffStats } from '../../lib/diff.ts';
import './DiffView.css';

export function DiffView({
  before,
  after,
  testId,
  beforeLabel,
  afterLabel,
}: {
  before: string;
  after: string;
  testId?: string;
  beforeLabel: string;
  afterLabel: string;
}) {
  const lines = useMemo(() => diffLines(before, after), [before, after]);
  const stats = diffStats(lines);
  return (
    <div className="diff" data-testid={testId ?? 'diff'}>
      <div className="diff-head small">
        <span>
          <span className="diff-del-text">− {beforeLabel}</span> → <span className="diff-add-text">+ {afterLabel}</span>
        </span>
        <span className="tabular" data-testid="diff-stats">
          <span className="diff-add-text">+{stats.added}</span> <span className="diff-del-text">−{stats.removed}</span>
        </span>
      </div>
      <div className="diff-body" role="table" aria-label={`changes from ${beforeLabel} to ${afterLabel}`}>
        {lines.length === 0 ? <div className="muted small diff-empty">Both are empty.</div> : null}
        {lines.map((l, i) => (
          <div key={i} className={`diff-line diff-${l.kind}`} role="row" data-testid={`diff-line-${l.kind}`}>
            <span className="diff-ln" role="cell">
              {l.oldLine ?? ''}
            </span>
            <span className="diff-ln" role="cell">
              {l.newLine ?? ''}
            </span>
            <span className="diff-sign" role="cell" aria-label={l.kind === 'add' ? 'added' : l.kind === 'del' ? 'removed' : 'unchanged'}>
              {l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ' '}
            </span>
            <span className="diff-text" role="cell">
              {l.text || ' '}
            </span>
          </div>
        ))}
      </div>
    </div>
  );
}
