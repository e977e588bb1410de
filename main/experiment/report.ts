// Renders a ReportModel (model/report.ts) as one self-contained HTML file (inline CSS and hand-drawn inline
// SVG, no external resource, strict CSP), GitHub Markdown, pretty JSON, or RFC 4180 CSV tables. Rendering is
// pure: every figure shown comes from the model, so the HTML tables can be reproduced from the JSON/CSV.

// The formats live in report/: format.ts (numbers, shared labels), html.ts, markdown.ts, csv.ts.

import fs from 'node:fs';
import path from 'node:path';
import type { ReportModel } from '../model/report.ts';
import { renderCsv, type CsvTable } from './report/csv.ts';
import { renderHtml } from './report/html.ts';
import { renderMarkdown } from './report/markdown.ts';

export type ReportFormat = 'html' | 'md' | 'json' | 'csv';
export const REPORT_FORMATS: readonly ReportFormat[] = ['html', 'md', 'json', 'csv'];
export type { CsvTable };

export { renderHtml } from './report/html.ts';
export { renderMarkdown } from './report/markdown.ts';
export { csvField, renderCsv } from './report/csv.ts';
export { apiProtocolLabel, formatInterval, formatP, formatRate, formatUsd } from './report/format.ts';

// ---------------------------------------------------------------------------------------------------------
// JSON

/** The model itself, pretty-printed; NaN and ±Infinity become null. */
export function renderJson(model: ReportModel): string {
  return JSON.stringify(model, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n';
}

// ---------------------------------------------------------------------------------------------------------
// Files

function writeFile(file: string, content: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (err) {
    throw new Error(`Cannot create the folder for report file ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    fs.writeFileSync(file, content, 'utf8');
  } catch (err) {
    throw new Error(`Cannot write report file ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** Paths the csv format writes for `outFile`: the tasks table there, the other tables beside it. */
export function csvPaths(outFile: string): Record<CsvTable, string> {
  const abs = path.resolve(outFile);
  const parsed = path.parse(abs);
  const stem = parsed.ext.toLowerCase() === '.csv' ? path.join(parsed.dir, parsed.name) : abs;
  return {
    tasks: abs,
    candidates: `${stem}.candidates.csv`,
    conditions: `${stem}.conditions.csv`,
    effects: `${stem}.effects.csv`,
    comparisons: `${stem}.comparisons.csv`,
    runs: `${stem}.runs.csv`,
  };
}

/** Writes the report in `format` to `outFile` (csv: five files) and returns the absolute paths written. */
export function writeReport(model: ReportModel, format: ReportFormat, outFile: string): string[] {
  if (!outFile) throw new Error('writeReport: no output file given');
  const abs = path.resolve(outFile);
  switch (format) {
    case 'html':
      writeFile(abs, renderHtml(model));
      return [abs];
    case 'md':
      writeFile(abs, renderMarkdown(model));
      return [abs];
    case 'json':
      writeFile(abs, renderJson(model));
      return [abs];
    case 'csv': {
      const tables = renderCsv(model);
      const paths = csvPaths(abs);
      const order: CsvTable[] = ['tasks', 'candidates', 'conditions', 'effects', 'comparisons', 'runs'];
      for (const t of order) writeFile(paths[t], tables[t]);
      return order.map((t) => paths[t]);
    }
    default:
      throw new Error(`Unknown report format "${String(format)}" (expected one of ${REPORT_FORMATS.join(', ')})`);
  }
}
