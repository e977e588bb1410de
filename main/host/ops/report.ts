// Reports, one way in for the CLI (report, compare, a finished run's summary) and the app (experiment.model,
// report.render): the stored runs loaded (a missing one is not-found, naming the recent ones), the report model built
// with this tool's name and version, and the model rendered as the files a format has.

import type { ReportFile } from '../../../contract/index.ts';
import { AnalysisError, loadRun, type LoadedRun } from '../../experiment/loaded-run.ts';
import { buildReportModel } from '../../experiment/analysis.ts';
import { reportComparisons } from '../../experiment/comparisons.ts';
import { renderCsv, renderHtml, renderJson, renderMarkdown, type CsvTable } from '../../experiment/report.ts';
import { appInfo } from '../../experiment/runner.ts';
import type { ReportModel } from '../../model/report.ts';
import type { ExperimentStore } from '../../store/experiments.ts';
import { packageRoot } from '../paths.ts';
import { fail } from '../workspace.ts';

export type ReportOptions = Omit<Parameters<typeof buildReportModel>[1], 'tool'>;

/** The stored runs by id; one that is not in the store fails as not-found. */
export function loadRuns(experiments: ExperimentStore, ids: string[]): LoadedRun[] {
  return ids.map((id) => {
    try {
      return loadRun(experiments, id);
    } catch (err) {
      if (err instanceof AnalysisError) fail('not-found', err.message);
      throw err;
    }
  });
}

/** The report model of the runs, with this tool's name and version. */
export function reportModel(loaded: LoadedRun[], opts: ReportOptions = {}): ReportModel {
  const info = appInfo(packageRoot());
  return buildReportModel(loaded, { ...opts, tool: { name: info.name, version: info.version } });
}

/** The report of stored runs as an exported report shows them: with the report's comparisons. */
export function storedReport(experiments: ExperimentStore, ids: string[], opts: ReportOptions = {}): ReportModel {
  const loaded = loadRuns(experiments, ids);
  return reportModel(loaded, { comparisons: reportComparisons(loaded), ...opts });
}

const REPORT_MIME = { html: 'text/html', md: 'text/markdown', json: 'application/json', csv: 'text/csv' } as const;
const CSV_ORDER: CsvTable[] = ['tasks', 'candidates', 'conditions', 'effects', 'comparisons', 'runs'];

/** The model as the files of a format (CSV: one file per table), named after the runs. */
export function renderReport(m: ReportModel, runIds: string[], format: keyof typeof REPORT_MIME): ReportFile[] {
  const base = `opencoder-${runIds.join('_vs_')}`.replace(/[^A-Za-z0-9._-]/g, '_');
  if (format === 'html') return [{ name: `${base}.html`, mime: REPORT_MIME.html, content: renderHtml(m) }];
  if (format === 'md') return [{ name: `${base}.md`, mime: REPORT_MIME.md, content: renderMarkdown(m) }];
  if (format === 'json') return [{ name: `${base}.json`, mime: REPORT_MIME.json, content: renderJson(m) }];
  const tables = renderCsv(m);
  return CSV_ORDER.map((t) => ({ name: t === 'tasks' ? `${base}.csv` : `${base}.${t}.csv`, mime: REPORT_MIME.csv, content: tables[t] }));
}
