// The Experiment view's analysis of the chosen run (or two compared): the summary tables (conditions, paired
// comparisons, notes), the charts, and every task with a drill-down to its stored result. Styled by
// ExperimentView.css, which the view imports, and Analysis.css (tables that scroll with a sticky first column).

import { useEffect, useMemo, type ReactNode } from 'react';
import { backendDisplayLabel, type ReportModel, type TaskRow } from '../../api/contract.ts';

type ConditionRow = ReportModel['conditions'][number];

/** `2 unscored (sandbox 1, network 1) — left out of every figure`, or that none is. */
function unscoredTitle(c: ConditionRow): string {
  const causes = Object.entries(c.unscored.byCause).map(([k, n]) => `${k} ${n}`);
  return c.unscored.total
    ? `${c.unscored.total} unscored (${causes.join(', ')}): left out of Pass@k and selected-output correctness, which are over the ${c.tasks} scored tasks`
    : `every pair scored (${c.tasks} tasks)`;
}

/** `1 empty, 2 prose without code, 0 refused of 25 raw candidates (failed samples)`. */
function repliesTitle(c: ConditionRow): string {
  const r = c.replies;
  return `${r.empty} empty, ${r.noCode} prose without code, ${r.refused} refused of ${r.candidates} raw candidates (failed samples)${r.unknown ? `; ${r.unknown} stored before reply kinds were recorded` : ''}`;
}

import { Badge, Empty, ErrorBox, Loading, Section, Tabs } from '../../components/ui.tsx';
import { VirtualList } from '../../components/VirtualList.tsx';
import { duration, int, interval, pct, plural, pValue, rate, usd } from '../../lib/format.ts';
import { mcnemarFlag, permutationFlag, uncertaintyFlag } from '../../../../main/model/degenerate.ts';
import { modelKey, useApp, type AnalysisTab, type TaskRowsShown } from '../../store.ts';
import { ChartsPart } from '../../lazy/charts.tsx';
import { condName } from './cond-name.ts';
import './Analysis.css';

/** A figure with a `degenerate` mark beside it, the reason in its tooltip, when the figure says nothing. */
function Flagged({ value, flag, testId }: { value: string; flag: string | null; testId: string }) {
  return (
    <span title={flag ?? undefined}>
      {value}
      {flag ? (
        <span className="text-warn small" data-testid={testId}>
          {' '}
          degenerate
        </span>
      ) : null}
    </span>
  );
}

/** The verdicts counted apart per condition: flaky ones (never a pass) and in-process ones (best-effort hardening only). */
const APART = {
  flaky: { word: 'flaky', of: (c: ConditionRow) => c.flaky, why: 'the outcome depended on timing and two runs disagreed; never a pass' },
  'in-process': {
    word: 'in-process',
    of: (c: ConditionRow) => c.inProcess,
    why: 'the candidate ran inside the test process, where hardening is a best effort, never a guarantee (verdicts stored before isolation was recorded count here)',
  },
} as const;

/** `1 of 25 candidate verdicts and 0 of 5 selected outputs flaky, on 1 task: t1 — why`. */
function apartTitle(c: ConditionRow, kind: keyof typeof APART): string {
  const { word, of, why } = APART[kind];
  const v = of(c);
  const counts = `${int(v.candidates)} of ${int(v.candidateVerdicts)} candidate verdicts and ${int(v.selected)} of ${int(c.tasks)} selected outputs ${word}`;
  return `${counts}${v.taskIds.length ? `, on ${plural(v.taskIds.length, 'task')}: ${v.taskIds.join(', ')}` : ''} — ${why}`;
}

/** A condition's raw-candidate verdicts of one kind counted apart, of all its raw-candidate verdicts; the rest is in the title. */
function ApartCell({ c, kind, children }: { c: ConditionRow; kind: keyof typeof APART; children?: ReactNode }) {
  const v = APART[kind].of(c);
  return (
    <td className="num" data-testid={`${kind}-verdicts`} title={apartTitle(c, kind)}>
      {v.candidates ? <span className="text-warn">{int(v.candidates)}</span> : 0}
      <span className="muted small"> / {int(v.candidateVerdicts)}</span>
      {children}
    </td>
  );
}

export function RunAnalysis() {
  const selected = useApp((s) => s.selectedRuns);
  const key = modelKey(selected);
  const model = useApp((s) => s.models[key]);
  const loadModel = useApp((s) => s.loadModel);
  // In the store (and so in the address bar): a reload or back / forward shows the same tab.
  const tab = useApp((s) => s.analysis.tab);
  const setAnalysis = useApp((s) => s.setAnalysis);
  const setTab = (t: AnalysisTab) => setAnalysis({ tab: t });
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
      {!model || (model.status === 'loading' && !model.data) ? (
        <Loading label="Computing the report model (bootstrap intervals take a moment)…" testId="analysis-loading" />
      ) : null}
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
            {tab === 'summary' ? <Summary model={model.data} /> : tab === 'charts' ? <ChartsPart model={model.data} /> : <TasksTable model={model.data} />}
          </div>
        </>
      ) : null}
    </Section>
  );
}

function Summary({ model }: { model: ReportModel }) {
  return (
    <div className="analysis-summary" data-testid="analysis-summary">
      <div className="provenance small muted">
        {model.runs.map((r) => (
          <div key={r.id}>
            <span className="mono">{r.id}</span> · {r.kind} · {r.status} · {r.manifest.tasks} tasks · {backendDisplayLabel(r.backend)} · encoder{' '}
            {r.encoder.name} · sandbox {r.sandbox} · prompts {r.prompts.version}
          </div>
        ))}
      </div>
      <ConditionsTable model={model} />
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
          <ComparisonsTable model={model} />
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

/** One row per condition: tasks, Pass@k, selected correctness, repair, uncertainty, both API protocols, cost. */
export function ConditionsTable({ model }: { model: ReportModel }) {
  const ks = [...new Set(model.conditions.flatMap((c) => c.passAtK.map((p) => p.k)))].sort((a, b) => a - b);
  return (
    <div className="table-scroll analysis-table-scroll" data-testid="analysis-table-scroll">
      <table className="table table-nowrap-heads table-sticky-first" data-testid="conditions-table">
        <thead>
          <tr>
            <th>Condition</th>
            <th className="num">Tasks</th>
            <th className="num" title="Pairs the infrastructure failed (API error after retries, no sandbox, harness crash, …): left out of every figure">
              Unscored
            </th>
            <th className="num" title="Raw candidates whose reply held no code (empty, prose, refused): failed samples of the model">
              No-code replies
            </th>
            <th className="num" title="Raw-candidate verdicts whose outcome depended on timing (two runs disagreed): never a pass">
              Flaky
            </th>
            <th
              className="num"
              title="Raw-candidate verdicts decided in-process (best-effort hardening inside the test process), and the share decided isolated (tests in a process the candidate never ran in)"
            >
              In-process <span className="muted small">· isolated</span>
            </th>
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
            <th className="num">AUPRC</th>
            <th
              className="num"
              title="Repository protocol: discovery in the whole repository, strict module:qualname keys, mean over the tasks with a non-empty truth"
            >
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
              <td className="num" data-testid="unscored" title={unscoredTitle(c)}>
                {c.unscored.total ? <span className="text-warn">{c.unscored.total}</span> : 0}
              </td>
              <td className="num" data-testid="no-code-replies" title={repliesTitle(c)}>
                {int(c.replies.empty + c.replies.noCode + c.replies.refused)}
                <span className="muted small"> / {int(c.replies.candidates)}</span>
              </td>
              <ApartCell c={c} kind="flaky" />
              <ApartCell c={c} kind="in-process">
                <span className="muted small" data-testid="isolated-share">
                  {' '}
                  · {pct(c.inProcess.isolatedShare)}
                </span>
              </ApartCell>
              {ks.map((k) => (
                <td key={k} className="num">
                  {rate(c.passAtK.find((p) => p.k === k)?.value.estimate)}
                </td>
              ))}
              <td className="num">{interval(c.selectedCorrect)}</td>
              <td className="num">{rate(c.rawPass1.estimate)}</td>
              <td className="num">{c.repair.rate === null ? '—' : `${c.repair.recovered}/${c.repair.attempted}`}</td>
              <td className="num">{rate(c.uncertainty.mean)}</td>
              <td className="num">
                <Flagged value={rate(c.uncertainty.ece)} flag={uncertaintyFlag(c.uncertainty, 'ece', c.tasks)} testId="ece-degenerate" />
              </td>
              <td className="num">
                <Flagged value={rate(c.uncertainty.auroc)} flag={uncertaintyFlag(c.uncertainty, 'auroc', c.tasks)} testId="auroc-degenerate" />
              </td>
              <td className="num">
                <Flagged value={rate(c.uncertainty.auprc)} flag={uncertaintyFlag(c.uncertainty, 'auprc', c.tasks)} testId="auprc-degenerate" />
              </td>
              <td className="num" data-testid="api-f1-repository" title={c.api ? `${c.api.tasks} tasks with truth` : undefined}>
                {c.api ? rate(c.api.f1) : '—'}
                {c.api ? <span className="muted small"> ({c.api.tasks})</span> : null}
              </td>
              <td
                className="num"
                data-testid="api-f1-task-view"
                title={c.apiTaskView ? `${c.apiTaskView.tasks} tasks (${c.apiTaskView.emptyTruth} with an empty truth)` : undefined}
              >
                {c.apiTaskView ? `${rate(c.apiTaskView.f1)} / ${rate(c.apiTaskView.exact)}` : '—'}
                {c.apiTaskView ? <span className="muted small"> ({c.apiTaskView.tasks})</span> : null}
              </td>
              <td className="num">{usd(c.cost.usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The paired comparisons: wins / losses / ties, McNemar and Holm p, Δ selected, the Pass@1 permutation p. */
function ComparisonsTable({ model }: { model: ReportModel }) {
  return (
    <div className="table-scroll analysis-table-scroll" data-testid="analysis-table-scroll">
      <table className="table table-nowrap-heads table-sticky-first" data-testid="comparisons-table">
        <thead>
          <tr>
            <th>A vs B</th>
            <th className="num">Tasks</th>
            <th className="num" title="Tasks not scored in both arms (unscored or missing in one): left out of the pairing">
              Dropped
            </th>
            <th className="num">W / L / T</th>
            <th className="num">McNemar p</th>
            <th className="num">Holm p</th>
            <th title="The comparisons adjusted together: one backend (or pair of backends), selected-output correctness">Holm family</th>
            <th className="num">Δ selected [95 % CI]</th>
            <th className="num" title="Paired sign-flip permutation test of the per-task Pass@1 differences">
              Pass@1 p
            </th>
          </tr>
        </thead>
        <tbody>
          {model.comparisons.map((c, i) => (
            <tr key={i}>
              <th scope="row">
                {condName(model, c.a)} <span className="muted">vs</span> {condName(model, c.b)}
              </th>
              <td className="num">{c.tasks}</td>
              <td className="num" data-testid="comparison-dropped" title={`${c.dropped.unscored} unscored in an arm`}>
                {c.dropped.tasks ? <span className="text-warn">{c.dropped.tasks}</span> : 0}
              </td>
              <td className="num">
                <span className="text-good">{c.wins}</span> / <span className="text-bad">{c.losses}</span> / {c.ties}
              </td>
              <td className="num">
                <Flagged value={pValue(c.mcnemarP)} flag={mcnemarFlag(c)} testId="mcnemar-degenerate" />
              </td>
              <td className={`num ${c.mcnemarPHolm < 0.05 && !mcnemarFlag(c) ? 'text-strong' : ''}`}>
                <Flagged value={pValue(c.mcnemarPHolm)} flag={mcnemarFlag(c)} testId="mcnemar-holm-degenerate" />
              </td>
              <td>
                {c.holmFamily?.key ?? '—'} <span className="muted">({c.holmFamily?.size ?? '?'})</span>
              </td>
              <td className="num">{interval(c.selectedDiff)}</td>
              <td className="num">
                {c.passAtKDiff[0]?.test ? (
                  <Flagged value={pValue(c.passAtKDiff[0].test.p)} flag={permutationFlag(c.passAtKDiff[0].test)} testId="pass1-p-degenerate" />
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TasksTable({ model }: { model: ReportModel }) {
  const openResult = useApp((s) => s.openResult);
  // The filters are in the store (and so in the address bar): a reload, or the way back from a task, keeps them.
  const filter = useApp((s) => s.analysis.filter);
  const only = useApp((s) => s.analysis.only);
  const setAnalysis = useApp((s) => s.setAnalysis);
  const setFilter = (f: string) => setAnalysis({ filter: f });
  const setOnly = (o: TaskRowsShown) => setAnalysis({ only: o });
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
        <input
          className="input"
          placeholder="Filter by task or condition"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          aria-label="Filter tasks"
          data-testid="tasks-table-filter"
        />
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
            { id: 'error', label: 'Unscored' },
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
          header={<TasksHeader />}
          renderRow={(t) => <TaskResultRow task={t} label={label(t)} onOpen={() => void openResult(t.runId, t.taskId, t.condition)} />}
        />
      ) : null}
    </div>
  );
}

function TasksHeader() {
  return (
    <div className="vtable-head tasks-grid">
      <span>Task</span>
      <span>Condition</span>
      <span>Selected</span>
      <span className="num">c / n</span>
      <span className="num">Pass@1</span>
      <span className="num">Uncert.</span>
      <span className="num" title="API F1, repository protocol (strict keys; — when the truth is empty)">
        API F1 repo
      </span>
      <span className="num" title="API F1, task-view protocol (bare names; all tasks)">
        API F1 view
      </span>
      <span className="num">Repairs</span>
      <span className="num">Time</span>
    </div>
  );
}

/** One task of one condition; opens the stored result (not for an unscored pair). */
function TaskResultRow({ task: t, label, onOpen }: { task: TaskRow; label: string; onOpen: () => void }) {
  return (
    <button
      type="button"
      className="vtable-row tasks-grid row-button"
      onClick={onOpen}
      data-testid="task-table-row"
      data-task-id={t.taskId}
      data-condition={t.condition}
      disabled={!!t.error}
      title={t.error ? `unscored (${t.unscored ?? 'unknown cause'}): ${t.error}` : `open ${t.taskId} / ${t.condition}`}
    >
      <span className="mono small ellipsis">{t.taskId}</span>
      <span className="small ellipsis">{label}</span>
      <span>
        {t.error ? (
          <Badge tone="warn" testId="task-unscored">
            unscored · {t.unscored ?? 'error'}
          </Badge>
        ) : (
          <Badge tone={t.selectedCorrect ? 'good' : 'bad'} testId="task-verdict">
            {t.selectedCorrect ? 'correct' : 'wrong'}
          </Badge>
        )}
      </span>
      <span className="num">{t.error ? '—' : `${t.c} / ${t.n}`}</span>
      <span className="num">{t.error ? '—' : rate(t.pass1)}</span>
      <span className="num">{t.error ? '—' : rate(t.uncertainty)}</span>
      <span className="num">{rate(t.apiF1)}</span>
      <span className="num">{rate(t.apiF1TaskView)}</span>
      <span className="num">{t.repairRounds || '—'}</span>
      <span className="num small">{duration(t.durationMs)}</span>
    </button>
  );
}
