// Experiment charts (recharts): factorial effects with 95 % intervals, Pass@k per method and k, selected-output
// correctness vs raw Pass@1, calibration (reliability diagram) and API-knowledge retrieval quality.

import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ErrorBar,
  Label,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
  ZAxis,
} from 'recharts';
import type { ReactElement } from 'react';
import { backendDisplayLabel, mixedBackendLabels, type ConditionSummary, type FactorialAnalysis, type ReportModel } from '../../api/contract.ts';
import { Empty } from '../../components/ui.tsx';
import { isNum, num } from '../../lib/format.ts';
import { SOURCE_META, seriesColor } from '../../lib/sources.ts';
import './Charts.css';

const AXIS = { fontSize: 12, fill: '#4a5566' };
const GRID = '#e6e9ef';
const UNIT_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1];
const LEGEND = { fontSize: 12, paddingTop: 6 };
const tooltipStyle = { fontSize: 12, borderRadius: 6, border: '1px solid #d5dae3', boxShadow: '0 2px 8px rgba(20,30,50,.08)' };

/**
 * A condition's display name; the run id is added when the model compares runs, and the run's backend when those
 * runs came from different backends (retrieval-only results never stand unlabelled beside a model's).
 */
export function condName(model: ReportModel, c: { runId: string; label: string }): string {
  const name = model.runs.length > 1 ? `${c.label} (${c.runId.slice(-6)})` : c.label;
  const backends = mixedBackendLabels(model.runs);
  return backends ? `${name} · ${backends.get(c.runId) ?? 'unknown backend'}` : name;
}

const ciDelta = (v: { estimate: number; lo: number; hi: number }): [number, number] =>
  isNum(v.lo) && isNum(v.hi) ? [Math.max(0, v.estimate - v.lo), Math.max(0, v.hi - v.estimate)] : [0, 0];

function ChartFrame(props: { title: string; subtitle?: string; warning?: string | null; testId: string; height?: number; children: ReactElement }) {
  return (
    <figure className="chart" data-testid={props.testId}>
      <figcaption>
        <span className="chart-title">{props.title}</span>
        {props.subtitle ? <span className="chart-sub">{props.subtitle}</span> : null}
        {props.warning ? (
          <span className="chart-warning" data-testid={`${props.testId}-degenerate`} role="note">
            {props.warning}
          </span>
        ) : null}
      </figcaption>
      <div className="chart-body" style={{ height: props.height ?? 280 }}>
        <ResponsiveContainer width="100%" height="100%">
          {props.children}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** Props of a category x-axis whose labels tilt when there are many categories. */
function categoryAxis(names: string[]) {
  const tilt = names.length > 4 || names.reduce((n, x) => n + Math.min(24, x.length), 0) > 64;
  return {
    dataKey: 'name',
    tick: tilt ? { ...AXIS, textAnchor: 'end' as const } : AXIS,
    angle: tilt ? -28 : 0,
    interval: 0 as const,
    height: tilt ? 78 : 36,
    tickFormatter: (s: string) => (s.length > 24 ? `${s.slice(0, 23)}…` : s),
  };
}

export function FactorialCharts({ model }: { model: ReportModel }) {
  if (!model.factorial.length) {
    return (
      <Empty title="No factorial analysis" testId="factorial-empty">
        Factorial effects need an ablation run (all eight cells A1X1S1 … A0X0S0).
      </Empty>
    );
  }
  return (
    <div className="chart-grid">
      {model.factorial.flatMap((f: FactorialAnalysis) =>
        f.outcomes.map((o) => {
          const data = o.effects.map((e) => ({
            name: e.name,
            estimate: e.value.estimate,
            err: ciDelta(e.value),
            lo: e.value.lo,
            hi: e.value.hi,
            p: e.pHolm,
            flag: e.degenerate ? `degenerate: ${e.degenerate}` : e.significant ? 'significant (Holm p < 0.05)' : 'not significant',
            color: e.kind === 'main' && e.factors.length === 1 ? SOURCE_META[e.factors[0]!].color : '#7b8698',
          }));
          const extent = Math.max(0.05, ...data.flatMap((d) => [Math.abs(isNum(d.lo) ? d.lo : d.estimate), Math.abs(isNum(d.hi) ? d.hi : d.estimate)]));
          const lim = Math.ceil(extent * 20) / 20;
          return (
            <ChartFrame
              key={`${f.runId}-${o.outcome}`}
              testId={`chart-factorial-${o.outcome === 'pass@1' ? 'pass1' : 'uncertainty'}`}
              title={`Factorial effects on ${o.label}`}
              subtitle={`${f.tasks} paired tasks · ${backendDisplayLabel({ id: f.backend })} · ${f.test === 'sign-flip' ? 'sign-flip permutation test' : 't-test'} · bars: mean per-task contrast, whiskers: 95 % bootstrap interval`}
              warning={
                o.degenerate
                  ? `Degenerate: ${o.degenerate}. No effect here is significant.`
                  : o.effects.some((e) => e.degenerate)
                    ? `Degenerate: ${o.effects
                        .filter((e) => e.degenerate)
                        .map((e) => `${e.name} (${e.degenerate})`)
                        .join('; ')}`
                    : null
              }
              height={300}
            >
              <BarChart data={data} layout="vertical" margin={{ top: 14, right: 24, bottom: 4, left: 8 }}>
                <CartesianGrid stroke={GRID} horizontal={false} />
                <XAxis type="number" domain={[-lim, lim]} tick={AXIS} tickFormatter={(v: number) => v.toFixed(2)} height={46}>
                  <Label value={`effect on ${o.label} (difference, on − off)`} position="insideBottom" offset={0} style={AXIS} />
                </XAxis>
                <YAxis type="category" dataKey="name" width={150} tick={AXIS} />
                <ReferenceLine x={0} stroke="#8a94a6" />
                <Tooltip
                  contentStyle={tooltipStyle}
                  formatter={(_v, _n, item) => {
                    const d = item.payload as (typeof data)[number];
                    return [`${num(d.estimate)} [${num(d.lo)}, ${num(d.hi)}], Holm p ${num(d.p)} — ${d.flag}`, 'effect'];
                  }}
                />
                <Bar dataKey="estimate" barSize={16} isAnimationActive={false}>
                  {data.map((d) => (
                    <Cell key={d.name} fill={d.color} />
                  ))}
                  <ErrorBar dataKey="err" width={6} strokeWidth={1.5} stroke="#1f2937" />
                </Bar>
              </BarChart>
            </ChartFrame>
          );
        }),
      )}
    </div>
  );
}

export function PassAtKChart({ model }: { model: ReportModel }) {
  const conds = model.conditions;
  const ks = [...new Set(conds.flatMap((c) => c.passAtK.map((p) => p.k)))].sort((a, b) => a - b);
  if (!conds.length || !ks.length) return <Empty title="No Pass@k yet" testId="passk-empty" />;
  const data = ks.map((k) => {
    const row: Record<string, number | null> = { k };
    conds.forEach((c, i) => (row[`c${i}`] = c.passAtK.find((p) => p.k === k)?.value.estimate ?? null));
    return row;
  });
  return (
    <ChartFrame testId="chart-passk" title="Pass@k per method" subtitle="unbiased estimator, mean over the scored tasks (n; unscored pairs left out)">
      <LineChart data={data} margin={{ top: 14, right: 24, bottom: 4, left: 8 }}>
        <CartesianGrid stroke={GRID} />
        <XAxis dataKey="k" type="number" domain={[ks[0]!, ks[ks.length - 1]!]} ticks={ks} tick={AXIS} allowDecimals={false} height={46}>
          <Label value="k (samples drawn of n)" position="insideBottom" offset={0} style={AXIS} />
        </XAxis>
        <YAxis domain={[0, 1]} ticks={UNIT_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} width={48}>
          <Label value="Pass@k" angle={-90} position="insideLeft" style={{ ...AXIS, textAnchor: 'middle' }} />
        </YAxis>
        <Tooltip contentStyle={tooltipStyle} formatter={(v) => num(v as number)} labelFormatter={(k) => `k = ${k}`} />
        <Legend verticalAlign="bottom" wrapperStyle={LEGEND} />
        {conds.map((c, i) => (
          <Line
            key={`${c.runId}-${c.condition}`}
            dataKey={`c${i}`}
            name={`${condName(model, c)} (n = ${c.tasks}${c.unscored.total ? `; ${c.unscored.total} unscored` : ''})`}
            stroke={seriesColor(i)}
            strokeWidth={2}
            dot={{ r: 3 }}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ChartFrame>
  );
}

export function SelectedVsRawChart({ model }: { model: ReportModel }) {
  const data = model.conditions.map((c: ConditionSummary) => ({
    name: condName(model, c),
    selected: c.selectedCorrect.estimate,
    selectedErr: ciDelta(c.selectedCorrect),
    raw: c.rawPass1.estimate,
    rawErr: ciDelta(c.rawPass1),
  }));
  if (!data.length) return <Empty title="No conditions" testId="selected-empty" />;
  return (
    <ChartFrame
      testId="chart-selected-vs-raw"
      title="Selected-output correctness vs raw Pass@1"
      subtitle="what the method returns vs a random raw sample · 95 % intervals"
    >
      <BarChart data={data} margin={{ top: 14, right: 16, bottom: 4, left: data.length > 4 ? 56 : 16 }}>
        <CartesianGrid stroke={GRID} vertical={false} />
        <XAxis {...categoryAxis(data.map((d) => d.name))} />
        <YAxis domain={[0, 1]} ticks={UNIT_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} width={48}>
          <Label value="share of tasks correct" angle={-90} position="insideLeft" style={{ ...AXIS, textAnchor: 'middle' }} />
        </YAxis>
        <Tooltip contentStyle={tooltipStyle} formatter={(v) => num(v as number)} />
        <Legend verticalAlign="bottom" wrapperStyle={LEGEND} />
        <Bar dataKey="selected" name="selected output correct" fill="#4361c2" isAnimationActive={false}>
          <ErrorBar dataKey="selectedErr" width={5} stroke="#1f2937" strokeWidth={1.2} />
        </Bar>
        <Bar dataKey="raw" name="raw Pass@1 (c / n)" fill="#a9b8e6" isAnimationActive={false}>
          <ErrorBar dataKey="rawErr" width={5} stroke="#1f2937" strokeWidth={1.2} />
        </Bar>
      </BarChart>
    </ChartFrame>
  );
}

export function CalibrationChart({ model }: { model: ReportModel }) {
  const series = model.conditions
    .map((c, i) => ({ c, i, bins: c.uncertainty.bins.filter((b) => b.count > 0).map((b) => ({ x: b.meanPredicted, y: b.observedRate, n: b.count })) }))
    .filter((s) => s.bins.length);
  if (!series.length) return <Empty title="No calibration data" testId="calibration-empty" />;
  return (
    <ChartFrame
      testId="chart-calibration"
      title="Calibration (reliability diagram)"
      subtitle="generation uncertainty read as P(selected output fails); point size = tasks in the bin"
      height={320}
    >
      <ScatterChart margin={{ top: 14, right: 24, bottom: 4, left: 8 }}>
        <CartesianGrid stroke={GRID} />
        <XAxis type="number" dataKey="x" domain={[0, 1]} ticks={UNIT_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} height={46}>
          <Label value="mean predicted P(fail) in bin" position="insideBottom" offset={0} style={AXIS} />
        </XAxis>
        <YAxis type="number" dataKey="y" domain={[0, 1]} ticks={UNIT_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} width={48}>
          <Label value="observed failure rate" angle={-90} position="insideLeft" style={{ ...AXIS, textAnchor: 'middle' }} />
        </YAxis>
        <ZAxis type="number" dataKey="n" range={[30, 260]} name="tasks" />
        <ReferenceLine
          segment={[
            { x: 0, y: 0 },
            { x: 1, y: 1 },
          ]}
          stroke="#9aa3b2"
          strokeDasharray="4 4"
          ifOverflow="hidden"
        />
        <Tooltip contentStyle={tooltipStyle} formatter={(v, n) => (n === 'tasks' ? String(v) : num(v as number))} />
        <Legend verticalAlign="bottom" wrapperStyle={LEGEND} />
        {series.map(({ c, i, bins }) => (
          <Scatter
            key={`${c.runId}-${c.condition}`}
            name={`${condName(model, c)} · ECE ${num(c.uncertainty.ece)}`}
            data={bins}
            fill={seriesColor(i)}
            line={{ stroke: seriesColor(i), strokeWidth: 1 }}
            isAnimationActive={false}
          />
        ))}
      </ScatterChart>
    </ChartFrame>
  );
}

type ApiAggregate = NonNullable<ConditionSummary['api']>;
type ApiProtocol = 'repository' | 'task-view';

/** What each API-retrieval protocol is and matches (docs/api-retrieval.md), as the chart captions say it. */
export const API_PROTOCOLS: Record<
  ApiProtocol,
  { label: string; matching: string; over: string; pool: string; of: (c: ConditionSummary) => ApiAggregate | null }
> = {
  repository: {
    label: 'repository',
    matching: 'strict keys',
    over: 'tasks with truth',
    pool: 'discovery in the whole repository, strict module:qualname keys',
    of: (c) => c.api ?? null,
  },
  'task-view': {
    label: 'task-view',
    matching: 'bare names',
    over: 'tasks',
    pool: 'the task’s own view is the API pool (RQ4), bare names case-insensitive, empty truths included',
    of: (c) => c.apiTaskView ?? null,
  },
};

/** `42 tasks with truth`, or `40–42 tasks with truth per condition` when the conditions differ. */
function tasksOver(counts: number[], over: string): string {
  const lo = Math.min(...counts);
  const hi = Math.max(...counts);
  return lo === hi ? `${lo} ${over}` : `${lo}–${hi} ${over} per condition`;
}

/** API-knowledge retrieval, one chart per protocol, each captioned with its matching and the tasks it is over. */
export function ApiChart({ model }: { model: ReportModel }) {
  const any = model.conditions.some((c) => c.api || c.apiTaskView);
  if (!any) {
    return (
      <Empty title="No API-retrieval scores" testId="api-empty">
        Needs tasks with a reference solution and API evidence switched on.
      </Empty>
    );
  }
  return (
    <>
      <ApiProtocolChart model={model} protocol="repository" />
      <ApiProtocolChart model={model} protocol="task-view" />
    </>
  );
}

function ApiProtocolChart({ model, protocol }: { model: ReportModel; protocol: ApiProtocol }) {
  const meta = API_PROTOCOLS[protocol];
  const testId = protocol === 'repository' ? 'chart-api' : 'chart-api-task-view';
  const data = model.conditions.flatMap((c) => {
    const a = meta.of(c);
    return a ? [{ name: condName(model, c), precision: a.precision, recall: a.recall, f1: a.f1, exact: a.exact, tasks: a.tasks }] : [];
  });
  if (!data.length) {
    return (
      <Empty title={`No ${meta.label}-protocol API scores`} testId={`${testId}-empty`}>
        {protocol === 'repository' ? 'No task has a non-empty API truth.' : 'No task has a task-view score (results stored before the task-view protocol).'}
      </Empty>
    );
  }
  const label = `${meta.label} · ${meta.matching} · ${tasksOver(
    data.map((d) => d.tasks),
    meta.over,
  )}`;
  return (
    <ChartFrame testId={testId} title={`API retrieval — ${meta.label} protocol`} subtitle={`${label} · ${meta.pool}`}>
      <BarChart data={data} margin={{ top: 14, right: 16, bottom: 4, left: data.length > 4 ? 56 : 16 }}>
        <CartesianGrid stroke={GRID} vertical={false} />
        <XAxis {...categoryAxis(data.map((d) => d.name))} />
        <YAxis domain={[0, 1]} ticks={UNIT_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} width={48}>
          <Label value={`score (0–1, mean over ${meta.over})`} angle={-90} position="insideLeft" style={{ ...AXIS, textAnchor: 'middle' }} />
        </YAxis>
        <Tooltip
          contentStyle={tooltipStyle}
          formatter={(v) => num(v as number)}
          labelFormatter={(name) => {
            const d = data.find((x) => x.name === name);
            return d ? `${name} · ${meta.label} · ${meta.matching} · ${d.tasks} ${meta.over} · exact ${num(d.exact)}` : String(name);
          }}
        />
        <Legend verticalAlign="bottom" wrapperStyle={LEGEND} />
        <Bar dataKey="precision" name="precision" fill="#9db0e8" isAnimationActive={false} />
        <Bar dataKey="recall" name="recall" fill="#6f8bd8" isAnimationActive={false} />
        <Bar dataKey="f1" name="F1" fill="#2f4ea8" isAnimationActive={false} />
      </BarChart>
    </ChartFrame>
  );
}
