// Benchmark imports, one way in for `opencoder import <kind>` and the app's import.benchmark: which options each
// importer takes, and one call that runs the importer of a kind (main/benchmarks does the work) and returns its
// result tagged with the kind.

import { importCoderEval, type CoderEvalImportResult } from '../../benchmarks/codereval.ts';
import { importExecRepoBench, type ExecRepoBenchImportResult } from '../../benchmarks/execrepobench.ts';
import type { ImportWarning } from '../../benchmarks/import-out.ts';
import { importRepoExec, type RepoExecImportResult } from '../../benchmarks/repoexec/import.ts';

export type BenchmarkKind = 'repoexec' | 'codereval' | 'execrepobench';

export const BENCHMARK_KINDS: readonly BenchmarkKind[] = ['repoexec', 'codereval', 'execrepobench'];

/** The options only some importers take, by the importer that takes them. */
const OWN_OPTIONS: Record<BenchmarkKind, readonly string[]> = { repoexec: ['subset'], codereval: ['records', 'templates', 'docstrings'], execrepobench: [] };

/** Of the options given (those not undefined), the ones the kind's importer does not take. */
export function optionsNotFor(kind: BenchmarkKind, given: Record<string, unknown>): string[] {
  return ['subset', 'records', 'templates', 'docstrings'].filter((k) => given[k] !== undefined && !OWN_OPTIONS[kind].includes(k));
}

/** One benchmark import: its input (a folder, or ExecRepoBench's records file), its output folder, and its options. */
export interface BenchmarkImportRequest {
  kind: BenchmarkKind;
  input: string;
  out: string;
  subset?: string;
  records?: string;
  templates?: string;
  docstrings?: 'raw' | 'human';
  onWarning?: (w: ImportWarning) => void;
}

export type BenchmarkImport =
  | { kind: 'repoexec'; result: RepoExecImportResult }
  | { kind: 'codereval'; result: CoderEvalImportResult }
  | { kind: 'execrepobench'; result: ExecRepoBenchImportResult };

/** Runs the importer of the request's kind. */
export async function importBenchmark(req: BenchmarkImportRequest): Promise<BenchmarkImport> {
  const { input, out: outDir, onWarning } = req;
  switch (req.kind) {
    case 'repoexec':
      return { kind: 'repoexec', result: await importRepoExec({ benchDir: input, outDir, subset: req.subset, onWarning }) };
    case 'codereval': {
      const { records, templates, docstrings } = req;
      return { kind: 'codereval', result: await importCoderEval({ benchDir: input, outDir, records, templates, docstrings: docstrings ?? 'raw', onWarning }) };
    }
    case 'execrepobench':
      return { kind: 'execrepobench', result: await importExecRepoBench({ recordsFile: input, outDir, onWarning }) };
  }
}
