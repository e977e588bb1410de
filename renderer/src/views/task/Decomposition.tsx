// Decomposition: the requirement's steps with their source intents (w per source as small bars) and the
// per-source sub-queries. When the steps are not a model's (the offline fallback decomposer, or decomposition
// switched off), a note next to the weights says so: their w = 0.33-style weights are heuristics, not judgements.

import { SOURCES, type TaskDetail } from '../../api/contract.ts';
import { Empty } from '../../components/ui.tsx';
import { num } from '../../lib/format.ts';
import { SOURCE_META } from '../../lib/sources.ts';
import './Decomposition.css';

/** What the note says for a decomposition that no model made; null for an LLM's (`llm:<model>`). */
export function decompositionNote(method: string | undefined): { title: string; text: string } | null {
  if (!method) return null;
  const why = /^fallback \((.*)\)$/.exec(method)?.[1];
  if (method === 'fallback' || why) {
    return {
      title: 'Fallback decomposer (no LLM)',
      text:
        `${why ? `${why}. ` : ''}The steps are the requirement's sentences after a whole-task anchor step, and the weights w come from ` +
        'keyword rules, not from a model: a step naming no API or identifier gets even weights (w = 0.33 each). Run with an LLM backend ' +
        '(or --decompose llm) for a learned decomposition.',
    };
  }
  if (method === 'none') {
    return {
      title: 'Decomposition switched off',
      text: 'The whole requirement is one step with uniform weights (w = 0.33 per source). Set retrieval.decompose in the pipeline configuration to get steps.',
    };
  }
  return null;
}

/** True when every source has (nearly) the same weight: the rules found no cue. */
const evenWeights = (w: TaskDetail['steps'][number]['weights']): boolean => {
  const ws = SOURCES.map((s) => w[s]);
  return Math.max(...ws) - Math.min(...ws) < 0.005;
};

export function Decomposition({ steps, method }: { steps: TaskDetail['steps']; method?: string }) {
  if (!steps.length) return <Empty title="No decomposition" testId="decomposition-empty" />;
  const note = decompositionNote(method);
  return (
    <div data-testid="decomposition">
      {method ? (
        <p className="muted small">
          Decomposed by: <strong>{method}</strong> · {steps.length} step{steps.length === 1 ? '' : 's'}
        </p>
      ) : null}
      {note ? (
        <div className="decomposition-note" role="note" data-testid="decomposition-fallback-note">
          <strong>{note.title}.</strong> {note.text}
        </div>
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
                {note && evenWeights(st.weights) ? (
                  <span className="intent-even small" data-testid="intent-even" title={note.title}>
                    even weights: no source cue in this step ({note.title.toLowerCase()})
                  </span>
                ) : null}
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
