// The candidates: verdict badge, where the verdict was decided (isolated / in-process, and why), which one the
// method selected, per-test results and static findings, code.

import { useState } from 'react';
import type { TaskResult } from '../../api/contract.ts';
import { Badge, Empty, type Tone } from '../../components/ui.tsx';
import { duration } from '../../lib/format.ts';
import './Candidates.css';

export const VERDICT_TONE: Record<string, Tone> = { passed: 'good', failed: 'bad', error: 'warn', timeout: 'warn' };
/** What a reply without code held, as its badge says it (a reply with code, or of a result stored before reply kinds, gets none). */
const REPLY_LABEL: Record<string, string> = { empty: 'empty reply', 'no-code': 'no code in reply', refused: 'refused' };

/** The badge of a reply without code, or of a verdict the infrastructure decided; null for an ordinary candidate. */
function CandidateNote({ c }: { c: TaskResult['candidates'][number] }) {
  if (c.verdict.infrastructure)
    return (
      <Badge tone="info" testId="candidate-infrastructure" title={c.verdict.infrastructure.detail}>
        {c.verdict.infrastructure.cause} fault (not the candidate’s)
      </Badge>
    );
  const label = c.reply ? REPLY_LABEL[c.reply] : undefined;
  return label ? (
    <Badge tone="muted" testId="candidate-reply" title="The model’s reply held no code: a failed sample">
      {label}
    </Badge>
  ) : null;
}

type CandidateVerdict = TaskResult['candidates'][number]['verdict'];

/** What each place promises, as the tooltip and the opened card say it (docs/validation.md). */
const ISOLATION_MEANING: Record<'isolated' | 'in-process', string> = {
  isolated: 'the tests ran in a process the candidate never ran in; only data crossed',
  'in-process': 'the candidate ran inside the test process under best-effort hardening, never a guarantee',
};
const REASON_NOT_RECORDED = 'why: not recorded (stored before the reason was kept)';

/** `isolated` or `in-process` (warning tone), the reason as its tooltip; nothing for a verdict that does not say where. */
function IsolationBadge({ v }: { v: CandidateVerdict }) {
  if (!v.isolation) return null;
  const why = v.isolationReason ? `${v.isolation}: ${v.isolationReason}` : `${v.isolation}; ${REASON_NOT_RECORDED}`;
  return (
    <Badge tone={v.isolation === 'in-process' ? 'warn' : 'muted'} testId="candidate-isolation" title={why}>
      {v.isolation}
    </Badge>
  );
}

/** The opened card's line: where the verdict was decided, why, and what that promises. */
function IsolationLine({ v }: { v: CandidateVerdict }) {
  if (!v.isolation)
    return (
      <p className="small muted" data-testid="candidate-isolation-detail" data-isolation="unknown">
        Isolation not recorded.
      </p>
    );
  return (
    <p className="small cand-isolation" data-testid="candidate-isolation-detail" data-isolation={v.isolation}>
      <IsolationBadge v={v} /> <span data-testid="candidate-isolation-reason">{v.isolationReason ?? REASON_NOT_RECORDED}</span>
      <span className="muted"> — {ISOLATION_MEANING[v.isolation]}.</span>
    </p>
  );
}

const OUTCOME_TONE: Record<string, Tone> = { passed: 'good', failed: 'bad', error: 'warn', skipped: 'muted', 'not-run': 'muted', timeout: 'warn' };

/** Test ids share a long module prefix; show the distinguishing tail. */
function commonPrefix(ids: string[]): string {
  if (ids.length < 2) return '';
  let p = ids[0]!;
  for (const id of ids) while (!id.startsWith(p)) p = p.slice(0, p.lastIndexOf('.') >= 0 ? p.lastIndexOf('.') : 0);
  if (!p || ids.some((id) => id === p)) return '';
  return p.endsWith('.') ? p : `${p}.`;
}

export function TestResults({ tests, testId }: { tests: { id: string; outcome: string; message?: string }[]; testId?: string }) {
  const [showAll, setShowAll] = useState(false);
  if (!tests.length) return <p className="muted small">No per-test results (a check-template task reports one verdict).</p>;
  const prefix = commonPrefix(tests.map((t) => t.id));
  const failing = tests.filter((t) => t.outcome !== 'passed');
  const shown = showAll ? tests : failing.length ? failing : tests;
  return (
    <div className="tests" data-testid={testId ?? 'test-results'}>
      <div className="row between small">
        <span className="tabular">
          {tests.length - failing.length} of {tests.length} tests the command ran passed{prefix ? <span className="muted mono"> · {prefix}…</span> : null}
        </span>
        {failing.length && failing.length < tests.length ? (
          <button type="button" className="link-btn" onClick={() => setShowAll(!showAll)}>
            {showAll ? 'Show failing only' : `Show all ${tests.length}`}
          </button>
        ) : null}
      </div>
      <ul className="test-list">
        {shown.map((t) => (
          <li key={t.id} className="test" data-testid="test-result" data-outcome={t.outcome}>
            <Badge tone={OUTCOME_TONE[t.outcome] ?? 'neutral'}>{t.outcome}</Badge>
            <span className="mono small test-id" title={t.id}>
              {prefix ? t.id.slice(prefix.length) : t.id}
            </span>
            {t.message ? (
              <details className="test-msg">
                <summary className="small">message</summary>
                <pre className="code code-small">{t.message}</pre>
              </details>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Candidates({ result }: { result: TaskResult }) {
  const sel = result.selected;
  const selectedIdx = sel.origin === 'candidate' ? sel.candidateIndex : null;
  const [open, setOpen] = useState<number | null>(selectedIdx ?? 0);
  if (!result.candidates.length) return <Empty title="No candidates" testId="candidates-empty" />;
  return (
    <div data-testid="candidates">
      <div className="cand-strip" role="list" aria-label="candidates">
        {result.candidates.map((c) => (
          <button
            key={c.index}
            type="button"
            role="listitem"
            className={`cand-chip ${open === c.index ? 'cand-chip-open' : ''}`}
            onClick={() => setOpen(open === c.index ? null : c.index)}
            aria-expanded={open === c.index}
            data-testid="candidate-chip"
          >
            <span className="cand-n">Candidate {c.index + 1}</span>
            <Badge tone={VERDICT_TONE[c.verdict.status] ?? 'neutral'} testId="verdict-badge">
              {c.verdict.status}
            </Badge>
            <span className="tabular small muted">
              {c.verdict.passedTests}/{c.verdict.totalTests} target tests
            </span>
            <IsolationBadge v={c.verdict} />
            <CandidateNote c={c} />
            {selectedIdx === c.index ? (
              <span className="sel-mark">selected</span>
            ) : sel.origin === 'repair' && sel.candidateIndex === c.index ? (
              <span className="sel-mark sel-mark-quiet">repaired</span>
            ) : null}
          </button>
        ))}
      </div>
      {result.candidates.map((c) =>
        open === c.index ? (
          <div key={c.index} className="cand" data-testid="candidate" data-index={c.index} data-status={c.verdict.status} data-reply={c.reply ?? 'unknown'}>
            <div className="cand-head">
              <strong>Candidate {c.index + 1}</strong>
              <Badge tone={VERDICT_TONE[c.verdict.status] ?? 'neutral'} testId="candidate-verdict">
                {c.verdict.status}
              </Badge>
              <span className="muted small tabular">
                group {c.group + 1} · {duration(c.verdict.durationMs)}
              </span>
            </div>
            <p className="small">{c.verdict.reason}</p>
            <IsolationLine v={c.verdict} />
            {c.origin ? <p className="small muted">Origin: {c.origin}</p> : null}
            <div className="grid-2 grid-top">
              <div>
                <div className="h4">Code</div>
                {c.code ? (
                  <pre className="code" data-testid="candidate-code">
                    {c.code}
                  </pre>
                ) : (
                  <p className="muted small" data-testid="candidate-no-code">
                    {c.reply && REPLY_LABEL[c.reply] ? `No code: ${REPLY_LABEL[c.reply]}.` : 'No code.'} It counts as a failed sample.
                  </p>
                )}
              </div>
              <div>
                <div className="h4">Tests</div>
                <TestResults tests={result.detail?.tests[c.index] ?? []} />
                <div className="h4">Static findings</div>
                <Findings findings={result.detail?.findings[c.index] ?? []} />
              </div>
            </div>
          </div>
        ) : null,
      )}
    </div>
  );
}

export function Findings({ findings }: { findings: { kind: string; severity: string; message: string; line?: number }[] }) {
  if (!findings.length)
    return (
      <p className="muted small" data-testid="findings-empty">
        No static findings.
      </p>
    );
  return (
    <ul className="findings" data-testid="static-findings">
      {findings.map((f, i) => (
        <li key={i} className="finding">
          <Badge tone={f.severity === 'error' ? 'bad' : f.severity === 'warning' ? 'warn' : 'muted'}>{f.severity}</Badge>
          <span className="mono small">{f.kind}</span>
          {f.line !== undefined ? <span className="muted small tabular">line {f.line}</span> : null}
          <span className="small">{f.message}</span>
        </li>
      ))}
    </ul>
  );
}
