// The compared methods as switch settings of one PipelineConfig. Every condition of an experiment is one of
// these: the end-to-end methods, the RQ2 component ladder, or a cell of the 2³ evidence-source factorial.
// Budgets are matched by construction: the same retrievers and pool size per source (top 8), the same number
// of evidence items shown (top K), five candidates, the same tests and, where repair is on, the same two rounds.

import { DEFAULT_CONFIG, makeConfig, SOURCES, type PipelineConfig, type Source } from '../model/config.ts';

export { configHash } from '../util/config-hash.ts';

export type ConditionFamily = 'method' | 'ladder' | 'factorial';

export interface Condition {
  id: string;
  label: string;
  family: ConditionFamily;
  /** One line: what is switched on and off. */
  description: string;
  config: PipelineConfig;
}

type Overrides = Parameters<typeof makeConfig>[0];

/** Plain RAG: all three sources, one query per source, no uncertainty, evidence concatenated, the normalised-mode candidate unvalidated. */
const BASELINE: Overrides = {
  retrieval: { decompose: false },
  fusion: { mode: 'concatenate', useUncertainty: false, refineApi: false },
  generation: { uncertaintyGuided: false },
  validation: { verify: false, repairRounds: 0 },
};

function condition(id: string, label: string, family: ConditionFamily, description: string, ...layers: Overrides[]): Condition {
  let config = DEFAULT_CONFIG;
  for (const l of layers) config = makeConfig(l, config);
  return { id, label, family, description, config };
}

export const METHODS: Record<string, Condition> = {
  'baseline-rag': condition(
    'baseline-rag',
    'Baseline RAG',
    'method',
    'all sources, no decomposition, no uncertainty, concatenated evidence, normalised-mode candidate (unvalidated)',
    BASELINE,
  ),
  'rag-verify-repair': condition(
    'rag-verify-repair',
    'RAG + Verify/Repair',
    'method',
    'Baseline RAG evidence; candidates validated, earliest passing selected, ≤ 2 repairs',
    BASELINE,
    { validation: { verify: true, repairRounds: DEFAULT_CONFIG.validation.repairRounds } },
  ),
  opencoder: condition(
    'opencoder',
    'OpenCoder',
    'method',
    'decomposition, uncertainty-aware fusion with API refinement, guided generation, verified selection, repair',
  ),
  'opencoder-no-refine': condition('opencoder-no-refine', 'OpenCoder w/o API refinement', 'method', 'OpenCoder with target-aware API refinement off', {
    fusion: { refineApi: false },
  }),
};

/** RQ2: components added one at a time, from Baseline RAG to OpenCoder. */
const LADDER_STEPS: { id: string; label: string; adds: string; layer: Overrides }[] = [
  { id: 'ladder-0-baseline', label: 'Baseline RAG', adds: 'plain RAG', layer: {} },
  {
    id: 'ladder-1-decomposition',
    label: '+ decomposition',
    adds: 'requirement decomposed into steps with source intents',
    layer: { retrieval: { decompose: true } },
  },
  {
    id: 'ladder-2-uncertainty-filtering',
    label: '+ uncertainty filtering',
    adds: 'evidence scored γ = r·w·(1 − α·u), top 70 % kept, fused, API refinement',
    layer: { fusion: { mode: 'fuse', useUncertainty: true, refineApi: true } },
  },
  {
    id: 'ladder-3-guided-generation',
    label: '+ uncertainty-guided generation',
    adds: 'prompt carries the uncertainty trace',
    layer: { generation: { uncertaintyGuided: true } },
  },
  {
    id: 'ladder-4-verified-selection',
    label: '+ verified selection',
    adds: 'candidates validated, earliest passing selected',
    layer: { validation: { verify: true } },
  },
  {
    id: 'ladder-5-repair',
    label: '+ repair (OpenCoder)',
    adds: '≤ 2 validation-guided repair rounds',
    layer: { validation: { repairRounds: DEFAULT_CONFIG.validation.repairRounds } },
  },
];

export const LADDER: Condition[] = LADDER_STEPS.map((s, i) =>
  condition(s.id, s.label, 'ladder', s.adds, BASELINE, ...LADDER_STEPS.slice(0, i + 1).map((x) => x.layer)),
);

const LETTER: Record<Source, string> = { api: 'A', context: 'X', similar: 'S' };

/** `A1X0S1`: which evidence sources a factorial cell has on. */
export function cellId(sources: Record<Source, boolean>): string {
  return SOURCES.map((s) => `${LETTER[s]}${sources[s] ? 1 : 0}`).join('');
}

export function cellSources(id: string): Record<Source, boolean> | null {
  const m = /^A([01])X([01])S([01])$/.exec(id);
  return m ? { api: m[1] === '1', context: m[2] === '1', similar: m[3] === '1' } : null;
}

/** The eight cells of the 2³ factorial over API / context / similar-code evidence, on top of a base method (default OpenCoder). */
export function factorialConditions(base: Condition = METHODS.opencoder!): Condition[] {
  const out: Condition[] = [];
  for (let i = 7; i >= 0; i--) {
    const sources = { api: (i & 4) !== 0, context: (i & 2) !== 0, similar: (i & 1) !== 0 };
    const on = SOURCES.filter((s) => sources[s]);
    out.push({
      id: cellId(sources),
      label: on.length ? on.map((s) => ({ api: 'API', context: 'Context', similar: 'Similar' })[s]).join(' + ') : 'No retrieval',
      family: 'factorial',
      description: `${base.label} with ${on.length ? on.join(', ') : 'no'} evidence`,
      config: makeConfig({ retrieval: { sources } }, base.config),
    });
  }
  return out;
}

export const METHOD_SETS = {
  /** The end-to-end comparison of RQ1/RQ3. */
  compare: ['baseline-rag', 'rag-verify-repair', 'opencoder'],
} as const;

/** Resolves method ids (`opencoder`, `ladder`, `factorial`, a ladder or cell id) to conditions; unknown ids throw naming the known ones. */
export function resolveConditions(ids: string[]): Condition[] {
  const out: Condition[] = [];
  const add = (c: Condition) => {
    if (!out.some((x) => x.id === c.id)) out.push(c);
  };
  for (const raw of ids) {
    const id = raw.trim();
    if (!id) continue;
    if (id === 'compare') METHOD_SETS.compare.forEach((m) => add(METHODS[m]!));
    else if (id === 'ladder') LADDER.forEach(add);
    else if (id === 'factorial') factorialConditions().forEach(add);
    else if (METHODS[id]) add(METHODS[id]);
    else if (LADDER.find((c) => c.id === id)) add(LADDER.find((c) => c.id === id)!);
    else if (cellSources(id)) add(factorialConditions().find((c) => c.id === id)!);
    else {
      throw new Error(
        `unknown method ${JSON.stringify(id)}; known: ${[...Object.keys(METHODS), 'compare', 'ladder', 'factorial', ...LADDER.map((c) => c.id), 'A1X1S1 … A0X0S0'].join(', ')}`,
      );
    }
  }
  if (!out.length) throw new Error('no methods given');
  return out;
}

/** Sampling protocols by name: the paper's two (RQ1–RQ2 and RQ3–RQ4) and the benchmarks' own n = 10. */
export const GENERATION_PRESETS: Record<string, { candidates: number; temperature: number; what: string }> = {
  'paper-rq12': { candidates: 3, temperature: 0.2, what: "the paper's RQ1–RQ2 protocol: 3 candidates at temperature 0.2" },
  'paper-rq34': { candidates: 5, temperature: 0.7, what: "the paper's RQ3–RQ4 protocol: 5 candidates at temperature 0.7" },
  'bench-n10': { candidates: 10, temperature: 0.8, what: 'the RepoExec / CoderEval sampling: n = 10 at temperature 0.8, for Pass@1/5/10' },
};

/**
 * The conditions with a generation protocol applied (a preset, then explicit candidates / temperature);
 * every condition gets the same, so budgets stay matched. Throws a RangeError naming a bad value.
 */
export function withGeneration(conditions: Condition[], g: { preset?: string; candidates?: number; temperature?: number }): Condition[] {
  const preset = g.preset === undefined ? undefined : GENERATION_PRESETS[g.preset];
  if (g.preset !== undefined && !preset) throw new RangeError(`unknown generation preset ${g.preset} (one of ${Object.keys(GENERATION_PRESETS).join(', ')})`);
  const candidates = g.candidates ?? preset?.candidates;
  const temperature = g.temperature ?? preset?.temperature;
  if (candidates !== undefined && (!Number.isInteger(candidates) || candidates < 1 || candidates > 50))
    throw new RangeError(`candidates must be an integer from 1 to 50 (got ${candidates})`);
  if (temperature !== undefined && (!Number.isFinite(temperature) || temperature < 0 || temperature > 2))
    throw new RangeError(`temperature must be from 0 to 2 (got ${temperature})`);
  if (candidates === undefined && temperature === undefined) return conditions;
  const generation = { ...(candidates === undefined ? {} : { candidates }), ...(temperature === undefined ? {} : { temperature }) };
  return conditions.map((c) => ({ ...c, config: makeConfig({ generation }, c.config) }));
}

/**
 * The conditions with the output rules chosen: what an unvalidated method returns (`mode`, the paper's reference;
 * `first`, candidate 1) and what a task whose repairs all fail returns (`last`, Eq. 10; `most-tests`).
 */
export function withOutputRules(conditions: Condition[], r: { unverifiedOutput?: string; afterFailedRepairs?: string }): Condition[] {
  if (r.unverifiedOutput !== undefined && r.unverifiedOutput !== 'mode' && r.unverifiedOutput !== 'first')
    throw new RangeError(`unverified-output must be mode or first (got ${r.unverifiedOutput})`);
  if (r.afterFailedRepairs !== undefined && r.afterFailedRepairs !== 'last' && r.afterFailedRepairs !== 'most-tests')
    throw new RangeError(`after-failed-repairs must be last or most-tests (got ${r.afterFailedRepairs})`);
  if (r.unverifiedOutput === undefined && r.afterFailedRepairs === undefined) return conditions;
  const validation: { unverifiedOutput?: 'mode' | 'first'; afterFailedRepairs?: 'last' | 'most-tests' } = {
    ...(r.unverifiedOutput ? { unverifiedOutput: r.unverifiedOutput } : {}),
    ...(r.afterFailedRepairs ? { afterFailedRepairs: r.afterFailedRepairs } : {}),
  };
  return conditions.map((c) => ({ ...c, config: makeConfig({ validation }, c.config) }));
}
