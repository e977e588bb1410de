// Experiment: estimate the cost, start (run / ablate / ladder) with live progress, resume interrupted runs, and
// for one run (or two compared) see the summary, the paired comparisons, the charts and every task, with a
// drill-down to the stored task result.

import { useEffect, useMemo, useRef, useState } from 'react';
import { PathSchema, type CallError, type CostEstimateInfo, type ReportModel, type RunListItem, type TaskRow } from '../api/contract.ts';
import { Badge, Empty, ErrorBox, Field, JobCard, Loading, Section, Tabs, type Tone } from '../components/ui.tsx';
import { VirtualList } from '../components/VirtualList.tsx';
import { dateTime, duration, int, interval, num, usd } from '../lib/format.ts';
import { asCallError, engine, getStore, modelKey, useApp } from '../store.ts';
import { ApiChart, CalibrationChart, condName, FactorialCharts, PassAtKChart, SelectedVsRawChart } from './experiment/Charts.tsx';
import { MethodPicker } from './TaskView.tsx';
import { SampleSets } from './experiment/SampleSets.tsx';
import './ExperimentView.css';

type Kind = 'run' | 'ablate' | 'ladder';

export function ExperimentView() {
  return (
    <div className="view view-wide" data-testid="experiment-view">
      <header className="view-head">
        <div>
          <h1>Experiment</h1>
          <p className="view-sub">Methods on a frozen manifest, paired by task: estimate, run, resume, and read the results.</p>
        </div>
      </header>
      <div className="grid-2 grid-top">
        <StartExperiment />
        <ExperimentJobs />
      </div>
      <RunsList />
      <RunAnalysis />
      <SampleSets />
    </div>
  );
}

function StartExperiment() {
  const info = useApp((s) => s.info.data);
  const storeManifest = useApp((s) => s.manifest);
  const [kind, setKind] = useState<Kind>('run');
  const [methods, setMethods] = useState<string[]>(['baseline-rag', 'rag-verify-repair', 'opencoder']);
  const [manifest, setManifest] = useState(storeManifest ?? info?.sampleManifest ?? '');
  const [limit, setLimit] = useState('');
  const [samples, setSamples] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [estimate, setEstimate] = useState<{ status: 'idle' | 'loading' | 'ready' | 'error'; data: CostEstimateInfo | null; error: CallError | null; key: string }>({ status: 'idle', data: null, error: null, key: '' });
  const [startError, setStartError] = useState<CallError | null>(null);
  const [starting, setStarting] = useState(false);
  const seeded = useRef(!!manifest);
  useEffect(() => {
    // Fill the default once (the app info may arrive after the view); a field the analyst cleared stays empty.
    if (seeded.current || !(storeManifest || info?.sampleManifest)) return;
    seeded.current = true;
    setManifest(storeManifest ?? info!.sampleManifest);
  }, [storeManifest, info?.sampleManifest]);

  const input = () => {
    const errs: Record<string, string> = {};
    const m = PathSchema.safeParse(manifest.trim());
    if (!m.success) errs.manifest = m.error.issues[0]?.message ?? 'not a valid path';
    let n: number | undefined;
    if (limit.trim()) {
      n = Number(limit);
      if (!Number.isInteger(n) || n < 1) errs.limit = 'a whole number of tasks, at least 1 (or empty for all)';
    }
    if (kind === 'run' && !methods.length) errs.methods = 'choose at least one method';
    if (samples.trim()) {
      const sp = PathSchema.safeParse(samples.trim());
      if (!sp.success) errs.samples = sp.error.issues[0]?.message ?? 'not a valid path';
    }
    setErrors(errs);
    if (Object.keys(errs).length) return null;
    return { manifest: manifest.trim(), kind, ...(n ? { limit: n } : {}), ...(kind === 'run' ? { methods } : {}), ...(samples.trim() ? { samples: samples.trim() } : {}) };
  };
  const keyOf = (x: object) => JSON.stringify(x);
  const current = useMemo(() => keyOf({ manifest: manifest.trim(), kind, limit: limit.trim(), methods: kind === 'run' ? methods : [], samples: samples.trim() }), [manifest, kind, limit, methods, samples]);
  const estimateFresh = estimate.status === 'ready' && estimate.key === current;

  const doEstimate = async () => {
    const x = input();
    if (!x) return;
    setEstimate({ status: 'loading', data: null, error: null, key: current });
    try {
      const data = await engine().call('experiment.estimate', x);
      setEstimate({ status: 'ready', data, error: null, key: current });
    } catch (err) {
      const e = asCallError(err);
      const byField: Record<string, string> = {};
      for (const i of e.issues ?? []) byField[i.path.split('.')[0]!] = i.message;
      if (Object.keys(byField).length) setErrors(byField);
      setEstimate({ status: 'error', data: null, error: e, key: current });
    }
  };
  const start = async () => {
    const x = input();
    if (!x) return;
    setStarting(true);
    setStartError(null);
    try {
      await engine().call('experiment.start', x);
      await getStore().getState().refreshJobs();
      setEstimate({ status: 'idle', data: null, error: null, key: '' });
    } catch (err) {
      setStartError(asCallError(err));
    } finally {
      setStarting(false);
    }
  };

  return (
    <Section title="Start an experiment" testId="experiment-start">
      <Tabs<Kind>
        label="Experiment kind"
        value={kind}
        onChange={setKind}
        idBase="exp-kind"
        testId="experiment-kind"
        items={[
          { id: 'run', label: 'Compare methods', testId: 'experiment-kind-run' },
          { id: 'ablate', label: '2³ source factorial', testId: 'experiment-kind-ablate' },
          { id: 'ladder', label: 'Component ladder', testId: 'experiment-kind-ladder' },
        ]}
      />
      <div className="tab-panel" role="tabpanel" id="exp-kind-panel" aria-labelledby={`exp-kind-tab-${kind}`}>
        {kind === 'run' ? (
          <>
            <MethodPicker value={methods} onChange={setMethods} testId="experiment-methods" />
            {errors.methods ? <div className="field-error">{errors.methods}</div> : null}
          </>
        ) : kind === 'ablate' ? (
          <p className="small muted">Eight cells A1X1S1 … A0X0S0: OpenCoder with each combination of API, context and similar-code evidence; factorial main and interaction effects with intervals.</p>
        ) : (
          <p className="small muted">Baseline RAG, then decomposition, uncertainty filtering, guided generation, verified selection and repair added one at a time (RQ2).</p>
        )}
        <div className="form-row">
          <Field label="Manifest" error={errors.manifest ?? null}>
            {(id, d) => <input id={id} aria-describedby={d} className="input input-wide mono" value={manifest} onChange={(e) => setManifest(e.target.value)} data-testid="experiment-manifest" spellCheck={false} />}
          </Field>
          <Field label="Task limit" error={errors.limit ?? null} hint="empty: all tasks">
            {(id, d) => <input id={id} aria-describedby={d} className="input input-num" inputMode="numeric" value={limit} placeholder="all" onChange={(e) => setLimit(e.target.value)} data-testid="experiment-limit" />}
          </Field>
        </div>
        <div className="form-row">
          <Field label="Published samples (optional)" error={errors.samples ?? null} hint="a sample set: its samples are the candidates, byte for byte, instead of the Settings backend; they cannot be repaired">
            {(id, d) => (
              <input id={id} aria-describedby={d} className="input input-wide mono" value={samples} onChange={(e) => setSamples(e.target.value)} placeholder="none: use the Settings backend" data-testid="experiment-samples" spellCheck={false} />
            )}
          </Field>
        </div>
        <div className="row gap">
          <button type="button" className="btn" onClick={() => void doEstimate()} disabled={estimate.status === 'loading'} data-testid="experiment-estimate">
            {estimate.status === 'loading' ? 'Estimating…' : 'Estimate cost'}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={!estimateFresh || starting} data-testid="experiment-start-button" title={estimateFresh ? '' : 'Estimate the cost first'}>
            {starting ? 'Starting…' : 'Start'}
          </button>
          {!estimateFresh && estimate.status !== 'loading' ? <span className="small muted">Estimate first; the estimate is shown before anything is sent.</span> : null}
        </div>
        {estimate.status === 'error' ? <ErrorBox error={estimate.error} title="Could not estimate" /> : null}
        {estimate.data && estimateFresh ? (
          <div className="estimate" data-testid="experiment-estimate-result">
            <div className="estimate-grid tabular">
              <div>
                <span className="muted small">Calls</span>
                <strong>{int(estimate.data.calls)}</strong>
              </div>
              <div>
                <span className="muted small">Input tokens</span>
                <strong>{int(estimate.data.inputTokens)}</strong>
              </div>
              <div>
                <span className="muted small">Output tokens (expected)</span>
                <strong>{int(estimate.data.outputTokensExpected)}</strong>
              </div>
              <div>
                <span className="muted small">Cost expected / at most</span>
                <strong data-testid="estimate-usd">
                  {estimate.data.usdExpected === null ? 'no price known' : `${usd(estimate.data.usdExpected)} / ${usd(estimate.data.usdMax)}`}
                </strong>
              </div>
            </div>
            <p className="small">{estimate.data.note}</p>
            <p className="small muted">{estimate.data.assumptions}</p>
          </div>
        ) : null}
        <ErrorBox error={startError} title="Could not start" />
      </div>
    </Section>
  );
}

function ExperimentJobs() {
  const jobs = useApp((s) => s.jobs);
  const jobAction = useApp((s) => s.jobAction);
  const exp = jobs.filter((j) => j.kind === 'experiment');
  const active = exp.filter((j) => j.state === 'running' || j.state === 'paused');
  const recent = exp.filter((j) => !(j.state === 'running' || j.state === 'paused')).slice(0, 3);
  return (
    <Section title="Progress" testId="experiment-progress" subtitle="Each result is stored the moment it finishes; a cancelled run resumes where it stopped.">
      {!exp.length ? (
        <Empty title="No experiment running" testId="experiment-progress-empty">
          Estimate and start one on the left.
        </Empty>
      ) : (
        <div className="job-list">
          {[...active, ...recent].map((j) => (
            <JobCard key={j.id} job={j} onAction={(a) => void jobAction(j.id, a)} testId="experiment-job" />
          ))}
        </div>
      )}
    </Section>
  );
}

const RUN_TONE: Record<RunListItem['state'], Tone> = { running: 'info', done: 'good', cancelled: 'muted', interrupted: 'warn' };

function RunsList() {
  const runs = useApp((s) => s.runs);
  const selected = useApp((s) => s.selectedRuns);
  const selectRuns = useApp((s) => s.selectRuns);
  const refresh = useApp((s) => s.refreshRuns);
  const [resumeError, setResumeError] = useState<CallError | null>(null);
  const list = runs.data ?? [];
  const toggle = (id: string) => selectRuns(selected.includes(id) ? selected.filter((x) => x !== id) : [...selected, id]);
  const resume = async (id: string) => {
    setResumeError(null);
    try {
      await engine().call('experiment.resume', { runId: id });
      await getStore().getState().refreshJobs();
    } catch (err) {
      setResumeError(asCallError(err));
    }
  };
  return (
    <Section
      title="Runs"
      subtitle="Choose one run to analyse, or two to compare them task by task."
      testId="runs"
      actions={
        <button type="button" className="btn btn-small btn-quiet" onClick={() => void refresh()} data-testid="runs-refresh">
          Refresh
        </button>
      }
    >
      {runs.status === 'loading' && !runs.data ? <Loading label="Listing runs…" /> : null}
      {runs.status === 'error' ? <ErrorBox error={runs.error} title="Could not list runs" onRetry={() => void refresh()} /> : null}
      {runs.data && !list.length ? (
        <Empty title="No runs yet" testId="runs-empty">
          Start an experiment above; it appears here at once.
        </Empty>
      ) : null}
      {list.length ? (
        <VirtualList
          items={list}
          rowHeight={48}
          height={Math.min(340, list.length * 48 + 2)}
          label="Runs"
          role="table"
          testId="runs-list"
          getKey={(r) => r.id}
          header={
            <div className="vtable-head runs-grid">
              <span />
              <span>Run</span>
              <span>Kind</span>
              <span>State</span>
              <span>Created</span>
              <span className="num">Tasks</span>
              <span>Conditions</span>
              <span className="num">Results</span>
              <span>Backend</span>
              <span />
            </div>
          }
          renderRow={(r) => (
            <div className={`vtable-row runs-grid ${selected.includes(r.id) ? 'vtable-row-selected' : ''}`} data-testid="run-row" data-run-id={r.id}>
              <span>
                <input type="checkbox" checked={selected.includes(r.id)} onChange={() => toggle(r.id)} aria-label={`select run ${r.id}`} data-testid="run-select" />
              </span>
              <span className="mono small ellipsis" title={r.id}>
                {r.id}
              </span>
              <span>{r.kind}</span>
              <span>
                <Badge tone={RUN_TONE[r.state]}>{r.state}</Badge>
              </span>
              <span className="small tabular">{dateTime(r.createdAt)}</span>
              <span className="num">{int(r.tasks)}</span>
              <span className="small ellipsis" title={r.conditions.join(', ')}>
                {r.conditions.length <= 3 ? r.conditions.join(', ') : `${r.conditions.length} conditions`}
              </span>
              <span className="num small">
                {int(r.results)}
                {r.errors ? <span className="text-bad"> · {r.errors} err</span> : null}
              </span>
              <span className="small ellipsis" title={r.backend}>
                {r.backend}
              </span>
              <span>
                {r.state === 'interrupted' || r.state === 'cancelled' ? (
                  <button type="button" className="btn btn-small" onClick={() => void resume(r.id)} data-testid="run-resume">
                    Resume
                  </button>
                ) : null}
              </span>
            </div>
          )}
        />
      ) : null}
      <ErrorBox error={resumeError} title="Could not resume" />
    </Section>
  );
}

type AnalysisTab = 'summary' | 'charts' | 'tasks';

function RunAnalysis() {
  const selected = useApp((s) => s.selectedRuns);
  const key = modelKey(selected);
  const model = useApp((s) => s.models[key]);
  const loadModel = useApp((s) => s.loadModel);
  const [tab, setTab] = useState<AnalysisTab>('charts');
  useEffect(() => {
    if (selected.length && (!model || model.status === 'idle')) void loadModel(selected);
  }, [key, model, selected, loadModel]);
  if (!selected.length) {
    return (
      <Section title="Analysis" testId="run-analysis">
        <Empty title="No run chosen" testId="analysis-empty">
          Tick a run in the list above to see its charts and tasks.
        </Empty>
      </Section>
    );
  }
  return (
    <Section
      title={selected.length > 1 ? 'Comparison of two runs' : 'Analysis'}
      subtitle={<span className="mono">{selected.join('  vs  ')}</span>}
      testId="run-analysis"
      actions={
        <button type="button" className="btn btn-small btn-quiet" onClick={() => void loadModel(selected, true)} data-testid="analysis-reload">
          Reload
        </button>
      }
    >
      {!model || (model.status === 'loading' && !model.data) ? <Loading label="Computing the report model (bootstrap intervals take a moment)…" testId="analysis-loading" /> : null}
      {model?.status === 'error' ? <ErrorBox error={model.error} title="Could not analyse" onRetry={() => void loadModel(selected, true)} /> : null}
      {model?.data ? (
        <>
          <Tabs<AnalysisTab>
            label="Analysis"
            value={tab}
            onChange={setTab}
            idBase="analysis"
            testId="analysis-tabs"
            items={[
              { id: 'summary', label: 'Summary', testId: 'analysis-tab-summary' },
              { id: 'charts', label: 'Charts', testId: 'analysis-tab-charts' },
              { id: 'tasks', label: `Tasks (${model.data.tasks.length})`, testId: 'analysis-tab-tasks' },
            ]}
          />
          <div role="tabpanel" id="analysis-panel" aria-labelledby={`analysis-tab-${tab}`} className="tab-panel">
            {tab === 'summary' ? <Summary model={model.data} /> : tab === 'charts' ? <ChartsPanel model={model.data} /> : <TasksTable model={model.data} />}
          </div>
        </>
      ) : null}
    </Section>
  );
}

function Summary({ model }: { model: ReportModel }) {
  const ks = [...new Set(model.conditions.flatMap((c) => c.passAtK.map((p) => p.k)))].sort((a, b) => a - b);
  return (
    <div data-testid="analysis-summary">
      <div className="provenance small muted">
        {model.runs.map((r) => (
          <div key={r.id}>
            <span className="mono">{r.id}</span> · {r.kind} · {r.status} · {r.manifest.tasks} tasks · {r.backend.label} · encoder {r.encoder.name} · sandbox {r.sandbox} · prompts {r.prompts.version}
          </div>
        ))}
      </div>
      <div className="table-scroll">
        <table className="table table-nowrap-heads" data-testid="conditions-table">
          <thead>
            <tr>
              <th>Condition</th>
              <th className="num">Tasks</th>
              <th className="num">Failed</th>
              {ks.map((k) => (
                <th key={k} className="num">
                  Pass@{k}
                </th>
              ))}
              <th className="num">Selected correct [95 % CI]</th>
              <th className="num">Raw Pass@1</th>
              <th className="num">Repair rec.</th>
              <th className="num">Mean uncert.</th>
              <th className="num">ECE</th>
              <th className="num">AUROC</th>
              <th className="num" title="Repository protocol: discovery in the whole repository, strict module:qualname keys, mean over the tasks with a non-empty truth">
                API F1 <span className="muted small">repository · strict</span>
              </th>
              <th className="num" title="Task-view protocol (RQ4): the task’s own view is the pool, bare names, mean over all tasks, empty truths included">
                API F1 / exact <span className="muted small">task-view · bare</span>
              </th>
              <th className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {model.conditions.map((c) => (
              <tr key={`${c.runId}-${c.condition}`}>
                <th scope="row">{condName(model, c)}</th>
                <td className="num">{int(c.tasks)}</td>
                <td className="num">{c.failures ? <span className="text-bad">{c.failures}</span> : 0}</td>
                {ks.map((k) => (
                  <td key={k} className="num">
                    {num(c.passAtK.find((p) => p.k === k)?.value.estimate)}
                  </td>
                ))}
                <td className="num">{interval(c.selectedCorrect)}</td>
                <td className="num">{num(c.rawPass1.estimate)}</td>
                <td className="num">{c.repair.rate === null ? '—' : `${c.repair.recovered}/${c.repair.attempted}`}</td>
                <td className="num">{num(c.uncertainty.mean)}</td>
                <td className="num">{num(c.uncertainty.ece)}</td>
                <td className="num" title={c.uncertainty.degenerate ?? undefined}>
                  {num(c.uncertainty.auroc)}
                  {c.uncertainty.degenerate ? <span className="text-warn small" data-testid="auroc-degenerate"> degenerate</span> : null}
                </td>
                <td className="num" data-testid="api-f1-repository" title={c.api ? `${c.api.tasks} tasks with truth` : undefined}>
                  {c.api ? num(c.api.f1) : '—'}
                  {c.api ? <span className="muted small"> ({c.api.tasks})</span> : null}
                </td>
                <td className="num" data-testid="api-f1-task-view" title={c.apiTaskView ? `${c.apiTaskView.tasks} tasks (${c.apiTaskView.emptyTruth} with an empty truth)` : undefined}>
                  {c.apiTaskView ? `${num(c.apiTaskView.f1)} / ${num(c.apiTaskView.exact)}` : '—'}
                  {c.apiTaskView ? <span className="muted small"> ({c.apiTaskView.tasks})</span> : null}
                </td>
                <td className="num">{usd(c.cost.usd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {model.conditions.some((c) => c.warnings?.length) ? (
        <ul className="notes small chart-warning" data-testid="condition-warnings">
          {model.conditions.flatMap((c) =>
            (c.warnings ?? []).map((w, i) => (
              <li key={`${c.runId}-${c.condition}-${i}`}>
                Degenerate — {condName(model, c)}: {w}
              </li>
            )),
          )}
        </ul>
      ) : null}
      {model.comparisons.length ? (
        <>
          <h3 className="h3">Paired comparisons (selected-output correctness)</h3>
          <div className="table-scroll">
            <table className="table table-nowrap-heads" data-testid="comparisons-table">
              <thead>
                <tr>
                  <th>A vs B</th>
                  <th className="num">Tasks</th>
                  <th className="num">W / L / T</th>
                  <th className="num">McNemar p</th>
                  <th className="num">Holm p</th>
                  <th title="The comparisons adjusted together: one backend (or pair of backends), selected-output correctness">Holm family</th>
                  <th className="num">Δ selected [95 % CI]</th>
                  <th className="num" title="Paired sign-flip permutation test of the per-task Pass@1 differences">Pass@1 p</th>
                </tr>
              </thead>
              <tbody>
                {model.comparisons.map((c, i) => (
                  <tr key={i}>
                    <th scope="row">
                      {condName(model, c.a)} <span className="muted">vs</span> {condName(model, c.b)}
                    </th>
                    <td className="num">{c.tasks}</td>
                    <td className="num">
                      <span className="text-good">{c.wins}</span> / <span className="text-bad">{c.losses}</span> / {c.ties}
                    </td>
                    <td className="num">{num(c.mcnemarP)}</td>
                    <td className={`num ${c.mcnemarPHolm < 0.05 ? 'text-strong' : ''}`}>{num(c.mcnemarPHolm)}</td>
                    <td>
                      {c.holmFamily?.key ?? '—'} <span className="muted">({c.holmFamily?.size ?? '?'})</span>
                    </td>
                    <td className="num">{interval(c.selectedDiff)}</td>
                    <td className="num">{c.passAtKDiff[0]?.test ? num(c.passAtKDiff[0].test.p) : 'n/a'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
      {model.statistics.notes.length ? (
        <ul className="notes small muted">
          {model.statistics.notes.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function ChartsPanel({ model }: { model: ReportModel }) {
  return (
    <div data-testid="analysis-charts">
      <FactorialCharts model={model} />
      <div className="chart-grid">
        <PassAtKChart model={model} />
        <SelectedVsRawChart model={model} />
        <CalibrationChart model={model} />
        <ApiChart model={model} />
      </div>
    </div>
  );
}

function TasksTable({ model }: { model: ReportModel }) {
  const openResult = useApp((s) => s.openResult);
  const [filter, setFilter] = useState('');
  const [only, setOnly] = useState<'all' | 'correct' | 'wrong' | 'error'>('all');
  const rows = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return model.tasks.filter(
      (t) =>
        (!q || t.taskId.toLowerCase().includes(q) || t.condition.toLowerCase().includes(q)) &&
        (only === 'all' || (only === 'error' ? !!t.error : only === 'correct' ? !t.error && t.selectedCorrect : !t.error && !t.selectedCorrect)),
    );
  }, [model.tasks, filter, only]);
  const label = (t: TaskRow) => model.conditions.find((c) => c.runId === t.runId && c.condition === t.condition)?.label ?? t.condition;
  return (
    <div data-testid="tasks-table-wrap">
      <div className="row gap">
        <input className="input" placeholder="Filter by task or condition" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Filter tasks" data-testid="tasks-table-filter" />
        <Tabs
          small
          label="Show"
          value={only}
          onChange={setOnly}
          idBase="tasks-only"
          items={[
            { id: 'all', label: 'All' },
            { id: 'correct', label: 'Correct' },
            { id: 'wrong', label: 'Wrong' },
            { id: 'error', label: 'Errors' },
          ]}
        />
        <span className="small muted tabular">{rows.length.toLocaleString('en-US')} rows · Enter or click opens the task</span>
      </div>
      {!rows.length ? <Empty title="No rows match" testId="tasks-table-empty" /> : null}
      {rows.length ? (
        <VirtualList
          items={rows}
          rowHeight={40}
          height={Math.min(520, rows.length * 40 + 2)}
          label="Task results"
          role="table"
          testId="tasks-table"
          getKey={(t, i) => `${t.runId}|${t.condition}|${t.taskId}|${i}`}
          header={
            <div className="vtable-head tasks-grid">
              <span>Task</span>
              <span>Condition</span>
              <span>Selected</span>
              <span className="num">c / n</span>
              <span className="num">Pass@1</span>
              <span className="num">Uncert.</span>
              <span className="num" title="API F1, repository protocol (strict keys; — when the truth is empty)">API F1 repo</span>
              <span className="num" title="API F1, task-view protocol (bare names; all tasks)">API F1 view</span>
              <span className="num">Repairs</span>
              <span className="num">Time</span>
            </div>
          }
          renderRow={(t) => (
            <button type="button" className="vtable-row tasks-grid row-button" onClick={() => void openResult(t.runId, t.taskId, t.condition)} data-testid="task-table-row" data-task-id={t.taskId} data-condition={t.condition} disabled={!!t.error} title={t.error ?? `open ${t.taskId} / ${t.condition}`}>
              <span className="mono small ellipsis">{t.taskId}</span>
              <span className="small ellipsis">{label(t)}</span>
              <span>
                {t.error ? (
                  <Badge tone="warn">error</Badge>
                ) : (
                  <Badge tone={t.selectedCorrect ? 'good' : 'bad'} testId="task-verdict">
                    {t.selectedCorrect ? 'correct' : 'wrong'}
                  </Badge>
                )}
              </span>
              <span className="num">{t.error ? '—' : `${t.c} / ${t.n}`}</span>
              <span className="num">{t.error ? '—' : num(t.pass1, 2)}</span>
              <span className="num">{t.error ? '—' : num(t.uncertainty, 2)}</span>
              <span className="num">{num(t.apiF1, 2)}</span>
              <span className="num">{num(t.apiF1TaskView, 2)}</span>
              <span className="num">{t.repairRounds || '—'}</span>
              <span className="num small">{duration(t.durationMs)}</span>
            </button>
          )}
        />
      ) : null}
    </div>
  );
}
