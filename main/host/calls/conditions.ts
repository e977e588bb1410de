// The conditions a call runs: method ids resolved (a bad one is invalid input), the factorial or the ladder,
// and the Settings view's pipeline overrides (and an interactive run's evidence sources) applied to each.

import type { Sources } from '../../../contract/index.ts';
import { makeConfig, type PipelineConfig } from '../../model/config.ts';
import { factorialConditions, LADDER, METHOD_SETS, METHODS, resolveConditions, type Condition } from '../../pipeline/methods.ts';
import { messageOf } from '../jobs.ts';
import { fail, type Workspace } from '../workspace.ts';

export function resolveMethods(methods: string[]): Condition[] {
  try {
    return resolveConditions(methods);
  } catch (err) {
    return fail('invalid-input', messageOf(err), [{ path: 'methods', message: messageOf(err) }]);
  }
}

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
  const config: PipelineConfig = makeConfig(layer as Parameters<typeof makeConfig>[0], cond.config);
  const off = sources ? (['api', 'context', 'similar'] as const).filter((s) => !sources[s]) : [];
  return { ...cond, config, ...(off.length ? { description: `${cond.description} (evidence off: ${off.join(', ')})` } : {}) };
}

/** An experiment's conditions: the methods of a run, the ladder, or the factorial over a base method. */
export function conditionsFor(ws: Workspace, kind: 'run' | 'ablate' | 'ladder', methods: string[] | undefined): Condition[] {
  let conds: Condition[];
  if (kind === 'run') conds = resolveMethods(methods ?? [...METHOD_SETS.compare]);
  else if (kind === 'ladder') conds = LADDER;
  else {
    const baseId = methods?.[0] ?? 'opencoder';
    const base = METHODS[baseId];
    if (!base)
      fail('invalid-input', `the factorial's base method must be one of ${Object.keys(METHODS).join(', ')} (got ${baseId})`, [
        { path: 'methods', message: 'not a method' },
      ]);
    conds = factorialConditions(base);
  }
  return conds.map((c) => applyOverrides(ws, c));
}
