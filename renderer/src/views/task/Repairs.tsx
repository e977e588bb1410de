// Repairs: each round as a diff against the code it repaired (round 1: the chosen candidate; later rounds:
// the previous round), with its verdict and per-test results.

import type { TaskResult } from '../../api/contract.ts';
import { Badge, Empty } from '../../components/ui.tsx';
import { TestResults } from './Candidates.tsx';
import { DiffView } from './DiffView.tsx';
import './Repairs.css';

export function Repairs({ result }: { result: TaskResult }) {
  if (!result.repairs.length) {
    return (
      <Empty title="No repair rounds" testId="repairs-empty">
        {result.repairAttempted
          ? 'Repair was attempted but the backend returned nothing to validate.'
          : result.selected.verified === null
            ? 'This method does not verify or repair.'
            : result.candidates.some((c) => c.passed)
              ? 'A raw candidate passed, so nothing needed repairing.'
              : 'Repair is off for this method.'}
      </Empty>
    );
  }
  const base = result.selected.candidateIndex ?? 0;
  return (
    <div className="repairs" data-testid="repairs">
      {result.repairRecovered ? <div className="notice notice-good">A repair made this task pass where no raw candidate did.</div> : null}
      {result.repairs.map((r, i) => {
        const before = i === 0 ? (result.candidates[base]?.code ?? '') : result.repairs[i - 1]!.code;
        const beforeLabel = i === 0 ? `candidate ${base + 1}` : `round ${result.repairs[i - 1]!.round}`;
        return (
          <div key={r.round} className="repair" data-testid="repair-round" data-passed={r.passed ? 'true' : 'false'}>
            <div className="cand-head">
              <strong>Repair round {r.round}</strong>
              <Badge tone={r.passed ? 'good' : 'bad'} testId="repair-verdict">
                {r.passed ? 'passed' : 'failed'}
              </Badge>
              {result.selected.origin === 'repair' && result.selected.repairRound === r.round ? <span className="sel-mark">selected</span> : null}
            </div>
            {r.reason ? <p className="small">{r.reason}</p> : null}
            <DiffView before={before} after={r.code} beforeLabel={beforeLabel} afterLabel={`round ${r.round}`} testId="repair-diff" />
            {result.detail?.repairTests[i]?.length ? (
              <details className="repair-tests">
                <summary className="small">Per-test results of round {r.round}</summary>
                <TestResults tests={result.detail.repairTests[i]} />
              </details>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}
