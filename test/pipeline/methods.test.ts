import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, makeConfig } from '../../main/model/config.ts';
import { configHash } from '../../main/util/config-hash.ts';
import { cellId, cellSources, factorialConditions, LADDER, METHODS, resolveConditions, withGeneration, withOutputRules } from '../../main/pipeline/methods.ts';

/** Leaf paths whose values differ between two configs. */
function diff(a: unknown, b: unknown, prefix = ''): string[] {
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k));
  }
  return a === b ? [] : [prefix];
}

describe('methods as switch settings of one config', () => {
  it('OpenCoder is the default config; Baseline RAG switches off every component', () => {
    expect(configHash(METHODS.opencoder!.config)).toBe(configHash(DEFAULT_CONFIG));
    expect(diff(METHODS['baseline-rag']!.config, DEFAULT_CONFIG).sort()).toEqual(
      [
        'fusion.mode',
        'fusion.refineApi',
        'fusion.useUncertainty',
        'generation.uncertaintyGuided',
        'retrieval.decompose',
        'validation.repairRounds',
        'validation.verify',
      ].sort(),
    );
  });

  it('RAG + Verify/Repair is Baseline RAG with validation and two repairs, nothing else', () => {
    expect(diff(METHODS['rag-verify-repair']!.config, METHODS['baseline-rag']!.config).sort()).toEqual(['validation.repairRounds', 'validation.verify']);
    expect(METHODS['rag-verify-repair']!.config.validation.repairRounds).toBe(2);
  });

  it('matches budgets: every method shows the same number of items from the same pool, five candidates, the same time limits', () => {
    for (const m of Object.values(METHODS)) {
      expect(m.config.retrieval.perSourceTopK).toBe(8);
      expect(m.config.fusion.topK).toBe(10);
      expect(m.config.generation.candidates).toBe(5);
      expect(m.config.validation.timeoutCeilingMs).toBe(DEFAULT_CONFIG.validation.timeoutCeilingMs);
    }
  });

  it('the ladder adds one component per step, from Baseline RAG to OpenCoder', () => {
    expect(configHash(LADDER[0]!.config)).toBe(configHash(METHODS['baseline-rag']!.config));
    expect(configHash(LADDER.at(-1)!.config)).toBe(configHash(METHODS.opencoder!.config));
    const steps = LADDER.slice(1).map((c, i) => diff(c.config, LADDER[i]!.config).sort());
    expect(steps).toEqual([
      ['retrieval.decompose'],
      ['fusion.mode', 'fusion.refineApi', 'fusion.useUncertainty'],
      ['generation.uncertaintyGuided'],
      ['validation.verify'],
      ['validation.repairRounds'],
    ]);
  });

  it('the factorial has eight distinct cells that differ from the base only in sources', () => {
    const cells = factorialConditions();
    expect(new Set(cells.map((c) => c.id)).size).toBe(8);
    for (const c of cells) {
      expect(diff(c.config, DEFAULT_CONFIG).every((p) => p.startsWith('retrieval.sources.'))).toBe(true);
      expect(cellId(c.config.retrieval.sources)).toBe(c.id);
      expect(cellSources(c.id)).toEqual(c.config.retrieval.sources);
    }
    expect(cells.find((c) => c.id === 'A0X0S0')!.label).toBe('No retrieval');
    expect(cellSources('A2X0S0')).toBeNull();
    // on another base method the cells carry that method's switches
    const onBaseline = factorialConditions(METHODS['baseline-rag']);
    expect(onBaseline.every((c) => c.config.fusion.mode === 'concatenate')).toBe(true);
  });

  it('resolves names and sets, and names the known ones for a typo', () => {
    expect(resolveConditions(['compare']).map((c) => c.id)).toEqual(['baseline-rag', 'rag-verify-repair', 'opencoder']);
    expect(resolveConditions(['opencoder', 'A1X0S0', 'opencoder']).map((c) => c.id)).toEqual(['opencoder', 'A1X0S0']);
    expect(resolveConditions(['ladder'])).toHaveLength(6);
    expect(() => resolveConditions(['opencodr'])).toThrow(/unknown method "opencodr"; known: baseline-rag, rag-verify-repair, opencoder/);
    expect(() => resolveConditions([' '])).toThrow(/no methods/);
  });

  it('makeConfig layers on a given base', () => {
    const c = makeConfig({ fusion: { topK: 3 } }, METHODS['baseline-rag']!.config);
    expect(c.fusion.mode).toBe('concatenate');
    expect(c.fusion.topK).toBe(3);
  });
});

describe('generation protocols', () => {
  it('a preset, then explicit values, set candidates and temperature in every condition and nothing else', () => {
    const base = [METHODS['baseline-rag']!, METHODS.opencoder!];
    const rq12 = withGeneration(base, { preset: 'paper-rq12' });
    expect(rq12.map((c) => [c.config.generation.candidates, c.config.generation.temperature])).toEqual([
      [3, 0.2],
      [3, 0.2],
    ]);
    expect(diff(rq12[1]!.config, METHODS.opencoder!.config).sort()).toEqual(['generation.candidates', 'generation.temperature']);
    const mixed = withGeneration(base, { preset: 'paper-rq34', temperature: 0.1 });
    expect(mixed[0]!.config.generation).toMatchObject({ candidates: 5, temperature: 0.1 });
    expect(withGeneration(base, {})).toBe(base);
    expect(() => withGeneration(base, { candidates: 0 })).toThrow(/candidates must be an integer from 1 to 50/);
    // The default sampling temperature is the paper's RQ3–RQ4 value.
    expect(DEFAULT_CONFIG.generation.temperature).toBe(0.7);
  });
});

describe('output rules', () => {
  it('set what an unvalidated method and a task with failed repairs return, in every condition', () => {
    const base = [METHODS['baseline-rag']!, METHODS.opencoder!];
    expect(base.map((c) => [c.config.validation.unverifiedOutput, c.config.validation.afterFailedRepairs])).toEqual([
      ['mode', 'last'],
      ['mode', 'last'],
    ]);
    const legacy = withOutputRules(base, { unverifiedOutput: 'first', afterFailedRepairs: 'most-tests' });
    expect(legacy.map((c) => [c.config.validation.unverifiedOutput, c.config.validation.afterFailedRepairs])).toEqual([
      ['first', 'most-tests'],
      ['first', 'most-tests'],
    ]);
    expect(diff(legacy[1]!.config, METHODS.opencoder!.config).sort()).toEqual(['validation.afterFailedRepairs', 'validation.unverifiedOutput']);
    expect(() => withOutputRules(base, { unverifiedOutput: 'best' })).toThrow(/unverified-output must be mode or first \(got best\)/);
  });
});
