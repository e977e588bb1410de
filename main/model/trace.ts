// What retrieval produces: evidence items with their scores, signals and fate, the decomposition steps, and the
// trace of a task. Plain data: main/retrieve makes it, generation reads it, the pipeline stores a summary of it.

import type { Source } from './config.ts';

export type { Source };

/** Which candidate generator found an item. r is always the embedding cosine, whoever found it. */
export type Finder = 'vector' | 'lexical' | 'structure';

export interface UncertaintySignal {
  /** Short stable name, e.g. `margin`, `doc_missing`, `incompatible`, `redundant`. */
  name: string;
  /** The signal's value in [0, 1]; higher means less trustworthy. */
  value: number;
  /** Its weight in the item's u. */
  weight: number;
  /** One line: what was measured. */
  detail: string;
}

export interface Evidence {
  /** Stable key of the underlying item (`unit:12`, `chunk:3`, `api:40`): dedup across sources and steps. */
  key: string;
  source: Source;
  /** Step index (0-based) whose sub-query retrieved it. */
  step: number;
  rank: number;
  finders: Finder[];
  /** What the item is: qualified name / chunk title, file and lines. */
  title: string;
  /** Module and qualified name of the underlying item ('' qualname for chunks without an owner). */
  module: string;
  qualname: string;
  file: string;
  startLine: number;
  endLine: number;
  /** The text a prompt would show. */
  text: string;
  /** Relevance: cosine of the query and item embeddings. */
  r: number;
  /** Source-intent weight w_m(s) of the step. */
  w: number;
  /** Uncertainty in [0, 1] and the signals it is made of. */
  u: number;
  signals: UncertaintySignal[];
  /** Fused score γ = r · w · max(0, 1 − α·u). */
  gamma: number;
  kept: boolean;
  /** The stage that dropped it, when dropped: API refinement (its rules or the selector), the keep rule, dedup, top K, the cap. */
  droppedAt?: 'refinement' | 'selection' | 'keep' | 'dedup' | 'topk' | 'cap' | 'leak';
  /** Set when the leakage audit found the item suspect (dropped, or kept under the `flag` policy). */
  leak?: { against: string; kind: LeakSuspect['kind']; match: string };
  /** Kind of the underlying item (API entries: function, method, class, constant, attribute). */
  subkind?: string;
  /** API items: the selector's probability that the target needs this API (when the selector ran). */
  selectorP?: number;
  /** Why it was dropped (or `kept`), human readable: `below top 70 % of api in step 2`, `API refinement: the target itself`. */
  reason: string;
  /** Every (source, step) that found the same item, after dedup. */
  provenance: { source: Source; step: number; gamma: number }[];
}

/** An evidence item the leakage audit found suspect (retrieve/leak-audit.ts). */
export interface LeakSuspect {
  key: string;
  title: string;
  /** What it matched: `reference`, or `tests <file>` / `tests check program`. */
  against: string;
  /** A run of LEAK_RUN+ tokens shared with it, or a value its tests assert. */
  kind: 'token-run' | 'asserted-value';
  /** The shared tokens or the value (at most 300 characters). */
  match: string;
}

/** What the leakage audit did for one task's retrieval. */
export interface LeakAudit {
  policy: 'drop' | 'flag';
  /** Distinct items checked (kept after the masks, before fusion). */
  checked: number;
  suspects: LeakSuspect[];
  /** What it compared against: the reference (when known) and the test sources it found. */
  against: string[];
}

export interface Step {
  index: number;
  text: string;
  /** Source-intent weights, summing to 1. */
  weights: Record<Source, number>;
  /** Per-source sub-queries. */
  queries: Record<Source, string>;
}

export interface RetrievalTrace {
  taskId: string;
  steps: Step[];
  /** How the steps were made: `llm:<model>` or `fallback`. */
  decomposition: string;
  /** Every retrieved item, kept or not. */
  evidence: Evidence[];
  /** Mean u per source over its retrieved items (ū_A, ū_X, ū_S); null when the source returned nothing or was off. */
  sourceUncertainty: Record<Source, number | null>;
  /** The fused top-K list, best first. */
  fused: Evidence[];
  encoder: { id: string; name: string };
  /** Units masked because they are the target or contain its reference body. */
  masked: string[];
  /** The leakage audit (absent in traces stored before it existed, or when the policy is `off`). */
  leak?: LeakAudit;
  timingsMs: Record<string, number>;
}
