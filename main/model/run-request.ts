// What a run was asked for, as every run stores it: the manifest and its task selection, the conditions (methods
// or the factorial's base, generation and output rules), the backend record, and how it is validated. The CLI's
// flags and the app's request become this one record (host/ops/run.ts planRun), a run keeps it as it is, and a
// resume reads it back, as Inspect's eval-retry reads its log. Where a run executes (this process or a queue, how
// many validator workers) is not part of it: the same run asked for twice stores the same bytes.

import { z } from 'zod';
import { BackendSpecSchema, storedBackendSpec, defaultDecompose, type Decompose } from './backend-spec.ts';

export const RUN_KINDS = ['run', 'ablate', 'ladder'] as const;
export type RunKind = (typeof RUN_KINDS)[number];
export const SANDBOX_MODES = ['auto', 'strong', 'weak'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
export const UNVERIFIED_OUTPUTS = ['mode', 'first'] as const;
export const AFTER_FAILED_REPAIRS = ['last', 'most-tests'] as const;

export const RunRequestSchema = z
  .object({
    kind: z.enum(RUN_KINDS),
    /** The manifest file, absolute. */
    manifest: z.string().min(1),
    /** The tasks asked for by id (in the manifest's order when run), or all; then at most `limit` of them. */
    taskIds: z.array(z.string().min(1)).min(1).optional(),
    limit: z.number().int().min(1).optional(),
    /** `run`: the method ids, expanded (compare → its methods); `ablate`: the factorial's base method; `ladder`: none. */
    methods: z.array(z.string().min(1)).min(1).optional(),
    preset: z.string().min(1).optional(),
    candidates: z.number().int().min(1).optional(),
    temperature: z.number().min(0).optional(),
    unverifiedOutput: z.enum(UNVERIFIED_OUTPUTS).optional(),
    afterFailedRepairs: z.enum(AFTER_FAILED_REPAIRS).optional(),
    backend: BackendSpecSchema,
    decompose: z.enum(['llm', 'fallback']),
    sandbox: z.enum(SANDBOX_MODES),
    /** (task, condition) pairs at once. */
    parallel: z.number().int().min(1),
    /** The price table file cost figures read (absent: the user's table, or the built-in one). */
    prices: z.string().min(1).optional(),
    /** The most the estimate may say before the run is refused, in US dollars. */
    maxUsd: z.number().min(0).optional(),
  })
  .strict();
export type RunRequest = z.infer<typeof RunRequestSchema>;

/** A request checked against the schema, its keys in the schema's order (two equal requests store the same bytes). */
export function parseRunRequest(value: unknown): RunRequest {
  return RunRequestSchema.parse(value);
}

/**
 * The request of a stored run. A run stored before requests were recorded kept `{parallel, sandbox, source}` as its
 * options and the backend in the old record: what it did not record (its methods, its generation flags) is already in
 * its frozen conditions, which a resume runs as they are.
 */
export function storedRunRequest(run: { kind: string; manifestFile: string; taskIds: string[]; backend: unknown; options: unknown }): RunRequest {
  const o = (run.options ?? {}) as Record<string, unknown>;
  if ('backend' in o && 'decompose' in o) return parseRunRequest(o);
  const { spec, decompose } = storedBackendSpec(run.backend);
  return parseRunRequest({
    kind: run.kind,
    manifest: run.manifestFile,
    taskIds: run.taskIds.length ? run.taskIds : undefined,
    backend: spec,
    decompose: decompose ?? defaultDecompose(spec.kind),
    sandbox: typeof o.sandbox === 'string' ? o.sandbox : 'auto',
    parallel: typeof o.parallel === 'number' ? o.parallel : 2,
    ...legacyPrices(run.backend),
  });
}

/** The price table file an old record kept among its options. */
function legacyPrices(backend: unknown): { prices?: string } {
  const prices = (backend as { extra?: { prices?: unknown } } | null)?.extra?.prices;
  return typeof prices === 'string' ? { prices } : {};
}

export type { Decompose };
