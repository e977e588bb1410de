// Ablation: switch evidence sources (API, context, similar code) and methods, re-run the current task (or a
// task set as an experiment), and compare the new condition with the previous one side by side.

import { useMemo, useState } from 'react';
import { SOURCES, type CallError, type Sources, type TaskResult } from '../api/contract.ts';
import { Badge, Empty, ErrorBox, JobCard, Loading, Section, Switch, TextField, ViewHead } from '../components/ui.tsx';
import { isNum, num, passAtK, signed } from '../lib/format.ts';
import { cellId, SOURCE_META } from '../lib/sources.ts';
import { asCallError, engine, getStore, useApp, type TaskRunRecord } from '../store.ts';
import { MethodPicker, useMethodLabel } from './task/MethodPicker.tsx';
import './AblationView.css';

export function AblationView() {
  const sources = useApp((s) => s.ablationSources);
  const methods = useApp((s) => s.selectedMethods);
  const current = useApp((s) => s.taskRun.current);
  const previous = useApp((s) => s.taskRun.previous);

  return (
    <div className="view view-wide" data-testid="ablation-view">
      <ViewHead title="Ablation" sub="Switch evidence sources and methods, re-run, and see what changed against the previous condition." />
      <div className="grid-2 grid-top">
        <ConditionControls />
        <div className="stack">
          <RerunCurrent sources={sources} methods={methods} current={current} />
          <TaskSetRun sources={sources} methods={methods} />
        </div>
      </div>
      <Comparison previous={previous} current={current} />
    </div>
  );
}

/** The source switches (with the factorial cell they make) and the methods. */
function ConditionControls() {
  const sources = useApp((s) => s.ablationSources);
  const setSources = useApp((s) => s.setAblationSources);
  const methods = useApp((s) => s.selectedMethods);
  const setMethods = useApp((s) => s.setSelectedMethods);
  const noSource = !sources.api && !sources.context && !sources.similar;
  return (
    <Section title="Condition" testId="ablation-controls">
      <div className="h4">Evidence sources</div>
      <div className="switches" data-testid="source-toggles">
        {SOURCES.map((s) => (
          <Switch
            key={s}
            checked={sources[s]}
            onChange={(v) => setSources({ ...sources, [s]: v })}
            label={SOURCE_META[s].label}
            color={SOURCE_META[s].color}
            testId={`toggle-${s}`}
            description={
              s === 'api'
                ? 'signatures and docs of repository APIs'
                : s === 'context'
                  ? 'module headers, class skeletons, siblings'
                  : 'bodies of similar functions'
            }
          />
        ))}
      </div>
      <p className="small muted">
        Factorial cell{' '}
        <span className="mono" data-testid="ablation-cell">
          {cellId(sources)}
        </span>
        {noSource ? ' — no retrieval at all: the generator sees only the requirement and signature.' : ''}
      </p>
      <div className="h4">Methods</div>
      <MethodPicker value={methods} onChange={setMethods} />
    </Section>
  );
}

/** Re-runs the current task (else the one chosen in the Task view) with the switches and methods set here. */
function RerunCurrent({ sources, methods, current }: { sources: Sources; methods: string[]; current: TaskRunRecord | null }) {
  const selectedTaskId = useApp((s) => s.selectedTaskId);
  const runTask = useApp((s) => s.runTask);
  const job = useApp((s) => (current ? s.jobs.find((j) => j.id === current.jobId) : undefined));
  const [error, setError] = useState<CallError | null>(null);

  const target = current
    ? current.custom
      ? { custom: current.custom, label: current.label }
      : { taskId: current.taskId!, label: current.label }
    : selectedTaskId
      ? { taskId: selectedTaskId, label: selectedTaskId }
      : null;
  const running = current?.status === 'running' || current?.status === 'loading';

  const rerun = async () => {
    if (!target) return;
    setError(null);
    try {
      await runTask({ ...('custom' in target ? { custom: target.custom } : { taskId: target.taskId }), methods, sources });
    } catch (err) {
      setError(asCallError(err));
    }
  };

  return (
    <Section title="Re-run the current task" testId="ablation-rerun">
      {target ? (
        <>
          <p className="small">
            Task <strong className="mono">{target.label}</strong>
          </p>
          <button type="button" className="btn btn-primary" disabled={running || !methods.length} onClick={() => void rerun()} data-testid="ablation-run">
            {running ? 'Running…' : 'Re-run with these switches'}
          </button>
          <ErrorBox error={error} title="Could not start the run" onAllowed={() => void rerun()} testId="ablation-run-error" />
          {job && running ? <JobCard job={job} onAction={(a) => void getStore().getState().jobAction(job.id, a)} testId="ablation-job" /> : null}
        </>
      ) : (
        <Empty title="No task chosen yet" testId="ablation-no-task">
          Choose a task in the Task view first.
        </Empty>
      )}
    </Section>
  );
}

/** What "Run on a task set" does, naming the loaded manifest (the Task view's, or one handed over: an import, a mined set). */
function TaskSetSubtitle({ manifest }: { manifest: string | null }) {
  if (!manifest) return <>Starts an experiment on the first tasks of the loaded manifest; its charts are in the Experiment view.</>;
  return (
    <>
      Starts an experiment on the first tasks of{' '}
      <span className="mono break" data-testid="ablation-manifest">
        {manifest}
      </span>
      ; its charts are in the Experiment view.
    </>
  );
}

function TaskSetRun({ sources, methods }: { sources: Sources; methods: string[] }) {
  const manifest = useApp((s) => s.manifest);
  const jobs = useApp((s) => s.jobs);
  const setView = useApp((s) => s.setView);
  const [limit, setLimit] = useState('10');
  const [limitError, setLimitError] = useState<string | null>(null);
  const [error, setError] = useState<CallError | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const allOn = sources.api && sources.context && sources.similar;
  // The factorial cells are OpenCoder with some sources off; other methods always use all three.
  const conds = allOn ? methods : [cellId(sources)];
  const job = jobs.find((j) => j.id === jobId);
  const start = async () => {
    setError(null);
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 1) return setLimitError('a whole number of tasks, at least 1');
    setLimitError(null);
    try {
      const r = await engine().call('experiment.start', { manifest: manifest ?? '', kind: 'run', methods: conds, limit: n });
      setJobId(r.jobId);
    } catch (err) {
      setError(asCallError(err));
    }
  };
  return (
    <Section title="Run on a task set" testId="ablation-taskset" subtitle={<TaskSetSubtitle manifest={manifest} />}>
      {!manifest ? (
        <Empty title="No manifest loaded">Load a manifest in the Task view.</Empty>
      ) : (
        <>
          <div className="form-row">
            <TextField
              label="Tasks"
              error={limitError}
              className="input input-num"
              inputMode="numeric"
              value={limit}
              onText={setLimit}
              data-testid="ablation-limit"
            />
            <div className="form-actions">
              <button type="button" className="btn" disabled={!conds.length} onClick={() => void start()} data-testid="ablation-run-set">
                Start experiment
              </button>
            </div>
          </div>
          <p className="small muted">
            Conditions: <span className="mono">{conds.join(', ') || '—'}</span>
            {!allOn ? ' (a factorial cell: OpenCoder with the switched-off sources removed)' : ''}
          </p>
          <ErrorBox error={error} title="Could not start the experiment" onAllowed={() => void start()} testId="ablation-set-error" />
          {job ? (
            <>
              <JobCard job={job} onAction={(a) => void getStore().getState().jobAction(job.id, a)} testId="ablation-set-job" />
              {job.state === 'done' && job.result?.runId ? (
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => {
                    getStore().getState().selectRuns([job.result!.runId!]);
                    setView('experiment');
                  }}
                  data-testid="ablation-open-run"
                >
                  Open in the Experiment view
                </button>
              ) : null}
            </>
          ) : null}
        </>
      )}
    </Section>
  );
}

interface Row {
  label: string;
  testId: string;
  a: number | null;
  b: number | null;
  digits?: number;
  /** Lower is better (uncertainty). */
  lowerBetter?: boolean;
  color?: string;
  format?: (x: number | null) => string;
  /** A change that is neither better nor worse (how many items each source contributed). */
  neutral?: boolean;
}

function rowsFor(prev: TaskResult | null, cur: TaskResult | null): Row[] {
  const n = cur?.n ?? prev?.n ?? 5;
  const rows: Row[] = [
    {
      label: 'Selected output correct',
      testId: 'cmp-selected',
      a: prev ? Number(prev.selected.correct) : null,
      b: cur ? Number(cur.selected.correct) : null,
      format: (x) => (x === null ? '—' : x ? 'yes' : 'no'),
    },
  ];
  for (let k = 1; k <= n; k++) {
    if (k > 1 && k !== n && k !== 3) continue;
    rows.push({ label: `Pass@${k}`, testId: `cmp-pass-${k}`, a: prev ? passAtK(prev.n, prev.c, k) : null, b: cur ? passAtK(cur.n, cur.c, k) : null });
  }
  for (const s of SOURCES)
    rows.push({
      label: `ū ${SOURCE_META[s].short}`,
      testId: `cmp-u-${s}`,
      a: prev?.retrieval.sourceUncertainty[s] ?? null,
      b: cur?.retrieval.sourceUncertainty[s] ?? null,
      lowerBetter: true,
      color: SOURCE_META[s].color,
    });
  for (const s of SOURCES)
    rows.push({
      label: `Fused items ${SOURCE_META[s].short}`,
      testId: `cmp-fused-${s}`,
      a: prev ? prev.retrieval.fusedBySource[s] : null,
      b: cur ? cur.retrieval.fusedBySource[s] : null,
      digits: 0,
      color: SOURCE_META[s].color,
      neutral: true,
    });
  rows.push({
    label: 'Generation uncertainty',
    testId: 'cmp-gen-u',
    a: prev?.generation.uncertainty.aggregate ?? null,
    b: cur?.generation.uncertainty.aggregate ?? null,
    lowerBetter: true,
  });
  rows.push({ label: 'API F1', testId: 'cmp-api-f1', a: prev?.retrieval.api?.f1 ?? null, b: cur?.retrieval.api?.f1 ?? null });
  return rows;
}

function sourcesLabel(s: Sources) {
  const on = SOURCES.filter((x) => s[x]).map((x) => SOURCE_META[x].short);
  return on.length === 3 ? 'all sources' : on.length ? on.join(' + ') : 'no retrieval';
}

function Comparison({ previous, current }: { previous: TaskRunRecord | null; current: TaskRunRecord | null }) {
  const label = useMethodLabel();
  const conds = useMemo(() => {
    const a = previous?.results.map((r) => r.condition) ?? [];
    const b = current?.results.map((r) => r.condition) ?? [];
    const both = b.filter((c) => a.includes(c));
    return both.length ? both : [...new Set([...b, ...a])];
  }, [previous, current]);
  const [condA, setCondA] = useState<string | null>(null);
  const [condB, setCondB] = useState<string | null>(null);
  if (!current) {
    return (
      <Section title="Side by side" testId="ablation-compare">
        <Empty title="Nothing to compare yet" testId="compare-empty">
          Run a task (here or in the Task view), switch something, and run it again: the two conditions appear side by side.
        </Empty>
      </Section>
    );
  }
  const pickA =
    condA && previous?.results.some((r) => r.condition === condA)
      ? condA
      : (conds.find((c) => previous?.results.some((r) => r.condition === c)) ?? previous?.results[0]?.condition ?? null);
  const pickB =
    condB && current.results.some((r) => r.condition === condB)
      ? condB
      : (conds.find((c) => current.results.some((r) => r.condition === c)) ?? current.results[0]?.condition ?? null);
  const a = previous?.results.find((r) => r.condition === pickA) ?? null;
  const b = current.results.find((r) => r.condition === pickB) ?? null;
  const rows = rowsFor(a, b);
  return (
    <Section title="Side by side" subtitle="The previous condition against the current one, on the same task." testId="ablation-compare">
      {current.status === 'running' || current.status === 'loading' ? <Loading inline label="The current condition is still running…" /> : null}
      <table className="table cmp-table" data-testid="compare-table">
        <thead>
          <tr>
            <th scope="col">Measure</th>
            <th scope="col">
              <ConditionHead rec={previous} cond={pickA} setCond={setCondA} which="Previous" label={label} />
            </th>
            <th scope="col">
              <ConditionHead rec={current} cond={pickB} setCond={setCondB} which="Current" label={label} />
            </th>
            <th scope="col" className="num">
              Δ current − previous
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <CompareRow key={r.testId} row={r} />
          ))}
        </tbody>
      </table>
      {!previous ? <p className="small muted">Run again with different switches to fill the previous column.</p> : null}
    </Section>
  );
}

interface ConditionHeadProps {
  rec: TaskRunRecord | null;
  cond: string | null;
  setCond: (c: string) => void;
  which: 'Previous' | 'Current';
  label: (id: string) => string;
}

/** A column head: the run's task and sources, and the condition shown (a choice when the run has several). */
function ConditionHead({ rec, cond, setCond, which, label }: ConditionHeadProps) {
  if (!rec) return <div className="cmp-head muted">{which}: none yet</div>;
  return (
    <div className="cmp-head">
      <div className="cmp-head-title">
        {which} · <span className="mono">{rec.label}</span>
      </div>
      <div className="small muted">{sourcesLabel(rec.sources)}</div>
      {rec.results.length > 1 ? (
        <select
          className="input input-small"
          value={cond ?? ''}
          onChange={(e) => setCond(e.target.value)}
          aria-label={`${which} condition`}
          data-testid={`cmp-cond-${which.toLowerCase()}`}
        >
          {rec.results.map((r) => (
            <option key={r.condition} value={r.condition}>
              {label(r.condition)}
            </option>
          ))}
        </select>
      ) : cond ? (
        <div className="small">{label(cond)}</div>
      ) : null}
      {rec.status !== 'ready' ? <Badge tone={rec.status === 'failed' ? 'bad' : 'info'}>{rec.status}</Badge> : null}
    </div>
  );
}

/** One measure, previous and current, and the change marked better or worse. */
function CompareRow({ row: r }: { row: Row }) {
  const d = isNum(r.a) && isNum(r.b) ? r.b - r.a : null;
  const better = d === null || Math.abs(d) < 1e-9 || r.neutral ? null : r.lowerBetter ? d < 0 : d > 0;
  const fmt = r.format ?? ((x: number | null) => num(x, r.digits ?? 3));
  return (
    <tr data-testid={r.testId}>
      <th scope="row">
        {r.color ? <span className="src-dot" style={{ background: r.color }} aria-hidden="true" /> : null}
        {r.label}
      </th>
      <td className="num">{fmt(r.a)}</td>
      <td className="num">{fmt(r.b)}</td>
      <td className={`num delta ${better === null ? '' : better ? 'delta-good' : 'delta-bad'}`} data-testid="cmp-delta">
        {d === null ? '—' : r.format ? (d === 0 ? 'same' : d > 0 ? 'now correct' : 'now wrong') : signed(d, r.digits ?? 3)}
      </td>
    </tr>
  );
}
