// Experiment charts (recharts): factorial effects with 95 % intervals, Pass@k per method and k, selected-output
// correctness vs raw Pass@1, calibration (reliability diagram) and API-knowledge retrieval quality.

import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ErrorBar,
  Label,
  LabelList,
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
import { backendDisplayLabel, type ConditionSummary, type FactorialAnalysis, type ReportModel } from '../../api/contract.ts';
import { Empty } from '../../components/ui.tsx';
import { isNum, plural, pValue, rate } from '../../lib/format.ts';
import { uncertaintyFlag } from '../../../../main/model/degenerate.ts';
import { SOURCE_META, seriesColor } from '../../lib/sources.ts';
import {
  barShape,
  categoryAxis,
  ColumnValue,
  effectValueLabel,
  LINE_DASHES,
  MARKER_SHAPES,
  markerPath,
  SeriesLegend,
  valueAxis,
  WIDE_CATEGORIES,
  type LegendItem,
  type MarkerShape,
} from './chart-parts.tsx';
import { condName } from './cond-name.ts';
import './Charts.css';

export { condName };

const AXIS = { fontSize: 12, fill: '#4a5566' };
const GRID = '#e6e9ef';
const UNIT_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1];
const tooltipStyle = { fontSize: 12, borderRadius: 6, border: '1px solid #d5dae3', boxShadow: '0 2px 8px rgba(20,30,50,.08)' };

/** Room above the plot of a column chart for the values printed over its bars (turned upright when narrow). */
const VALUE_ROOM = 38;

const ciDelta = (v: { estimate: number; lo: number; hi: number }): [number, number] =>
  isNum(v.lo) && isNum(v.hi) ? [Math.max(0, v.estimate - v.lo), Math.max(0, v.hi - v.estimate)] : [0, 0];

function ChartFrame(props: {
  title: string;
  subtitle?: string;
  warning?: string | null;
  testId: string;
  height?: number;
  legend?: LegendItem[];
  /** Take the whole row of the grid (a bar chart of many categories). */
  wide?: boolean;
  children: ReactElement;
}) {
  return (
    <figure className={`chart${props.wide ? ' chart-wide' : ''}`} data-testid={props.testId}>
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
      {props.legend ? <SeriesLegend items={props.legend} /> : null}
    </figure>
  );
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
          const axis = valueAxis(
            data.flatMap((d) => [d.estimate, isNum(d.lo) ? d.lo : d.estimate, isNum(d.hi) ? d.hi : d.estimate]),
            { includeZero: true, count: 6, pad: 0.14 },
          );
          return (
            <ChartFrame
              key={`${f.runId}-${o.outcome}`}
              testId={`chart-factorial-${o.outcome === 'pass@1' ? 'pass1' : 'uncertainty'}`}
              title={`Factorial effects on ${o.label}`}
              subtitle={`${plural(f.tasks, 'paired task')} · ${backendDisplayLabel({ id: f.backend })} · ${f.test === 'sign-flip' ? 'sign-flip permutation test' : 't-test'} · bars: mean per-task contrast, whiskers: 95 % bootstrap interval`}
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
              <BarChart data={data} layout="vertical" margin={{ top: 14, right: 52, bottom: 4, left: 8 }}>
                <CartesianGrid stroke={GRID} horizontal={false} />
                <XAxis type="number" domain={axis.domain} ticks={axis.ticks} tick={AXIS} tickFormatter={axis.tickFormatter} interval={0} height={46}>
                  <Label value={`effect on ${o.label} (on − off)`} position="insideBottom" offset={0} style={AXIS} />
                </XAxis>
                <YAxis type="category" dataKey="name" width={150} tick={AXIS} />
                <ReferenceLine x={0} stroke="#8a94a6" />
                <Tooltip
                  contentStyle={tooltipStyle}
                  formatter={(_v, _n, item) => {
                    const d = item.payload as (typeof data)[number];
                    return [`${rate(d.estimate)} [${rate(d.lo)}, ${rate(d.hi)}], Holm ${pValue(d.p)} — ${d.flag}`, 'effect'];
                  }}
                />
                <Bar dataKey="estimate" barSize={16} isAnimationActive={false} shape={barShape('rows')}>
                  {data.map((d) => (
                    <Cell key={d.name} fill={d.color} />
                  ))}
                  <ErrorBar dataKey="err" width={6} strokeWidth={1.5} stroke="#1f2937" />
                  <LabelList dataKey="estimate" content={effectValueLabel(data, rate)} />
                </Bar>
              </BarChart>
            </ChartFrame>
          );
        }),
      )}
    </div>
  );
}

/** A Pass@k marker of one series: its shape, filled in its colour, with a white edge so coinciding markers stay apart. */
function passKMarker(shape: MarkerShape, color: string, series: number) {
  return function PassKMarker(p: { cx?: number; cy?: number; index?: number }): ReactElement {
    const cx = Number(p.cx);
    const cy = Number(p.cy);
    if (!Number.isFinite(cx) || !Number.isFinite(cy)) return <g key={p.index} />;
    return (
      <path
        key={p.index}
        className="passk-marker"
        data-shape={shape}
        data-series={series}
        d={markerPath(shape, cx, cy, 4)}
        fill={color}
        stroke="#ffffff"
        strokeWidth={0.8}
      />
    );
  };
}

/**
 * Pass@k per method. Series that coincide (equal values) stay apart: each has its own colour, marker and dash, and
 * the series at one k are set side by side around it (a small dodge, well under the distance between two k).
 */
export function PassAtKChart({ model }: { model: ReportModel }) {
  const conds = model.conditions;
  const ks = [...new Set(conds.flatMap((c) => c.passAtK.map((p) => p.k)))].sort((a, b) => a - b);
  if (!conds.length || !ks.length) return <Empty title="No Pass@k yet" testId="passk-empty" />;
  const gap = ks.length > 1 ? Math.min(...ks.slice(1).map((k, i) => k - ks[i]!)) : 1;
  const dodge = conds.length > 1 ? (gap * 0.36) / (conds.length - 1) : 0;
  const offset = (i: number) => (i - (conds.length - 1) / 2) * dodge;
  const pad = gap * 0.3;
  const series = conds.map((c, i) => ({
    c,
    i,
    color: seriesColor(i),
    shape: MARKER_SHAPES[i % MARKER_SHAPES.length]!,
    dash: LINE_DASHES[i % LINE_DASHES.length]!,
    name: `${condName(model, c)} (n = ${c.tasks}${c.unscored.total ? `; ${c.unscored.total} unscored` : ''})`,
    data: ks.map((k) => ({ x: k + offset(i), k, y: c.passAtK.find((p) => p.k === k)?.value.estimate ?? null })),
  }));
  return (
    <ChartFrame
      testId="chart-passk"
      title="Pass@k per method"
      subtitle="unbiased estimator, mean over the scored tasks (n; unscored pairs left out) · methods with equal values are set side by side at each k"
      wide={conds.length > WIDE_CATEGORIES}
      legend={series.map((s) => ({ name: s.name, color: s.color, mark: 'line', shape: s.shape, dash: s.dash }))}
    >
      <LineChart margin={{ top: 14, right: 24, bottom: 4, left: 8 }}>
        <CartesianGrid stroke={GRID} />
        <XAxis dataKey="x" type="number" domain={[ks[0]! - pad, ks[ks.length - 1]! + pad]} ticks={ks} tick={AXIS} allowDecimals={false} height={46}>
          <Label value="k (samples drawn of n)" position="insideBottom" offset={0} style={AXIS} />
        </XAxis>
        <YAxis dataKey="y" domain={[0, 1]} ticks={UNIT_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} width={48}>
          <Label value="Pass@k" angle={-90} position="insideLeft" style={{ ...AXIS, textAnchor: 'middle' }} />
        </YAxis>
        <Tooltip
          contentStyle={tooltipStyle}
          formatter={(v) => rate(v as number)}
          labelFormatter={(_x, payload) => `k = ${(payload?.[0]?.payload as { k?: number } | undefined)?.k ?? ''}`}
        />
        {series.map((s) => (
          <Line
            key={`${s.c.runId}-${s.c.condition}`}
            data={s.data}
            dataKey="y"
            name={s.name}
            stroke={s.color}
            strokeWidth={2}
            strokeDasharray={s.dash || undefined}
            dot={passKMarker(s.shape, s.color, s.i)}
            activeDot={false}
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
  const rows = {
    selected: model.conditions.map((c) => ({ value: c.selectedCorrect.estimate, hi: c.selectedCorrect.hi })),
    raw: model.conditions.map((c) => ({ value: c.rawPass1.estimate, hi: c.rawPass1.hi })),
  };
  return (
    <ChartFrame
      testId="chart-selected-vs-raw"
      title="Selected-output correctness vs raw Pass@1"
      subtitle="what the method returns vs a random raw sample · 95 % intervals"
      wide={data.length > WIDE_CATEGORIES}
      legend={[
        { name: 'selected output correct', color: '#4361c2' },
        { name: 'raw Pass@1 (c / n)', color: '#a9b8e6' },
      ]}
    >
      <BarChart data={data} margin={{ top: VALUE_ROOM, right: 16, bottom: 4, left: 16 }}>
        <CartesianGrid stroke={GRID} vertical={false} />
        <XAxis {...categoryAxis()} />
        <YAxis domain={[0, 1]} ticks={UNIT_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} width={60}>
          <Label value="share of tasks correct" angle={-90} position="insideLeft" style={{ ...AXIS, textAnchor: 'middle' }} />
        </YAxis>
        <Tooltip contentStyle={tooltipStyle} formatter={(v) => rate(v as number)} />
        <Bar dataKey="selected" name="selected output correct" fill="#4361c2" isAnimationActive={false} shape={barShape('columns')}>
          <ErrorBar dataKey="selectedErr" width={5} stroke="#1f2937" strokeWidth={1.2} />
          <LabelList dataKey="selected" content={<ColumnValue rows={rows.selected} formatValue={rate} series="selected" />} />
        </Bar>
        <Bar dataKey="raw" name="raw Pass@1 (c / n)" fill="#a9b8e6" isAnimationActive={false} shape={barShape('columns')}>
          <ErrorBar dataKey="rawErr" width={5} stroke="#1f2937" strokeWidth={1.2} />
          <LabelList dataKey="raw" content={<ColumnValue rows={rows.raw} formatValue={rate} series="raw" />} />
        </Bar>
      </BarChart>
    </ChartFrame>
  );
}

const HALF_TICKS = [0, 0.5, 1];
/** The unit square with room around it, so a point at 0 or 1 (up to 8 px in radius) is drawn whole. */
const UNIT_PADDED: [number, number] = [-0.08, 1.08];
const eceFlag = (c: ConditionSummary) => uncertaintyFlag(c.uncertainty, 'ece', c.tasks);

/**
 * Calibration as small multiples: one reliability diagram per condition (same axes, same diagonal), so eight
 * conditions whose bins sit at nearly the same spot no longer pile up on one point.
 */
export function CalibrationChart({ model }: { model: ReportModel }) {
  const series = model.conditions
    .map((c, i) => ({ c, i, bins: c.uncertainty.bins.filter((b) => b.count > 0).map((b) => ({ x: b.meanPredicted, y: b.observedRate, n: b.count })) }))
    .filter((s) => s.bins.length);
  if (!series.length) return <Empty title="No calibration data" testId="calibration-empty" />;
  const maxN = Math.max(1, ...series.flatMap((s) => s.bins.map((b) => b.n)));
  return (
    <figure className={`chart${series.length > 2 ? ' chart-wide' : ''}`} data-testid="chart-calibration">
      <figcaption>
        <span className="chart-title">Calibration (reliability diagram)</span>
        <span className="chart-sub">
          one panel per condition · x: mean predicted P(fail) in bin (generation uncertainty read as P(selected output fails)) · y: observed failure rate ·
          point size = tasks in the bin · dashed: perfect calibration
        </span>
      </figcaption>
      <div className="calibration-grid">
        {series.map(({ c, i, bins }) => (
          <div className="calibration-panel" key={`${c.runId}-${c.condition}`} data-testid="calibration-panel">
            <div className="calibration-panel-title" title={`${condName(model, c)}${eceFlag(c) ? ` · ECE degenerate: ${eceFlag(c)}` : ''}`}>
              <span className="chart-legend-swatch swatch-point" style={{ background: seriesColor(i) }} aria-hidden="true" />
              <span className="calibration-panel-name">{condName(model, c)}</span>
              <span className="muted tabular"> · ECE {rate(c.uncertainty.ece)}</span>
              {eceFlag(c) ? (
                <span className="text-warn small" data-testid="ece-degenerate">
                  {' '}
                  degenerate
                </span>
              ) : null}
            </div>
            <div style={{ height: 176 }}>
              <ResponsiveContainer width="100%" height="100%">
                <ScatterChart margin={{ top: 10, right: 12, bottom: 0, left: 0 }}>
                  <CartesianGrid stroke={GRID} />
                  <XAxis
                    type="number"
                    dataKey="x"
                    domain={UNIT_PADDED}
                    ticks={HALF_TICKS}
                    tick={AXIS}
                    tickFormatter={(v: number) => v.toFixed(1)}
                    height={22}
                  />
                  <YAxis type="number" dataKey="y" domain={UNIT_PADDED} ticks={HALF_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} width={30} />
                  <ZAxis type="number" dataKey="n" domain={[0, maxN]} range={[24, 200]} name="tasks" />
                  <ReferenceLine
                    segment={[
                      { x: 0, y: 0 },
                      { x: 1, y: 1 },
                    ]}
                    stroke="#9aa3b2"
                    strokeDasharray="4 4"
                    ifOverflow="hidden"
                  />
                  <Tooltip contentStyle={tooltipStyle} formatter={(v, n) => (n === 'tasks' ? String(v) : rate(v as number))} />
                  <Scatter
                    name={condName(model, c)}
                    data={bins}
                    fill={seriesColor(i)}
                    line={{ stroke: seriesColor(i), strokeWidth: 1 }}
                    isAnimationActive={false}
                  />
                </ScatterChart>
              </ResponsiveContainer>
            </div>
          </div>
        ))}
      </div>
    </figure>
  );
}

type ApiAggregate = NonNullable<ConditionSummary['api']>;

/** The API chart's bars, left to right in each group; the legend lists them in this order. */
const API_BARS = [
  { key: 'precision', name: 'precision', color: '#9db0e8' },
  { key: 'recall', name: 'recall', color: '#6f8bd8' },
  { key: 'f1', name: 'F1', color: '#2f4ea8' },
] as const;
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
    <ChartFrame
      testId={testId}
      title={`API retrieval — ${meta.label} protocol`}
      subtitle={`${label} · ${meta.pool} · score: mean over ${meta.over}, 0–1`}
      wide={data.length > WIDE_CATEGORIES}
      legend={API_BARS.map((b) => ({ name: b.name, color: b.color }))}
    >
      <BarChart data={data} margin={{ top: VALUE_ROOM, right: 16, bottom: 4, left: 16 }}>
        <CartesianGrid stroke={GRID} vertical={false} />
        <XAxis {...categoryAxis()} />
        <YAxis domain={[0, 1]} ticks={UNIT_TICKS} tick={AXIS} tickFormatter={(v: number) => v.toFixed(1)} width={60}>
          <Label value="score (0–1)" angle={-90} position="insideLeft" style={{ ...AXIS, textAnchor: 'middle' }} />
        </YAxis>
        <Tooltip
          contentStyle={tooltipStyle}
          formatter={(v) => rate(v as number)}
          labelFormatter={(name) => {
            const d = data.find((x) => x.name === name);
            return d ? `${name} · ${meta.label} · ${meta.matching} · ${d.tasks} ${meta.over} · exact ${rate(d.exact)}` : String(name);
          }}
        />
        {API_BARS.map((b) => (
          <Bar key={b.key} dataKey={b.key} name={b.name} fill={b.color} isAnimationActive={false} shape={barShape('columns')}>
            <LabelList dataKey={b.key} content={<ColumnValue rows={data.map((d) => ({ value: d[b.key] }))} formatValue={rate} series={b.key} />} />
          </Bar>
        ))}
      </BarChart>
    </ChartFrame>
  );
}
