// The uncertainty trace: ū per evidence source (mean u of its retrieved items) and the generation uncertainty
// with its parts, each with the method that measured it.

import { SOURCES, type TaskResult } from '../../api/contract.ts';
import { num } from '../../lib/format.ts';
import { SOURCE_META } from '../../lib/sources.ts';
import './UncertaintyTrace.css';

function Bar({ value, color, label, testId, note }: { value: number | null; color: string; label: string; testId?: string; note?: string }) {
  const v = value == null ? null : Math.max(0, Math.min(1, value));
  return (
    <div className="ubar" data-testid={testId}>
      <span className="ubar-label">{label}</span>
      <span className="ubar-track" aria-hidden="true">
        {v != null ? <span className="ubar-fill" style={{ width: `${v * 100}%`, background: color }} /> : null}
        <span className="ubar-tick" style={{ left: '50%' }} />
      </span>
      <span className="ubar-val tabular">{v == null ? <span className="muted">{note ?? 'n/a'}</span> : num(value, 3)}</span>
    </div>
  );
}

export function UncertaintyTrace({ result }: { result: TaskResult }) {
  const u = result.generation.uncertainty;
  const methods = result.detail?.uncertaintyMethods;
  return (
    <div className="grid-2" data-testid="uncertainty-trace">
      <div>
        <h3 className="h3">Evidence uncertainty ū per source</h3>
        <p className="muted small">Mean u of each source’s retrieved items (0 = trustworthy, 1 = not).</p>
        <div className="ubars" data-testid="source-uncertainty">
          {SOURCES.map((s) => (
            <Bar
              key={s}
              value={result.retrieval.sourceUncertainty[s]}
              color={SOURCE_META[s].color}
              label={SOURCE_META[s].label}
              testId={`ubar-${s}`}
              note="off / none"
            />
          ))}
          <UbarAxis />
        </div>
      </div>
      <div>
        <h3 className="h3">Generation uncertainty</h3>
        <p className="muted small">Over the {result.candidates.length} candidates; the aggregate is read as P(selected output fails).</p>
        <div className="ubars" data-testid="generation-uncertainty">
          <Bar value={u.aggregate} color="#3d4a5c" label="Aggregate" testId="ubar-aggregate" />
          <Bar value={u.entropy} color="#8a4fb8" label="Entropy" testId="ubar-entropy" note="not measurable" />
          <Bar value={u.consistency} color="#c2405b" label="Inconsistency" testId="ubar-consistency" note="not measurable" />
          <Bar value={u.variance} color="#2f7fb8" label="Variance" testId="ubar-variance" note="not measurable" />
          <UbarAxis />
        </div>
        {methods ? (
          <dl className="methods small" data-testid="uncertainty-methods">
            <dt>Entropy</dt>
            <dd>{methods.entropy}</dd>
            <dt>Consistency</dt>
            <dd>{methods.consistency}</dd>
            <dt>Variance</dt>
            <dd>{methods.variance}</dd>
          </dl>
        ) : null}
        <p className="small muted">
          Self-consistency groups: <span className="mono">{result.generation.groups.map((g) => `{${g.map((i) => i + 1).join(', ')}}`).join(' ')}</span>
        </p>
      </div>
    </div>
  );
}

/** The 0 … 1 scale under a group of bars. */
function UbarAxis() {
  return (
    <div className="ubar-axis tabular" aria-hidden="true">
      <span>0</span>
      <span>0.5</span>
      <span>1</span>
    </div>
  );
}
