// Issue 31, the reports at the edges: a degenerate statistic is flagged wherever it is printed (AUPRC beside an
// AUROC that is undefined, ECE with every task in one bin, paired tests where every pair ties), rates carry three
// decimals, and the HTML report's SVG charts label every bar (a zero too), keep labels to whole words and draw a
// reliability point at 1.0 inside its panel.

import { describe, expect, it } from 'vitest';
import { renderCsv, renderHtml, renderMarkdown } from '../../main/experiment/report.ts';
import { fitText, groupedBars, reliabilityDiagram, textWidth } from '../../main/experiment/svg-charts.ts';
import { mcnemarFlag, permutationFlag, uncertaintyFlag } from '../../main/model/degenerate.ts';
import { rate, rateDiff } from '../../main/model/format.ts';
import { niceTicks, tickLabel } from '../../main/model/ticks.ts';
import { edgeModel } from '../helpers/edge-runs.ts';

/** The cells of the HTML table row of `condition` in the table `table`, by data-col. */
function htmlCells(html: string, table: string, attr: string, value: string): Record<string, string> {
  const t = html.slice(html.indexOf(`data-table="${table}"`));
  const body = t.slice(0, t.indexOf('</table>'));
  const row = body.split('<tr').find((r) => r.includes(`${attr}="${value}"`));
  if (!row) throw new Error(`no row ${attr}=${value} in table ${table}`);
  return Object.fromEntries([...row.matchAll(/<td data-col="([^"]+)"[^>]*>(.*?)<\/td>/g)].map((m) => [m[1]!, m[2]!]));
}

/** The Markdown table that starts with `first` as its first header: rows of cells. */
function mdTable(md: string, header: string): Record<string, string>[] {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => l.startsWith('|') && l.includes(header));
  if (at < 0) throw new Error(`no Markdown table with ${header}`);
  const cells = (l: string) =>
    l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
  const head = cells(lines[at]!);
  const rows: Record<string, string>[] = [];
  for (let i = at + 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(Object.fromEntries(cells(lines[i]!).map((c, j) => [head[j]!, c])));
  return rows;
}

/** Text labels of an SVG: what is drawn and the full text (the tooltip when it was shortened). */
function svgLabels(svg: string, cls: string): { shown: string; full: string }[] {
  return [...svg.matchAll(new RegExp(`<text[^>]*class="${cls}"[^>]*>(?:<title>([^<]*)</title>)?([^<]*)</text>`, 'g'))].map((m) => ({
    full: m[1] ?? m[2]!,
    shown: m[2]!,
  }));
}

/** Whether `shown` is `full`, or its first words (only a lone first word may be cut) followed by an ellipsis. */
function wholeWords(shown: string, full: string): boolean {
  if (shown === full) return true;
  if (!shown.endsWith('…')) return false;
  const words = shown.slice(0, -1).trim().split(' ');
  const fullWords = full.split(' ');
  if (words.length === 1 && !fullWords.includes(words[0]!)) return fullWords[0]!.startsWith(words[0]!);
  return words.every((w, i) => w === fullWords[i] || (i === words.length - 1 && fullWords[i]!.replace(/[·,;:+—–-]+$/, '') === w));
}

describe('degenerate statistics are flagged wherever they are printed', () => {
  const zero = edgeModel('all-zero');
  const equal = edgeModel('all-equal');

  it('one class only: AUROC is undefined and AUPRC, trivially 1, is flagged beside it (HTML and Markdown)', () => {
    const c = zero.conditions[0]!;
    expect(Number.isNaN(c.uncertainty.auroc)).toBe(true);
    expect(c.uncertainty.auprc).toBe(1);
    expect(uncertaintyFlag(c.uncertainty, 'auprc', c.tasks)).toMatch(/one class only/);

    const cells = htmlCells(renderHtml(zero), 'summary', 'data-condition', c.condition);
    expect(cells.auroc).toMatch(/^n\/a<br><span class="warning"[^>]*title="[^"]*one class only[^"]*">degenerate<\/span>$/);
    expect(cells.auprc).toMatch(/^1\.000<br><span class="warning"[^>]*title="[^"]*one class only[^"]*">degenerate<\/span>$/);

    const rows = mdTable(renderMarkdown(zero), 'AUPRC');
    expect(rows).toHaveLength(8);
    for (const r of rows) {
      expect(r.AUROC).toMatch(/^n\/a \(degenerate: every selected output fails: one class only\)$/);
      expect(r.AUPRC).toMatch(/^1\.000 \(degenerate: every selected output fails: one class only\)$/);
    }
  });

  it('a condition with both classes prints AUROC, AUPRC and ECE plainly', () => {
    const eight = edgeModel('eight');
    const c = eight.conditions.find((x) => !x.uncertainty.degenerate)!;
    expect(c).toBeDefined();
    const cells = htmlCells(renderHtml(eight), 'summary', 'data-condition', c.condition);
    for (const stat of ['auroc', 'auprc', 'ece']) expect(cells[stat], stat).toMatch(/^\d\.\d{3}$/);
  });

  it('ECE with every task in one bin, or with a single task, is flagged; AUROC and AUPRC follow the condition', () => {
    const u = { auroc: 0.5, auprc: 0.5, ece: 0.2, degenerate: null, bins: [{ count: 0 }, { count: 6 }, { count: 0 }] };
    expect(uncertaintyFlag(u, 'ece', 6)).toBe('every task falls in one bin');
    expect(uncertaintyFlag(u, 'auroc', 6)).toBeNull();
    expect(uncertaintyFlag({ ...u, bins: [{ count: 3 }, { count: 3 }] }, 'ece', 6)).toBeNull();
    expect(uncertaintyFlag({ ...u, bins: [{ count: 1 }] }, 'auprc', 1)).toBe('one scored task only');
    expect(uncertaintyFlag({ ...u, bins: [] }, 'ece', 0)).toBe('no scored tasks');
    // The same model with one bin: the reports flag ECE.
    const oneBin = structuredClone(equal);
    const c = oneBin.conditions[0]!;
    c.uncertainty.bins = c.uncertainty.bins.map((b, i) => ({ ...b, count: i === 4 ? c.tasks : 0 }));
    expect(htmlCells(renderHtml(oneBin), 'summary', 'data-condition', c.condition).ece).toMatch(/degenerate/);
    expect(mdTable(renderMarkdown(oneBin), 'AUPRC')[0]!.ECE).toMatch(/\(degenerate: every task falls in one bin\)$/);
    const csvRow = renderCsv(oneBin).conditions.split('\r\n')[1]!;
    expect(csvRow).toContain('every task falls in one bin');
  });

  it('paired tests where every pair ties are flagged in HTML, Markdown and CSV', () => {
    const cmp = equal.comparisons[0]!;
    expect(cmp.wins + cmp.losses).toBe(0);
    expect(mcnemarFlag(cmp)).toMatch(/all ties/);
    expect(permutationFlag(cmp.passAtKDiff[0]!.test)).toMatch(/all ties/);
    const cells = htmlCells(renderHtml(equal), 'comparisons', 'data-a', cmp.a.condition);
    expect(cells.mcnemarP).toMatch(/^p = 1\.000<br><span class="warning"[^>]*>degenerate<\/span>$/);
    expect(cells['pass@1P']).toMatch(/degenerate/);
    const row = mdTable(renderMarkdown(equal), 'McNemar p')[0]!;
    expect(row['McNemar p']).toBe('p = 1.000 (degenerate: all ties: no task where the two differ)');
    expect(renderCsv(equal).comparisons).toContain('all ties: no task where the two differ');
    // A comparison with a discordant pair is not flagged.
    const eight = edgeModel('eight').comparisons[0]!;
    expect(eight.wins + eight.losses).toBeGreaterThan(0);
    expect(mcnemarFlag(eight)).toBeNull();
  });
});

describe('factorial effects of equal cells', () => {
  it('count a contrast of rounding noise (1e-17) as 0: every effect rests on no informative task and is flagged', () => {
    const u = edgeModel('all-zero').factorial[0]!.outcomes.find((o) => o.outcome === 'uncertainty')!;
    // The cells' uncertainty is the same for each task, so every contrast is 0 in truth (and some 1e-17 in floating point).
    expect(u.effects.some((e) => e.value.estimate !== 0)).toBe(true);
    for (const e of u.effects) {
      expect(Math.abs(e.value.estimate)).toBeLessThan(1e-12);
      expect(e.informativeTasks, e.name).toBe(0);
      expect(e.degenerate, e.name).toMatch(/rests on 0 informative tasks/);
      expect(e.significant).toBe(false);
    }
  });
});

describe('one format for rates', () => {
  it('writes a rate with three decimals and a difference of rates signed', () => {
    expect(rate(0)).toBe('0.000');
    expect(rate(-0.0001)).toBe('0.000');
    expect(rate(1)).toBe('1.000');
    expect(rate(Number.NaN)).toBe('n/a');
    expect(rateDiff(0.2)).toBe('+0.200');
    expect(rateDiff(-0.04)).toBe('-0.040');
  });

  it('draws axis ticks of a range within rounding noise of 0 as a range around 0', () => {
    const t = niceTicks(-4e-17, 3e-17, { count: 6, includeZero: true });
    expect(t.ticks).toContain(0);
    expect(t.min).toBeLessThanOrEqual(-0.5);
    expect(t.max).toBeGreaterThanOrEqual(0.5);
    for (const v of t.ticks) expect(tickLabel(v, t.step)).toMatch(/^-?\d+(\.\d{1,2})?$/);
  });
});

describe('SVG charts of the HTML report at the edges', () => {
  it('labels every bar with its value, zeros included', () => {
    const html = renderHtml(edgeModel('all-zero'));
    const charts = [...html.matchAll(/<svg class="chart" id="(chart-(?:pass-at-k|api-f1[^"]*))"[\s\S]*?<\/svg>/g)];
    expect(charts.map((m) => m[1])).toEqual(['chart-pass-at-k', 'chart-api-f1', 'chart-api-f1-task-view']);
    for (const [svg, id] of charts) {
      const bars = svg.match(/class="mark bar"/g) ?? [];
      const values = svgLabels(svg, 'value-label').map((l) => l.shown);
      expect(bars.length, id).toBeGreaterThanOrEqual(8);
      expect(values, id).toHaveLength(bars.length);
      expect(new Set(values), id).toEqual(new Set(['0.000']));
    }
  });

  it('shortens labels at word boundaries, with the full text as a tooltip', () => {
    expect(fitText('API + Context + Similar (abc123) · offline', textWidth('API + Context + Sim', 12), 12)).toBe('API + Context…');
    expect(fitText('Supercalifragilistic', 40, 12)).toMatch(/^Super?c?a?…$/);
    const long = 'Context + Similar code with a long name that cannot fit in the label column';
    const svg = groupedBars({
      id: 'c',
      chart: 'c',
      title: 't',
      xLabel: 'x',
      domain: [0, 1],
      series: [{ label: 'F1' }],
      width: 420,
      groups: [
        { label: long, section: `A section heading that runs on well past the width of this narrow chart, ${long}`, values: [{ value: 0 }] },
        { label: 'No retrieval', values: [{ value: 0.5 }] },
      ],
    });
    const labels = [...svgLabels(svg, 'row-label'), ...svgLabels(svg, 'section-label')];
    expect(labels.length).toBe(3);
    expect(labels.some((l) => l.shown !== l.full)).toBe(true);
    for (const l of labels) expect(wholeWords(l.shown, l.full), `${l.shown} of ${l.full}`).toBe(true);
    expect(svgLabels(svg, 'value-label').map((l) => l.shown)).toEqual(['0.000', '0.500']);
  });

  it('draws reliability points at 0 and 1 whole inside their panel', () => {
    const svg = reliabilityDiagram({
      id: 'r',
      chart: 'r',
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      panels: [
        {
          label: 'All fail',
          bins: [
            { lo: 0, hi: 0.1, count: 9, meanPredicted: 0, observedRate: 0 },
            { lo: 0.9, hi: 1, count: 9, meanPredicted: 1, observedRate: 1 },
          ],
        },
      ],
    });
    const frame = svg
      .match(/<rect class="frame" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/)!
      .slice(1)
      .map(Number);
    const [fx, fy, fw, fh] = frame as [number, number, number, number];
    const points = [...svg.matchAll(/<circle class="mark point" cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)"/g)].map((m) => m.slice(1).map(Number));
    expect(points).toHaveLength(2);
    for (const [cx, cy, rad] of points as [number, number, number][]) {
      expect(cx - rad).toBeGreaterThanOrEqual(fx);
      expect(cy - rad).toBeGreaterThanOrEqual(fy);
      expect(cx + rad).toBeLessThanOrEqual(fx + fw);
      expect(cy + rad).toBeLessThanOrEqual(fy + fh);
    }
  });
});
