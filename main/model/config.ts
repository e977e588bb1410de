// Every constant of the method in one place. Compared methods are this config with switches flipped.

export type Source = 'api' | 'context' | 'similar';
export const SOURCES: readonly Source[] = ['api', 'context', 'similar'];

export interface PipelineConfig {
  retrieval: {
    /** Items each source's retriever returns per query (the paper: 8). */
    perSourceTopK: number;
    /** Which sources are switched on (the 2³ factorial flips these). */
    sources: Record<Source, boolean>;
    /** Decompose the requirement into steps (otherwise one step: the whole requirement). */
    decompose: boolean;
    minSteps: number;
    maxSteps: number;
    /** Candidates the lexical (FTS5 BM25) generator adds per source before cosine rescoring. */
    lexicalCandidates: number;
    /** Leave test files out of every source: a task's own tests would leak its expected outputs. */
    excludeTests: boolean;
    /**
     * The leakage audit (retrieve/leak-audit.ts): `drop` the suspects, `flag` them and keep them, or `off`. Absent in
     * configs frozen before it existed: `off`, so a resumed run retrieves as it did.
     */
    leakPolicy?: 'drop' | 'flag' | 'off';
  };
  fusion: {
    /**
     * `fuse`: score, keep the top fraction per source and step, dedup, fused top K (OpenCoder).
     * `concatenate`: plain RAG — each source's items in its own ranking, taken in turn up to top K and shown
     * source by source, with no filtering (Baseline RAG). Both show the generator the same number of items.
     */
    mode: 'fuse' | 'concatenate';
    /** γ = r · w · max(0, 1 − α·u). */
    alpha: number;
    /** Fraction of each source's items kept per step (rounding: ceil, at least 1 when any). */
    keepFraction: number;
    /** Items in the fused list. */
    topK: number;
    /** Optional cap of fused items per source (null: no cap). */
    perSourceCap: number | null;
    /** Use uncertainty in scoring and filtering (Baseline RAG: false). */
    useUncertainty: boolean;
    /** Target-aware API refinement ("OpenCoder without API refinement": false). */
    refineApi: boolean;
  };
  generation: {
    candidates: number;
    temperature: number;
    maxTokens: number;
    /** Prompt with the uncertainty trace and per-item uncertainty (Baseline RAG: false). */
    uncertaintyGuided: boolean;
    /** Weights of token entropy, self-consistency and semantic variance in generation uncertainty. */
    uncertaintyWeights: { entropy: number; consistency: number; variance: number };
  };
  validation: {
    /** Validate candidates and select the earliest passing (Baseline RAG: no validation, see unverifiedOutput). */
    verify: boolean;
    repairRounds: number;
    /**
     * The output without validation: `mode`, the earliest candidate of the largest normalised group (the paper's
     * reference implementation), or `first`, candidate 1. Absent in configs frozen before it existed: `first`.
     */
    unverifiedOutput?: 'mode' | 'first';
    /**
     * The output when every repair fails: `last`, the last repair (the paper's Eq. 10), or `most-tests`, whichever of
     * the chosen candidate and its repairs passed the most tests. Absent in configs frozen before it existed: `most-tests`.
     */
    afterFailedRepairs?: 'last' | 'most-tests';
    /** Time limit per candidate run, scaled from the reference's run time when known. */
    timeoutFloorMs: number;
    timeoutCeilingMs: number;
    timeoutFactor: number;
  };
}

export const DEFAULT_CONFIG: PipelineConfig = {
  retrieval: {
    perSourceTopK: 8,
    sources: { api: true, context: true, similar: true },
    decompose: true,
    minSteps: 2,
    maxSteps: 6,
    lexicalCandidates: 32,
    excludeTests: true,
    leakPolicy: 'drop',
  },
  fusion: { mode: 'fuse', alpha: 0.5, keepFraction: 0.7, topK: 10, perSourceCap: null, useUncertainty: true, refineApi: true },
  generation: {
    candidates: 5,
    temperature: 0.7,
    maxTokens: 1024,
    uncertaintyGuided: true,
    uncertaintyWeights: { entropy: 0.4, consistency: 0.4, variance: 0.2 },
  },
  validation: {
    verify: true,
    repairRounds: 2,
    unverifiedOutput: 'mode',
    afterFailedRepairs: 'last',
    timeoutFloorMs: 10_000,
    timeoutCeilingMs: 120_000,
    timeoutFactor: 20,
  },
};

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** DEFAULT_CONFIG with overrides applied (nested objects merged, not replaced). */
export function makeConfig(overrides: DeepPartial<PipelineConfig> = {}, base: PipelineConfig = DEFAULT_CONFIG): PipelineConfig {
  const merge = (a: unknown, b: unknown): unknown => {
    if (b === undefined) return a;
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a)) {
      const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
      for (const [k, v] of Object.entries(b as Record<string, unknown>)) out[k] = merge(out[k], v);
      return out;
    }
    return b;
  };
  return merge(base, overrides) as PipelineConfig;
}

/** The paper's models: what a hosted backend uses when no model is named. */
export const DEFAULT_MODELS = { openai: 'gpt-4o-mini', gemini: 'gemini-2.5-flash' } as const;
