// The Settings view's pipeline constants (and an interactive run's evidence sources) applied to a condition: what an
// app request leaves out (host/ops/run.ts planRun applies it before the request's own generation rules).

import type { Sources } from '../../../contract/index.ts';
import { makeConfig, type PipelineConfig } from '../../model/config.ts';
import type { Condition } from '../../pipeline/methods.ts';
import type { Workspace } from '../workspace.ts';

/** The Settings view's pipeline overrides (and an interactive run's evidence sources) applied to a condition. */
export function applyOverrides(ws: Workspace, cond: Condition, sources?: Sources): Condition {
  const o = ws.settings.pipeline;
  const pick = <T extends object>(x: T) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined)) as Partial<T>;
  const layer = {
    fusion: pick({ alpha: o.alpha, keepFraction: o.keepFraction, topK: o.topK }),
    generation: pick({ candidates: o.candidates, temperature: o.temperature }),
    // Repair rounds change only methods that repair: Baseline RAG stays a baseline.
    validation: cond.config.validation.repairRounds > 0 && o.repairRounds !== undefined ? { repairRounds: o.repairRounds } : {},
    retrieval: sources ? { sources: { ...sources } } : {},
  };
  const config: PipelineConfig = makeConfig(layer, cond.config);
  const off = sources ? (['api', 'context', 'similar'] as const).filter((s) => !sources[s]) : [];
  return { ...cond, config, ...(off.length ? { description: `${cond.description} (evidence off: ${off.join(', ')})` } : {}) };
}
