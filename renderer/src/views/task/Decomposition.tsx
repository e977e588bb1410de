// Decomposition: the requirement's steps with their source intents (w per source as small bars) and the
// per-source sub-queries.

import { SOURCES, type TaskDetail } from '../../api/contract.ts';
import { Empty } from '../../components/ui.tsx';
import { num } from '../../lib/format.ts';
import { SOURCE_META } from '../../lib/sources.ts';
import './Decomposition.css';

export function Decomposition({ steps, method }: { steps: TaskDetail['steps']; method?: string }) {
  if (!steps.length) return <Empty title="No decomposition" testId="decomposition-empty" />;
  return (
    <div data-testid="decomposition">
      {method ? (
        <p className="muted small">
          Decomposed by: <strong>{method}</strong> · {steps.length} step{steps.length === 1 ? '' : 's'}
        </p>
      ) : null}
      <ol className="steps">
        {steps.map((st) => (
          <li key={st.index} className="step" data-testid="decomposition-step">
            <div className="step-num tabular">{st.index + 1}</div>
            <div className="step-body">
              <div className="step-text">{st.text}</div>
              <div className="intents" aria-label="source-intent weights">
                {SOURCES.map((s) => (
                  <div key={s} className="intent" data-testid={`intent-${s}`} title={`${SOURCE_META[s].label}: w = ${num(st.weights[s], 3)}`}>
                    <span className="intent-label" style={{ color: SOURCE_META[s].color }}>
                      {SOURCE_META[s].letter}
                    </span>
                    <span className="hbar">
                      <span className="hbar-fill" style={{ width: `${Math.max(0, Math.min(1, st.weights[s])) * 100}%`, background: SOURCE_META[s].color }} />
                    </span>
                    <span className="intent-val tabular">{num(st.weights[s], 2)}</span>
                  </div>
                ))}
              </div>
              <details className="queries">
                <summary>Sub-queries</summary>
                <dl>
                  {SOURCES.map((s) => (
                    <div key={s} className="query">
                      <dt style={{ color: SOURCE_META[s].color }}>{SOURCE_META[s].short}</dt>
                      <dd>{st.queries[s] || <span className="muted">—</span>}</dd>
                    </div>
                  ))}
                </dl>
              </details>
            </div>
          </li>
        ))}
      </ol>
    </div>
  );
}
