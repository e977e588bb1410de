// A condition's display name in the analysis' tables and charts (kept out of Charts.tsx, so the tables need no chart
// code).

import { mixedBackendLabels, type ReportModel } from '../../api/contract.ts';

/**
 * A condition's display name; the run id is added when the model compares runs, and the run's backend when those
 * runs came from different backends (retrieval-only results never stand unlabelled beside a model's).
 */
export function condName(model: ReportModel, c: { runId: string; label: string }): string {
  const name = model.runs.length > 1 ? `${c.label} (${c.runId.slice(-6)})` : c.label;
  const backends = mixedBackendLabels(model.runs);
  return backends ? `${name} · ${backends.get(c.runId) ?? 'unknown backend'}` : name;
}
