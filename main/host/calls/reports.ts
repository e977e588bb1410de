// Calls that read finished runs: experiment.model (the report model of one run, or several compared) and
// report.render (that model as HTML, Markdown, JSON or the CSV tables).

import type { ReportFile } from '../../../contract/index.ts';
import { AnalysisError, buildReportModel, loadRun, reportComparisons, type LoadedRun } from '../../experiment/analysis.ts';
import { renderCsv, renderHtml, renderJson, renderMarkdown, type CsvTable } from '../../experiment/report.ts';
import { appInfo } from '../../experiment/runner.ts';
import type { ReportModel } from '../../model/report.ts';
import { packageRoot } from '../paths.ts';
import { fail, type Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';

const REPORT_MIME = { html: 'text/html', md: 'text/markdown', json: 'application/json', csv: 'text/csv' } as const;
const CSV_ORDER: CsvTable[] = ['tasks', 'candidates', 'conditions', 'effects', 'comparisons', 'runs'];

function loadRuns(ws: Workspace, ids: string[]): LoadedRun[] {
  return ids.map((id) => {
    try {
      return loadRun(ws.experiments, id);
    } catch (err) {
      if (err instanceof AnalysisError) fail('not-found', err.message);
      throw err;
    }
  });
}

function model(ws: Workspace, ids: string[]): ReportModel {
  const loaded = loadRuns(ws, ids);
  const info = appInfo(packageRoot());
  return buildReportModel(loaded, { tool: { name: info.name, version: info.version }, comparisons: reportComparisons(loaded) });
}

function render(m: ReportModel, runIds: string[], format: keyof typeof REPORT_MIME): ReportFile[] {
  const base = `opencoder-${runIds.join('_vs_')}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const files: ReportFile[] = [];
  if (format === 'html') files.push({ name: `${base}.html`, mime: REPORT_MIME.html, content: renderHtml(m) });
  else if (format === 'md') files.push({ name: `${base}.md`, mime: REPORT_MIME.md, content: renderMarkdown(m) });
  else if (format === 'json') files.push({ name: `${base}.json`, mime: REPORT_MIME.json, content: renderJson(m) });
  else {
    const tables = renderCsv(m);
    for (const t of CSV_ORDER) files.push({ name: t === 'tasks' ? `${base}.csv` : `${base}.${t}.csv`, mime: REPORT_MIME.csv, content: tables[t] });
  }
  return files;
}

export function reportCalls(ws: Workspace): CallTable<'experiment.model' | 'report.render'> {
  return {
    'experiment.model': ({ runIds }) => model(ws, runIds),
    'report.render': ({ runIds, format }) => ({ files: render(model(ws, runIds), runIds, format) }),
  };
}
