// Reports over runs of different backends: the offline generator is "no model (retrieval-only baseline)" wherever
// the report names a backend (also for runs stored under its older label), and every chart or table that puts
// the runs side by side names each series' backend. One backend: the names stay as they were.

import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../main/experiment/report/html.ts';
import { renderMarkdown } from '../../main/experiment/report/markdown.ts';
import { buildReportFixture } from '../helpers/report-fixture.ts';

const OFFLINE = 'no model (retrieval-only baseline)';
const svg = (html: string, chart: string) => html.match(new RegExp(`<svg [^>]*data-chart="${chart}"[\\s\\S]*?</svg>`))?.[0] ?? '';

describe('backend labels in reports', () => {
  const model = buildReportFixture();
  const [methodRun, ablation] = model.runs;
  const html = renderHtml(model);
  const md = renderMarkdown(model);

  it('the fixture compares an OpenAI run with an offline run stored under an older label', () => {
    expect(methodRun!.backend.label).toBe('OpenAI gpt-4o-mini');
    expect(ablation!.backend).toMatchObject({ provider: 'offline', label: 'Offline (evidence adapter)' });
  });

  it('names the offline run "no model (retrieval-only baseline)" in provenance, summaries and factorial headings', () => {
    expect(html).not.toContain('Offline (evidence adapter)');
    expect(md).not.toContain('Offline (evidence adapter)');
    expect(html).toContain(`<span class="muted">2³ factorial ablation · ${OFFLINE}</span>`);
    expect(md).toContain(`### Run \`${ablation!.id}\` — 2³ factorial ablation · ${OFFLINE}`);
    expect(html).toContain(`· backend ${OFFLINE} ·`);
    expect(md).toContain(`· backend ${OFFLINE} ·`);
  });

  it('puts each run’s backend on its section of the bar charts and on every reliability panel', () => {
    for (const chart of ['pass-at-k', 'api-f1']) {
      const s = svg(html, chart);
      expect(s, chart).toContain(`Run ${methodRun!.id} — method run · OpenAI gpt-4o-mini</text>`);
      expect(s, chart).toContain(`Run ${ablation!.id} — 2³ factorial ablation · ${OFFLINE} (partial)</text>`);
    }
    const rel = svg(html, 'uncertainty-vs-correctness');
    const tags = [...rel.matchAll(/class="panel-tag"[^>]*>(?:<title>[^<]*<\/title>)?([^<]*)</g)].map((m) => m[1]);
    const scored = model.conditions.filter((c) => c.uncertainty.bins.some((b) => b.count > 0));
    expect(tags).toEqual(scored.map((c) => (c.runId === methodRun!.id ? 'OpenAI gpt-4o-mini' : OFFLINE)));
  });

  it('names the backend of both arms of a paired comparison', () => {
    const cmp = model.comparisons[0]!;
    const arm = (runId: string, label: string) => `${label} — ${runId === methodRun!.id ? 'OpenAI gpt-4o-mini' : OFFLINE}`;
    expect(md).toContain(arm(cmp.a.runId, cmp.a.label));
    expect(md).toContain(arm(cmp.b.runId, cmp.b.label));
  });

  it('with one backend, adds nothing to the names', () => {
    const one = buildReportFixture({ factorial: false });
    expect(new Set(one.runs.map((r) => r.backend.label)).size).toBe(1);
    const h = renderHtml(one);
    expect(h).not.toContain('class="panel-tag"');
    expect(h).not.toContain(' — OpenAI gpt-4o-mini');
    for (const c of one.conditions) expect(svg(h, 'pass-at-k')).toContain(`${c.label} (n = ${c.tasks}`);
  });
});
