// Calls that read finished runs: experiment.model (the report model of one run, or several compared) and
// report.render (that model as HTML, Markdown, JSON or the CSV tables), through ops/report.ts as the CLI's report.

import { renderReport, storedReport } from '../ops/report.ts';
import type { Workspace } from '../workspace.ts';
import type { CallTable } from './index.ts';

export function reportCalls(ws: Workspace): CallTable<'experiment.model' | 'report.render'> {
  return {
    'experiment.model': ({ runIds }) => storedReport(ws.experiments, runIds),
    'report.render': ({ runIds, format }) => ({ files: renderReport(storedReport(ws.experiments, runIds), runIds, format) }),
  };
}
