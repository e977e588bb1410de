import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvField, formatInterval, formatP, formatRate, renderCsv, renderHtml, renderJson, renderMarkdown, writeReport } from '../../main/experiment/report.ts';
import type { ReportModel } from '../../main/model/report.ts';
import {
  buildReportFixture,
  EMPTY_TRUTH_TASK,
  FLAKY_PLANTED,
  HOSTILE_ERROR,
  HOSTILE_NOTE,
  HOSTILE_TASK_ID,
  IN_PROCESS_PLANTED,
  IN_PROCESS_REASONS,
  IN_PROCESS_RUN,
  TASK_IDS,
} from '../helpers/report-fixture.ts';
import { IN_PROCESS_MEANING, IN_PROCESS_REASONS_TITLE, LEAK_MEANING } from '../../main/experiment/report/format.ts';
import { md as mdText } from '../../main/experiment/report/markdown.ts';
import { ISOLATION_REASON_NOT_RECORDED } from '../../main/model/verdict.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const CHARTS = ['factorial-effects', 'pass-at-k', 'uncertainty-vs-correctness', 'api-f1'] as const;

// ---------------------------------------------------------------------------------------------------------
// Tiny RFC 4180 parser (independent of the renderer): quoted fields, doubled quotes, CRLF/LF, embedded newlines.

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (ch === '\r' || ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += ch;
      i++;
    }
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function records(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  return rows.map((r) => {
    expect(r.length).toBe(header!.length);
    return Object.fromEntries(header!.map((h, i) => [h, r[i]!]));
  });
}

/** The CSV text a model value must come back as. */
function expected(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  return String(v);
}

// ---------------------------------------------------------------------------------------------------------
// Minimal HTML table reading: rows of <tr ...> with data-* attributes and <td data-col> text.

function decodeEntities(s: string): string {
  return s.replace(/&(lt|gt|quot|#39|amp);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e]!);
}

interface HtmlRow {
  attrs: Record<string, string>;
  cells: Record<string, string>;
}

function htmlTables(html: string, name: string): HtmlRow[][] {
  const out: HtmlRow[][] = [];
  const re = new RegExp(`<table data-table="${name}">([\\s\\S]*?)</table>`, 'g');
  for (const m of html.matchAll(re)) {
    const body = m[1]!.split('<tbody>')[1] ?? '';
    const rows: HtmlRow[] = [];
    for (const tr of body.matchAll(/<tr([^>]*)>([\s\S]*?)<\/tr>/g)) {
      const attrs = Object.fromEntries([...tr[1]!.matchAll(/data-([\w-]+)="([^"]*)"/g)].map((a) => [a[1]!, decodeEntities(a[2]!)]));
      const cells = Object.fromEntries(
        [...tr[2]!.matchAll(/<td data-col="([^"]*)"[^>]*>([\s\S]*?)<\/td>/g)].map((c) => [
          decodeEntities(c[1]!),
          decodeEntities(c[2]!.replace(/<br>/g, ' ').replace(/<[^>]+>/g, '')).trim(),
        ]),
      );
      rows.push({ attrs, cells });
    }
    out.push(rows);
  }
  return out;
}

const round3 = (x: number) => (Number.isFinite(x) ? (Math.round(x * 1000) / 1000).toFixed(3) : 'n/a');
const firstNumber = (s: string) => s.split(' ')[0]!;
const meanOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('number formatting', () => {
  it('formats rates, intervals and p-values', () => {
    expect(formatRate(0.41249)).toBe('0.412');
    expect(formatRate(Number.NaN)).toBe('n/a');
    expect(formatRate(null)).toBe('n/a');
    expect(formatRate(-0.0001)).toBe('0.000');
    expect(formatInterval({ estimate: 0.412, lo: 0.35, hi: 0.47 })).toBe('0.412 [0.350, 0.470]');
    expect(formatInterval({ estimate: 0.5, lo: Number.NaN, hi: Number.NaN })).toBe('0.500 [n/a, n/a]');
    expect(formatP(0.0004)).toBe('p < 0.001');
    expect(formatP(0.0342)).toBe('p = 0.034');
    expect(formatP(Number.NaN)).toBe('n/a');
  });
  it('quotes CSV fields per RFC 4180', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('x\ny')).toBe('"x\ny"');
    expect(csvField('x\ry')).toBe('"x\ry"');
    expect(csvField('plain')).toBe('plain');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(true)).toBe('true');
  });
});

describe('renderHtml', () => {
  const model = buildReportFixture();
  const html = renderHtml(model);

  it('is one self-contained document with a strict CSP', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/\bsrc\s*=/i);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|<object|<embed|@import|url\(/i);
    // Only in-page anchors.
    for (const m of html.matchAll(/href="([^"]*)"/g)) expect(m[1]!.startsWith('#')).toBe(true);
  });

  it('draws the four charts as accessible inline SVG with real marks', () => {
    for (const chart of CHARTS) {
      const svgs = [...html.matchAll(new RegExp(`<svg [^>]*data-chart="${chart}"[^>]*>([\\s\\S]*?)</svg>`, 'g'))];
      expect(svgs.length, chart).toBeGreaterThan(0);
      for (const s of svgs) {
        expect(s[0]).toContain('role="img"');
        expect(s[1]).toMatch(/<title id="[^"]+">[^<]+<\/title>/);
        expect((s[1]!.match(/class="mark[ "]/g) ?? []).length, chart).toBeGreaterThanOrEqual(5);
        expect(s[1]).toMatch(/class="(axis-label|tick-label)"/);
      }
    }
    // One forest plot per outcome of the factorial analysis, each with a zero line.
    const forests = [...html.matchAll(/<svg [^>]*data-chart="factorial-effects"[\s\S]*?<\/svg>/g)];
    expect(forests).toHaveLength(model.factorial[0]!.outcomes.length);
    for (const f of forests) expect(f[0]).toContain('class="zero-line"');
    // The reliability diagram has the diagonal and one panel per scored condition.
    const rel = html.match(/<svg [^>]*data-chart="uncertainty-vs-correctness"[\s\S]*?<\/svg>/)![0];
    expect((rel.match(/class="diagonal"/g) ?? []).length).toBe(model.conditions.length);
    expect(rel).toMatch(/class="count-label"[^>]*>\d+</);
    // Axis labels name units.
    expect(html).toContain('Pass@k (proportion of tasks solved, 0–1)');
    expect(html).toContain('Observed failure rate (fraction of tasks, 0–1)');
  });

  it('explains missing charts instead of drawing empty boxes', () => {
    const bare = renderHtml(buildReportFixture({ factorial: false, api: false }));
    expect(bare).not.toContain('data-chart="factorial-effects"');
    expect(bare).not.toContain('data-chart="api-f1"');
    expect(bare).toContain('data-chart-missing="factorial-effects"');
    expect(bare).toContain('data-chart-missing="api-f1"');
    expect(bare).toMatch(/no 2³ factorial ablation run/i);
    expect(bare).toMatch(/No condition has API truth/);
    expect(bare).toContain('data-chart="pass-at-k"');
  });

  it('shows API retrieval under both protocols, each with its matching and the tasks it is over', () => {
    const svg = (chart: string) => html.match(new RegExp(`<svg [^>]*data-chart="${chart}"[\\s\\S]*?</svg>`))?.[0] ?? '';
    const repo = svg('api-f1');
    const view = svg('api-f1-task-view');
    expect(repo).toContain('API-knowledge retrieval — repository · strict keys · pool: the whole repository · over tasks with truth');
    expect(view).toContain('API-knowledge retrieval — task-view · bare names · pool: the task’s own view · over all tasks');
    expect((view.match(/class="mark[ "]/g) ?? []).length).toBeGreaterThanOrEqual(5);
    expect(repo).toContain('Score (mean over the tasks with a non-empty API truth, 0–1)');
    expect(view).toContain('Score (mean over all tasks, empty truths included, 0–1)');
    for (const c of model.conditions) {
      if (c.api) expect(repo, c.condition).toContain(`${c.label} (${c.api.tasks} with truth)`);
      if (c.apiTaskView) expect(view, c.condition).toContain(`${c.label} (${c.apiTaskView.tasks} tasks)`);
    }
    // The task with an empty truth counts only under the task-view protocol.
    const oc = model.conditions.find((c) => c.condition === 'opencoder')!;
    expect([oc.api!.tasks, oc.apiTaskView!.tasks, oc.apiTaskView!.emptyTruth]).toEqual([5, 6, 1]);
    expect(model.tasks.find((t) => t.condition === 'opencoder' && t.taskId === EMPTY_TRUTH_TASK)).toMatchObject({ apiF1: null, apiF1TaskView: 1 });
    expect(html).toContain('<h4 data-api-protocol="repository">repository protocol · strict keys</h4>');
    expect(html).toContain('<h4 data-api-protocol="task-view">task-view protocol · bare names</h4>');
    expect(html).toContain('data-note="api-protocols"');
    // Results stored before the task-view protocol: the repository chart stays, the task-view one says why it is missing.
    const old = renderHtml({ ...model, conditions: model.conditions.map((c) => ({ ...c, apiTaskView: null })) });
    expect(old).toContain('data-chart="api-f1"');
    expect(old).not.toContain('data-chart="api-f1-task-view"');
    expect(old).toContain('data-chart-missing="api-f1-task-view"');
    expect(old).not.toContain('data-chart-missing="api-f1"');
    // Markdown names the protocol of every API figure.
    const md = renderMarkdown(model);
    expect(md).toContain('API F1 (repository)');
    expect(md).toContain('API F1 (task-view)');
    expect(md).toContain(
      `| OpenCoder (uncertainty-aware) (\`opencoder\`) | repository · strict keys · 5 tasks with truth | ${formatRate(oc.api!.precision)} |`,
    );
    expect(md).toContain(`| OpenCoder (uncertainty-aware) (\`opencoder\`) | task-view · bare names · 6 tasks | ${formatRate(oc.apiTaskView!.precision)} |`);
  });

  it('renders an empty model in every format without throwing', () => {
    const empty: ReportModel = {
      ...model,
      runs: [],
      conditions: [],
      comparisons: [],
      factorial: [],
      tasks: [],
      candidates: [],
      statistics: { ...model.statistics, notes: [] },
    };
    const out = renderHtml(empty);
    for (const chart of CHARTS) expect(out).toContain(`data-chart-missing="${chart}"`);
    expect(out).not.toContain('<svg');
    expect(renderMarkdown(empty)).toContain('## Summary by condition');
    expect(Object.values(renderCsv(empty)).every((t) => parseCsv(t).length === 1)).toBe(true);
  });

  it('escapes every model string', () => {
    expect(html).not.toContain(HOSTILE_TASK_ID);
    expect(html).toContain('t&lt;1&gt;&amp;&quot;x&quot;');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;/td&gt;&lt;script&gt;alert(&quot;pwn&quot;)&lt;/script&gt;');
    expect(html).not.toContain('<b>not</b>');
    expect(html).toContain('&lt;b&gt;not&lt;/b&gt;');
    // The hostile id also survives inside data attributes, recoverable by decoding.
    const taskRows = htmlTables(html, 'tasks')[0]!;
    expect(taskRows.some((r) => r.attrs.task === HOSTILE_TASK_ID)).toBe(true);
    expect(taskRows.some((r) => r.cells.error === HOSTILE_ERROR)).toBe(true);
  });

  it('shows every run’s provenance and flags the partial run', () => {
    for (const run of model.runs) {
      expect(html).toContain(run.manifest.hash);
      expect(html).toContain(run.prompts.hash);
      for (const c of run.configHashes) expect(html).toContain(c);
      expect(html).toContain(run.backend.model);
      expect(html).toContain(run.encoder.name);
      expect(html).toContain(run.machine.node);
    }
    const partial = model.runs.find((r) => r.status !== 'done')!;
    expect(html).toMatch(new RegExp(`<article class="run partial" data-run="${partial.id}"`));
    expect(html).toContain(`PARTIAL — run ${partial.status}`);
    expect(html).toContain('class="banner partial"');
    const done = model.runs.find((r) => r.status === 'done')!;
    expect(html).toMatch(new RegExp(`<article class="run" data-run="${done.id}"`));
  });

  it('puts the per-task table in a collapsed <details>', () => {
    expect(html).toMatch(/<details id="tasks-details"><summary>Per-task results/);
    expect(htmlTables(html, 'tasks')[0]).toHaveLength(model.tasks.length);
  });

  it('formats comparisons and factorial effects', () => {
    const rows = htmlTables(html, 'comparisons')[0]!;
    expect(rows).toHaveLength(model.comparisons.length);
    model.comparisons.forEach((c, i) => {
      expect(rows[i]!.cells.wlt).toBe(`${c.wins} / ${c.losses} / ${c.ties}`);
      expect(rows[i]!.cells.mcnemarP).toBe(formatP(c.mcnemarP));
      expect(rows[i]!.cells.mcnemarPHolm).toBe(formatP(c.mcnemarPHolm));
      expect(rows[i]!.cells.selectedDiff).toBe(formatInterval(c.selectedDiff));
    });
    const effectRows = htmlTables(html, 'effects').flat();
    const effects = model.factorial.flatMap((f) => f.outcomes.flatMap((o) => o.effects));
    expect(effectRows).toHaveLength(effects.length);
    effectRows.forEach((r, i) => {
      expect(r.cells.estimate).toBe(formatInterval(effects[i]!.value));
      expect(r.cells.pHolm).toBe(formatP(effects[i]!.pHolm));
    });
    expect(htmlTables(html, 'cells')[0]).toHaveLength(8);
  });
});

describe('HTML tables are reproduced from the JSON and CSV exports', () => {
  const model = buildReportFixture();
  const html = renderHtml(model);
  const csv = renderCsv(model);
  const json = JSON.parse(renderJson(model)) as ReportModel;
  const tasks = records(csv.tasks);
  const conds = records(csv.conditions);
  const summaryRows = htmlTables(html, 'summary').flat();

  it('has one summary row per condition', () => {
    expect(summaryRows).toHaveLength(conds.length);
    expect(summaryRows.map((r) => `${r.attrs.run}|${r.attrs.condition}`)).toEqual(conds.map((c) => `${c.runId}|${c.condition}`));
  });

  it('matches the conditions CSV, the tasks CSV and the JSON', () => {
    for (const row of summaryRows) {
      const { run, condition } = row.attrs;
      const c = conds.find((x) => x.runId === run && x.condition === condition)!;
      const mine = tasks.filter((t) => t.runId === run && t.condition === condition);
      const ok = mine.filter((t) => t.error === '');
      const j = json.conditions.find((x) => x.runId === run && x.condition === condition)!;

      // Pass@k and its interval from the conditions CSV.
      for (const k of [1, 3, 5]) {
        expect(row.cells[`pass@${k}`], `${condition} pass@${k}`).toBe(
          `${round3(Number(c[`pass@${k}`]))} [${round3(Number(c[`pass@${k}_lo`]))}, ${round3(Number(c[`pass@${k}_hi`]))}]`,
        );
      }
      // Counts from the task rows.
      expect(row.cells.tasks).toBe(String(ok.length));
      expect(row.cells.failures).toBe(String(mine.length - ok.length));
      // Means recomputed from the task rows.
      expect(firstNumber(row.cells.selectedCorrect!), condition).toBe(round3(meanOf(ok.map((t) => (t.selectedCorrect === 'true' ? 1 : 0)))));
      expect(firstNumber(row.cells.rawPass1!)).toBe(round3(meanOf(ok.map((t) => Number(t.pass1)))));
      expect(firstNumber(row.cells['pass@1']!)).toBe(round3(meanOf(ok.map((t) => Number(t.c) / Number(t.n)))));
      expect(row.cells.uncertaintyMean).toBe(round3(meanOf(ok.map((t) => Number(t.uncertainty)))));
      const f1s = ok.filter((t) => t.apiF1 !== '').map((t) => Number(t.apiF1));
      expect(row.cells.apiF1).toBe(f1s.length ? round3(meanOf(f1s)) : 'n/a');
      const viewF1s = ok.filter((t) => t.apiF1TaskView !== '').map((t) => Number(t.apiF1TaskView));
      expect(row.cells.apiTaskViewF1).toBe(viewF1s.length ? round3(meanOf(viewF1s)) : 'n/a');
      expect(row.cells.apiTaskViewF1).toBe(c.apiTaskViewF1 === '' ? 'n/a' : round3(Number(c.apiTaskViewF1)));
      expect(row.cells.apiTaskViewExact).toBe(c.apiTaskViewExact === '' ? 'n/a' : round3(Number(c.apiTaskViewExact)));
      const costs = ok.filter((t) => t.costUsd !== '').map((t) => Number(t.costUsd));
      expect(row.cells.costUsd).toBe(costs.length ? `$${costs.reduce((a, b) => a + b, 0).toFixed(4)}` : 'n/a');
      const attempted = ok.filter((t) => Number(t.repairRounds) > 0).length;
      const recovered = ok.filter((t) => t.repairRecovered === 'true').length;
      expect(row.cells.repair).toBe(`${recovered}/${attempted} (${attempted ? round3(recovered / attempted) : 'n/a'})`);
      // Calibration figures from the JSON (NaN came back as null → n/a).
      expect(row.cells.auroc).toBe(j.uncertainty.auroc === null ? 'n/a' : round3(j.uncertainty.auroc));
      expect(row.cells.ece).toBe(round3(j.uncertainty.ece));
      expect(row.cells.samples).toBe(String(j.samples));
    }
  });
});

describe('renderMarkdown', () => {
  const model = buildReportFixture();
  const md = renderMarkdown(model);

  it('has the tables as GitHub Markdown', () => {
    for (const h of [
      '## Runs and provenance',
      '## Summary by condition',
      '## Paired comparisons',
      '## Factorial effects',
      '#### Cell means',
      '## Per-task results',
      '## Statistics',
    ]) {
      expect(md).toContain(h);
    }
    expect(md).toMatch(/^\| Condition \| Family \| Tasks \| Unscored \| n \| Pass@1 \[95 %\] \|/m);
    expect(md).toContain('| --- | --- | ---: | ---: |');
    // Every summary table row has as many cells as its header.
    const lines = md.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.startsWith('| Condition | Family |')) continue;
      const cols = splitMdRow(lines[i]!).length;
      for (let j = i + 2; lines[j]?.startsWith('|'); j++) expect(splitMdRow(lines[j]!)).toHaveLength(cols);
    }
    expect(md).toContain('charts (factorial forest plots, Pass@k, reliability diagrams, API retrieval) are in the HTML report');
    const opencoder = model.conditions.find((c) => c.condition === 'opencoder')!;
    expect(md).toContain(formatInterval(opencoder.passAtK[0]!.value));
    for (const c of model.comparisons) expect(md).toContain(formatInterval(c.selectedDiff));
    expect(md).toContain('API × Context × Similar code');
  });

  it('escapes hostile strings and flags the partial run', () => {
    expect(md).not.toContain(HOSTILE_TASK_ID);
    expect(md).toContain('t&lt;1&gt;&amp;"x"');
    expect(md).not.toContain('<script>');
    expect(md).not.toContain(HOSTILE_NOTE);
    expect(md).toMatch(/\*\*⚠ Run `abl-20250302-b2` is PARTIAL — run interrupted/);
    // Pipes inside cells are escaped, so rows keep their column count.
    const bad = renderMarkdown({ ...model, tasks: [{ ...model.tasks[0]!, taskId: 'a|b' }] });
    expect(bad).toContain('a\\|b');
  });
});

function splitMdRow(line: string): string[] {
  return line
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((s) => s.trim());
}

describe('renderJson', () => {
  it('is the model, pretty-printed, with NaN as null', () => {
    const model = buildReportFixture();
    const text = renderJson(model);
    expect(text).toContain('\n  "title": ');
    expect(text).not.toContain('NaN');
    const back = JSON.parse(text) as ReportModel;
    expect(back.tasks).toHaveLength(model.tasks.length);
    const failed = back.tasks.find((t) => t.error !== null)!;
    expect(failed.pass1).toBeNull();
    expect(failed.uncertainty).toBeNull();
    const nanFree = JSON.parse(JSON.stringify(model, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)));
    expect(back).toEqual(nanFree);
  });
});

describe('renderCsv', () => {
  const model = buildReportFixture();
  const csv = renderCsv(model);

  it('uses CRLF line ends and quotes hostile fields', () => {
    expect(csv.tasks).toMatch(/\r\n$/);
    expect(csv.tasks).toContain('"t<1>&""x"""');
    expect(csv.tasks).toContain('"repo-b/retry, backoff"');
    expect(csv.candidates).toMatch(/"AssertionError: expected 3, got 4\n {2}at test_fmt/);
  });

  it('parses back to exactly the model’s task and candidate rows', () => {
    const tasks = records(csv.tasks);
    expect(tasks).toHaveLength(model.tasks.length);
    model.tasks.forEach((t, i) => {
      for (const [k, v] of Object.entries(t)) expect(tasks[i]![k], `tasks[${i}].${k}`).toBe(expected(v));
    });
    const cands = records(csv.candidates);
    expect(cands).toHaveLength(model.candidates.length);
    model.candidates.forEach((c, i) => {
      for (const [k, v] of Object.entries(c)) expect(cands[i]![k], `candidates[${i}].${k}`).toBe(expected(v));
    });
  });

  it('flattens condition summaries, effects and comparisons, every row with its runId', () => {
    const conds = records(csv.conditions);
    expect(conds).toHaveLength(model.conditions.length);
    model.conditions.forEach((c, i) => {
      const r = conds[i]!;
      expect(r.runId).toBe(c.runId);
      expect(r.condition).toBe(c.condition);
      expect(r.label).toBe(c.label);
      expect(r.tasks).toBe(String(c.tasks));
      for (const p of c.passAtK) {
        expect(r[`pass@${p.k}`]).toBe(expected(p.value.estimate));
        expect(r[`pass@${p.k}_lo`]).toBe(expected(p.value.lo));
        expect(r[`pass@${p.k}_hi`]).toBe(expected(p.value.hi));
      }
      expect(r.selectedCorrect).toBe(expected(c.selectedCorrect.estimate));
      expect(r.auroc).toBe(expected(c.uncertainty.auroc));
      expect(r.apiF1).toBe(expected(c.api?.f1));
      expect([r.apiMatching, r.apiTasks]).toEqual([expected(c.api?.matching), expected(c.api?.tasks)]);
      expect([r.apiTaskViewMatching, r.apiTaskViewTasks, r.apiTaskViewEmptyTruth]).toEqual([
        expected(c.apiTaskView?.matching),
        expected(c.apiTaskView?.tasks),
        expected(c.apiTaskView?.emptyTruth),
      ]);
      expect([r.apiTaskViewF1, r.apiTaskViewExact]).toEqual([expected(c.apiTaskView?.f1), expected(c.apiTaskView?.exact)]);
      expect(r.costUsd).toBe(expected(c.cost.usd));
      expect(r.repairRate).toBe(expected(c.repair.rate));
    });

    const effects = records(csv.effects);
    const flat = model.factorial.flatMap((f) => f.outcomes.flatMap((o) => o.effects.map((e) => ({ f, o, e }))));
    expect(effects).toHaveLength(flat.length);
    flat.forEach(({ f, o, e }, i) => {
      const r = effects[i]!;
      expect([r.runId, r.outcome, r.effect, r.kind, r.factors]).toEqual([f.runId, o.outcome, e.name, e.kind, e.factors.join('+')]);
      expect([r.estimate, r.lo, r.hi, r.p, r.pHolm]).toEqual([e.value.estimate, e.value.lo, e.value.hi, e.p, e.pHolm].map(expected));
    });

    const comps = records(csv.comparisons);
    expect(comps).toHaveLength(model.comparisons.length);
    model.comparisons.forEach((c, i) => {
      const r = comps[i]!;
      expect([r.runId, r.aCondition, r.bRunId, r.bCondition]).toEqual([c.a.runId, c.a.condition, c.b.runId, c.b.condition]);
      expect([r.wins, r.losses, r.ties, r.mcnemarP, r.mcnemarPHolm]).toEqual([c.wins, c.losses, c.ties, c.mcnemarP, c.mcnemarPHolm].map(expected));
      expect([r.selectedDiff, r.selectedDiff_lo, r.selectedDiff_hi]).toEqual([c.selectedDiff.estimate, c.selectedDiff.lo, c.selectedDiff.hi].map(expected));
      for (const d of c.passAtKDiff) expect(r[`pass@${d.k}Diff`]).toBe(expected(d.diff.estimate));
    });

    // Each run's provenance travels with the CSV set.
    const runs = records(csv.runs);
    expect(runs.map((r) => [r.runId, r.manifestHash, r.model, r.promptHash, r.status])).toEqual(
      model.runs.map((r) => [r.id, r.manifest.hash, r.backend.model, r.prompts.hash, r.status]),
    );
  });

  it('writes header-only tables when a part is empty', () => {
    const bare = renderCsv(buildReportFixture({ factorial: false }));
    expect(parseCsv(bare.effects)).toHaveLength(1);
    expect(parseCsv(bare.effects)[0]).toContain('runId');
  });
});

const key = (c: { runId: string; condition: string }) => `${c.runId}|${c.condition}`;

/** The items of every `<ul data-list="NAME">` (one per run), by `runId|condition`, as text. */
const listItems = (html: string, name: string) =>
  new Map(
    [...html.matchAll(new RegExp(`<ul data-list="${name}">([\\s\\S]*?)</ul>`, 'g'))]
      .flatMap((m) => [...m[1]!.matchAll(/<li data-run="([^"]*)" data-condition="([^"]*)">([\s\S]*?)<\/li>/g)])
      .map((li) => [`${decodeEntities(li[1]!)}|${decodeEntities(li[2]!)}`, decodeEntities(li[3]!.replace(/<[^>]+>/g, ''))]),
  );

/** A condition's line in a Markdown report, from `from` on (the first after that section's title). */
const mdLine = (md: string, label: string, condition: string, from = '') =>
  md
    .slice(md.indexOf(from))
    .split('\n')
    .find((l) => l.startsWith(`- ${label} (\`${condition}\`): `));

describe('flaky verdicts in every format', () => {
  const model = buildReportFixture();
  const clean = buildReportFixture({ flaky: false });
  const flakyListItems = (html: string) => listItems(html, 'flaky');

  it('counts the planted flaky verdicts per condition, recounted from the candidate rows', () => {
    for (const c of model.conditions) {
      const rows = model.candidates.filter((x) => key(x) === key(c));
      const planted = FLAKY_PLANTED.filter((f) => key(f) === key(c));
      expect(c.flaky.candidateVerdicts, key(c)).toBe(rows.length);
      expect(c.flaky.candidates, key(c)).toBe(rows.filter((x) => x.status === 'flaky').length);
      expect(c.flaky.candidates, key(c)).toBe(planted.reduce((a, f) => a + f.candidates.length, 0));
      expect(c.flaky.taskIds, key(c)).toEqual(planted.map((f) => f.taskId).sort());
      // Baseline RAG returns candidate 0 unvalidated; a selected output is flaky exactly when that candidate was.
      const selected = model.tasks.filter(
        (t) =>
          key(t) === key(c) &&
          t.error === null &&
          t.selectedOrigin === 'candidate' &&
          rows.some((x) => x.taskId === t.taskId && x.index === t.selectedIndex && x.status === 'flaky'),
      );
      expect(c.flaky.selected, key(c)).toBe(selected.length);
    }
    // The fixture holds both kinds of condition, so neither branch is checked vacuously.
    expect(model.conditions.some((c) => c.flaky.selected > 0)).toBe(true);
    expect(model.conditions.some((c) => c.flaky.candidates === 0)).toBe(true);
    expect(model.candidates.filter((c) => c.status === 'flaky').every((c) => !c.passed)).toBe(true);
  });

  it('HTML lists each condition’s counts, what they are over, and the task ids', () => {
    const items = flakyListItems(renderHtml(model));
    expect([...items.keys()]).toEqual(model.conditions.map(key));
    for (const c of model.conditions) {
      const text = items.get(key(c))!;
      const f = c.flaky;
      if (f.taskIds.length) {
        expect(text).toContain(`${f.candidates} of ${f.candidateVerdicts} candidate verdicts and ${f.selected} of ${c.tasks} selected outputs flaky`);
        for (const t of f.taskIds) expect(text).toContain(t);
      } else {
        expect(text).toContain(`no flaky verdicts (0 of ${f.candidateVerdicts} candidate verdicts, 0 of ${c.tasks} selected outputs)`);
      }
    }
    // The hostile task id is escaped in the list, like everywhere else.
    expect(renderHtml(model)).toContain(`<code>t&lt;1&gt;&amp;&quot;x&quot;</code>`);
  });

  it('Markdown has a line per condition with counts and ids', () => {
    const md = renderMarkdown(model);
    expect(md).toContain('**Flaky verdicts.**');
    for (const c of model.conditions) {
      const line = mdLine(md, c.label.replace(/[*_`[\]#]/g, '\\$&'), c.condition);
      expect(line, key(c)).toBeDefined();
      const f = c.flaky;
      if (f.taskIds.length)
        expect(line).toContain(`${f.candidates} of ${f.candidateVerdicts} candidate verdicts and ${f.selected} of ${c.tasks} selected outputs flaky`);
      else expect(line).toContain(`no flaky verdicts (0 of ${f.candidateVerdicts} candidate verdicts, 0 of ${c.tasks} selected outputs)`);
    }
    const oc = mdLine(md, 'OpenCoder (uncertainty-aware)', 'opencoder')!;
    expect(oc).toContain('<code>t&lt;1&gt;&amp;"x"</code>');
    expect(oc).toContain('<code>repo-b/retry, backoff</code>');
    expect(mdLine(md, 'Baseline RAG', 'baseline-rag')).toContain('`repo-a/parse-args`');
  });

  it('CSV carries the counts in the conditions table and the flaky status in the candidates table', () => {
    const csv = renderCsv(model);
    const conds = records(csv.conditions);
    model.conditions.forEach((c, i) => {
      const r = conds[i]!;
      expect([r.flakyCandidates, r.candidateVerdicts, r.flakySelected]).toEqual(
        [c.flaky.candidates, c.flaky.candidateVerdicts, c.flaky.selected].map(expected),
      );
      expect(JSON.parse(r.flakyTaskIds!)).toEqual(c.flaky.taskIds);
    });
    const flakyCands = records(csv.candidates).filter((r) => r.status === 'flaky');
    expect(flakyCands).toHaveLength(FLAKY_PLANTED.reduce((a, f) => a + f.candidates.length, 0));
    expect(flakyCands.every((r) => r.passed === 'false')).toBe(true);
    expect(JSON.parse(renderJson(model)).conditions.map((c: { flaky: unknown }) => c.flaky)).toEqual(model.conditions.map((c) => c.flaky));
  });

  it('says none in every format when no verdict was flaky', () => {
    expect(clean.conditions.every((c) => c.flaky.candidates === 0 && c.flaky.selected === 0 && !c.flaky.taskIds.length)).toBe(true);
    const items = flakyListItems(renderHtml(clean));
    expect(items.size).toBe(clean.conditions.length);
    for (const text of items.values()) expect(text).toMatch(/no flaky verdicts \(0 of \d+ candidate verdicts, 0 of \d+ selected outputs\)/);
    const md = renderMarkdown(clean);
    expect(md.match(/: no flaky verdicts \(0 of \d+ candidate verdicts, 0 of \d+ selected outputs\)\./g)).toHaveLength(clean.conditions.length);
    expect(md).not.toMatch(/selected outputs flaky/);
    const conds = records(renderCsv(clean).conditions);
    expect(conds.every((r) => r.flakyCandidates === '0' && r.flakySelected === '0' && r.flakyTaskIds === '[]')).toBe(true);
    expect(records(renderCsv(clean).candidates).some((r) => r.status === 'flaky')).toBe(false);
  });
});

describe('in-process verdicts in every format', () => {
  const model = buildReportFixture();
  const clean = buildReportFixture({ inProcess: false });
  const cond = (m: ReportModel, condition: string) => m.conditions.find((c) => c.condition === condition)!;
  const SECTION = '**In-process verdicts.**';

  it('counts the planted in-process verdicts per condition, recounted from the candidate and task rows', () => {
    for (const c of model.conditions) {
      const rows = model.candidates.filter((x) => key(x) === key(c));
      const tasks = model.tasks.filter((t) => key(t) === key(c) && t.error === null);
      const inCands = rows.filter((x) => x.isolation === 'in-process');
      const inSelected = tasks.filter((t) => t.selectedIsolation === 'in-process');
      expect(c.inProcess, key(c)).toEqual({
        candidates: inCands.length,
        candidateVerdicts: rows.length,
        selected: inSelected.length,
        taskIds: [...new Set([...inCands, ...inSelected].map((x) => x.taskId))].sort(),
        isolatedShare: (rows.length - inCands.length) / rows.length,
        reasons: c.inProcess.reasons,
      });
      // A reason row per in-process task here (each gives one reason), its verdicts those counted above.
      expect(c.inProcess.reasons.map((r) => r.taskId)).toEqual(c.inProcess.taskIds);
      expect(c.inProcess.reasons.reduce((n, r) => n + r.verdicts, 0)).toBe(inCands.length + inSelected.length);
      if (c.runId === IN_PROCESS_RUN) expect(c.inProcess, key(c)).toMatchObject({ candidates: rows.length, selected: c.tasks, isolatedShare: 0 });
    }
    // The planted verdicts, exactly: Baseline RAG's in-process candidate 0 is its selected output; OpenCoder's
    // in-process candidate 1 is not the one it selects, and its selected repair was decided in-process.
    expect(IN_PROCESS_PLANTED).toHaveLength(3);
    expect(cond(model, 'baseline-rag').inProcess).toEqual({
      candidates: 2,
      candidateVerdicts: 30,
      selected: 1,
      taskIds: ['repo-a/fmt_date'],
      isolatedShare: 28 / 30,
      reasons: [{ taskId: 'repo-a/fmt_date', reason: IN_PROCESS_REASONS.fmtDate, verdicts: 3 }],
    });
    expect(cond(model, 'rag-verify-repair').inProcess).toEqual({
      candidates: 0,
      candidateVerdicts: 30,
      selected: 0,
      taskIds: [],
      isolatedShare: 1,
      reasons: [],
    });
    expect(cond(model, 'opencoder').inProcess).toEqual({
      candidates: 1,
      candidateVerdicts: 30,
      selected: 1,
      taskIds: ['repo-a/fmt_date', 'repo-c/json "merge"'],
      isolatedShare: 29 / 30,
      reasons: [
        { taskId: 'repo-a/fmt_date', reason: IN_PROCESS_REASONS.fmtDate, verdicts: 1 },
        { taskId: 'repo-c/json "merge"', reason: IN_PROCESS_REASONS.merge, verdicts: 1 },
      ],
    });
    // The interrupted ablation: one task never reached and one unscored in f111, so 4 tasks and 20 verdicts, all in-process.
    expect(cond(model, 'f111').inProcess).toEqual({
      candidates: 20,
      candidateVerdicts: 20,
      selected: 4,
      taskIds: TASK_IDS.slice(0, 4).sort(),
      isolatedShare: 0,
      reasons: TASK_IDS.slice(0, 4)
        .sort()
        .map((taskId) => ({ taskId, reason: ISOLATION_REASON_NOT_RECORDED, verdicts: 6 })),
    });
    expect(model.tasks.find((t) => t.condition === 'opencoder' && t.taskId === 'repo-c/json "merge"')).toMatchObject({
      selectedOrigin: 'repair',
      selectedIsolation: 'in-process',
    });
    expect(model.tasks.filter((t) => t.error !== null).every((t) => t.selectedIsolation === null)).toBe(true);
  });

  it('HTML lists each condition’s counts, what they are over, the share decided isolated, and the task ids', () => {
    const html = renderHtml(model);
    expect(html).toContain(`<h4>In-process verdicts</h4>\n<p class="muted">${IN_PROCESS_MEANING}</p>`);
    const items = listItems(html, 'in-process');
    expect([...items.keys()]).toEqual(model.conditions.map(key));
    const at = (condition: string) => items.get(key(cond(model, condition)))!;
    expect(at('baseline-rag')).toBe(
      'Baseline RAG baseline-rag: 2 of 30 candidate verdicts and 1 of 6 selected outputs in-process (93.3 % of candidate verdicts isolated), on 1 task(s): repo-a/fmt_date',
    );
    expect(at('rag-verify-repair')).toBe(
      'RAG + verify + repair rag-verify-repair: no in-process verdicts (0 of 30 candidate verdicts, 0 of 6 selected outputs; 100.0 % of candidate verdicts isolated).',
    );
    expect(at('opencoder')).toBe(
      'OpenCoder (uncertainty-aware) opencoder: 1 of 30 candidate verdicts and 1 of 6 selected outputs in-process (96.7 % of candidate verdicts isolated), on 2 task(s): repo-a/fmt_date, repo-c/json "merge"',
    );
    expect(at('f111')).toContain('20 of 20 candidate verdicts and 4 of 4 selected outputs in-process (0.0 % of candidate verdicts isolated), on 4 task(s):');
  });

  it('HTML and Markdown list each in-process task with why it was not isolated, per run; none for an all-isolated one', () => {
    const html = renderHtml(model);
    const tables = [...html.matchAll(/<table data-table="in-process-reasons">[\s\S]*?<\/table>/g)].map((m) => m[0]);
    // One per run (the method run and the ablation), after the in-process list.
    expect(tables).toHaveLength(2);
    expect(html.indexOf(`<strong>${IN_PROCESS_REASONS_TITLE}.</strong>`)).toBeGreaterThan(html.indexOf('<ul data-list="in-process">'));
    const text = (cell: string) =>
      cell
        .replace(/<[^>]+>/g, '')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
    const rows = (t: string) =>
      [...t.matchAll(/<tr data-run="[^"]*" data-condition="([^"]*)">([\s\S]*?)<\/tr>/g)].map((m) => [
        m[1],
        ...[...m[2]!.matchAll(/<td data-col="[^"]*"[^>]*>([\s\S]*?)<\/td>/g)].slice(1).map((c) => text(c[1]!)),
      ]);
    expect(rows(tables[0]!)).toEqual([
      ['baseline-rag', 'repo-a/fmt_date', IN_PROCESS_REASONS.fmtDate, '3'],
      ['opencoder', 'repo-a/fmt_date', IN_PROCESS_REASONS.fmtDate, '1'],
      ['opencoder', 'repo-c/json "merge"', IN_PROCESS_REASONS.merge, '1'],
    ]);
    // The ablation stored before reasons were kept: every row says so.
    expect(rows(tables[1]!).every((r) => r[2] === ISOLATION_REASON_NOT_RECORDED)).toBe(true);
    expect(renderHtml(clean)).not.toContain('in-process-reasons');

    const md = renderMarkdown(model);
    expect(md).toContain(`_${IN_PROCESS_REASONS_TITLE}._`);
    expect(md).toContain('| Condition | Task | Why in-process | Verdicts |');
    expect(md).toContain(`| Baseline RAG (\`baseline-rag\`) | \`repo-a/fmt_date\` | ${mdText(IN_PROCESS_REASONS.fmtDate)} | 3 |`);
    expect(md).toContain(`| OpenCoder (uncertainty-aware) (\`opencoder\`) | <code>repo-c/json "merge"</code> | ${mdText(IN_PROCESS_REASONS.merge)} | 1 |`);
    expect(renderMarkdown(clean)).not.toContain('Why in-process');
    // CSV: the same rows, as JSON in the conditions table.
    const conds = records(renderCsv(model).conditions);
    expect(JSON.parse(conds.find((r) => r.condition === 'baseline-rag')!.inProcessReasons!)).toEqual(cond(model, 'baseline-rag').inProcess.reasons);
  });

  it('HTML and Markdown list each condition’s leak suspects, what they are over, and say which conditions were not audited', () => {
    const html = renderHtml(model);
    expect(html).toContain(`<h4>Leak suspects</h4>\n<p class="muted">${LEAK_MEANING}</p>`);
    const items = listItems(html, 'leak');
    const at = (condition: string) => items.get(key(cond(model, condition)))!;
    expect(at('opencoder')).toBe(
      'OpenCoder (uncertainty-aware) opencoder: leak suspects: 1 among 180 evidence items of 6 of 6 tasks audited (dropped before the prompt), on 1 task(s): repo-a/fmt_date',
    );
    expect(at('baseline-rag')).toContain('leak suspects: 0 among 180 evidence items of 6 of 6 tasks audited');
    expect(at('f111')).toContain('not audited for leaks (results stored before the leakage audit existed, or the policy was off; 4 tasks).');
    const md = renderMarkdown(model);
    expect(md).toContain(`**Leak suspects.** ${LEAK_MEANING}`);
    expect(md).toContain('leak suspects: 1 among 180 evidence items of 6 of 6 tasks audited (dropped before the prompt), on 1 task(s):');
  });

  it('Markdown has a line per condition with counts, the share decided isolated and ids', () => {
    const md = renderMarkdown(model);
    expect(md).toContain(`${SECTION} An in-process verdict: the candidate ran inside the test process under hardening`);
    expect(mdLine(md, 'Baseline RAG', 'baseline-rag', SECTION)).toBe(
      '- Baseline RAG (`baseline-rag`): 2 of 30 candidate verdicts and 1 of 6 selected outputs in-process (93.3 % of candidate verdicts isolated), on 1 task(s): `repo-a/fmt_date`',
    );
    expect(mdLine(md, 'RAG + verify + repair', 'rag-verify-repair', SECTION)).toBe(
      '- RAG + verify + repair (`rag-verify-repair`): no in-process verdicts (0 of 30 candidate verdicts, 0 of 6 selected outputs; 100.0 % of candidate verdicts isolated).',
    );
    expect(mdLine(md, 'OpenCoder (uncertainty-aware)', 'opencoder', SECTION)).toBe(
      '- OpenCoder (uncertainty-aware) (`opencoder`): 1 of 30 candidate verdicts and 1 of 6 selected outputs in-process (96.7 % of candidate verdicts isolated), on 2 task(s): `repo-a/fmt_date`, <code>repo-c/json "merge"</code>',
    );
    // The ablation run's section comes later, and counts every verdict of it in-process.
    const summary = md.slice(md.indexOf('## Summary by condition'));
    const abl = summary.slice(summary.indexOf('### Run `abl-20250302-b2`'));
    expect(mdLine(abl, 'No evidence', 'f000', SECTION)).toContain(
      '30 of 30 candidate verdicts and 6 of 6 selected outputs in-process (0.0 % of candidate verdicts isolated), on 6 task(s):',
    );
  });

  it('CSV carries the counts in the conditions table and each verdict’s isolation in the candidates and tasks tables; JSON the same', () => {
    const csv = renderCsv(model);
    const conds = records(csv.conditions);
    model.conditions.forEach((c, i) => {
      const r = conds[i]!;
      expect([r.inProcessCandidates, r.candidateVerdicts, r.inProcessSelected, r.isolatedShare]).toEqual(
        [c.inProcess.candidates, c.inProcess.candidateVerdicts, c.inProcess.selected, c.inProcess.isolatedShare].map(expected),
      );
      expect(JSON.parse(r.inProcessTaskIds!)).toEqual(c.inProcess.taskIds);
    });
    expect(conds.find((r) => r.condition === 'opencoder')).toMatchObject({
      inProcessCandidates: '1',
      candidateVerdicts: '30',
      inProcessSelected: '1',
      inProcessTaskIds: '["repo-a/fmt_date","repo-c/json \\"merge\\""]',
    });
    const cands = records(csv.candidates).filter((r) => r.runId === 'run-20250301-a1' && r.isolation === 'in-process');
    expect(cands.map((r) => `${r.condition}|${r.taskId}|${r.index}`)).toEqual([
      'baseline-rag|repo-a/fmt_date|0',
      'baseline-rag|repo-a/fmt_date|3',
      'opencoder|repo-a/fmt_date|1',
    ]);
    const tasks = records(csv.tasks).filter((r) => r.runId === 'run-20250301-a1' && r.selectedIsolation === 'in-process');
    expect(tasks.map((r) => `${r.condition}|${r.taskId}`)).toEqual(['baseline-rag|repo-a/fmt_date', 'opencoder|repo-c/json "merge"']);
    const json = JSON.parse(renderJson(model)) as ReportModel;
    expect(json.conditions.map((c) => c.inProcess)).toEqual(model.conditions.map((c) => c.inProcess));
    expect(json.candidates.map((c) => c.isolation)).toEqual(model.candidates.map((c) => c.isolation));
  });

  it('says none in every format when every verdict was isolated', () => {
    expect(clean.conditions.every((c) => c.inProcess.candidates === 0 && c.inProcess.selected === 0 && c.inProcess.isolatedShare === 1)).toBe(true);
    const items = listItems(renderHtml(clean), 'in-process');
    expect(items.size).toBe(clean.conditions.length);
    for (const text of items.values())
      expect(text).toMatch(/no in-process verdicts \(0 of \d+ candidate verdicts, 0 of \d+ selected outputs; 100\.0 % of candidate verdicts isolated\)\.$/);
    const md = renderMarkdown(clean);
    expect(
      md.match(/: no in-process verdicts \(0 of \d+ candidate verdicts, 0 of \d+ selected outputs; 100\.0 % of candidate verdicts isolated\)\./g),
    ).toHaveLength(clean.conditions.length);
    expect(md).not.toMatch(/selected outputs in-process/);
    const conds = records(renderCsv(clean).conditions);
    expect(conds.every((r) => r.inProcessCandidates === '0' && r.inProcessSelected === '0' && r.inProcessTaskIds === '[]' && r.isolatedShare === '1')).toBe(
      true,
    );
    expect(records(renderCsv(clean).candidates).every((r) => r.isolation === 'isolated')).toBe(true);
  });
});

describe('writeReport', () => {
  const model = buildReportFixture();

  it('writes html, md and json to the given file, creating the folder', () => {
    const dir = path.join(tmpDir('oc-report-'), 'nested', 'deeper');
    for (const [format, file] of [
      ['html', 'r.html'],
      ['md', 'r.md'],
      ['json', 'r.json'],
    ] as const) {
      const written = writeReport(model, format, path.join(dir, file));
      expect(written).toEqual([path.join(dir, file)]);
      expect(fs.readFileSync(written[0]!, 'utf8').length).toBeGreaterThan(1000);
    }
  });

  it('writes six CSV files beside each other', () => {
    const dir = tmpDir('oc-report-');
    const written = writeReport(model, 'csv', path.join(dir, 'out', 'exp1.csv'));
    expect(written.map((p) => path.basename(p))).toEqual([
      'exp1.csv',
      'exp1.candidates.csv',
      'exp1.conditions.csv',
      'exp1.effects.csv',
      'exp1.comparisons.csv',
      'exp1.runs.csv',
    ]);
    const csv = renderCsv(model);
    expect(fs.readFileSync(written[0]!, 'utf8')).toBe(csv.tasks);
    expect(fs.readFileSync(written[2]!, 'utf8')).toBe(csv.conditions);
  });

  it('fails with an error naming the file', () => {
    const dir = tmpDir('oc-report-');
    const blocker = path.join(dir, 'blocker');
    fs.writeFileSync(blocker, 'a file, not a folder');
    const target = path.join(blocker, 'report.html');
    expect(() => writeReport(model, 'html', target)).toThrow(new RegExp(target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    expect(() => writeReport(model, 'pdf' as never, path.join(dir, 'r.pdf'))).toThrow(/Unknown report format "pdf"/);
  });
});
