// The RepoExec importer's public shapes (options, result, warnings, dropped entries) and its error type,
// kept apart from the code so every part of the importer can name them without importing the entry
// module (import.ts re-exports them).

import type { Fail } from '../import-out.ts';
import type { RawRow } from './inputs.ts';
import { OpenCoderError } from '../../model/errors.ts';

/** The manifest's `source.benchmark` for these tasks. */
export const REPOEXEC_BENCHMARK = 'repoexec-inline';

export class RepoExecImportError extends OpenCoderError {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super('invalid-input', message);
  }
}

export type { ImportWarning, Warn } from '../import-out.ts';
import type { ImportWarning, Warn } from '../import-out.ts';

export interface DroppedEntry {
  reason: string;
  project: string;
  /** Module whose view showed it. */
  module: string;
  problemId: number;
  /** The dropped line, or the definition's name. */
  what: string;
}

export interface ProjectSummary {
  project: string;
  /** Repository folder, relative to the output folder (`repos/python-string-utils`). */
  repo: string;
  rows: number;
  /** Modules that have rows of their own. */
  rowModules: number;
  /** Modules written only because other modules' views import definitions from them. */
  attributedModules: number;
  /** .py files written, `__init__.py` files included. */
  files: number;
  functions: number;
  methods: number;
  classes: number;
  focalFunctions: number;
  tasks: number;
}

export interface RepoExecImportOptions {
  /** The staged folder (holds repoexec_inline.jsonl and data_with_test_case/). */
  benchDir: string;
  outDir: string;
  /** Name of a subset in repoexec_inline_subsets.json; all inline tasks when absent. */
  subset?: string;
  /** Called for every warning as it happens (the result lists them too). */
  onWarning?: (w: ImportWarning) => void;
}

export interface RepoExecImportResult {
  benchDir: string;
  outDir: string;
  manifestFile: string;
  reportFile: string;
  subset: string | null;
  counts: {
    projects: number;
    modules: number;
    files: number;
    functions: number;
    methods: number;
    classes: number;
    focalFunctions: number;
    rows: number;
    tasks: number;
    /** Task views written under views/ (one per task). */
    views: number;
    /** Of those, views that hold only the reference solution (the row's view did not repair). */
    viewsFromReference: number;
    stubsFilled: number;
  };
  projects: ProjectSummary[];
  /** Dropped garbage lines and definitions that could not be attributed, by reason. */
  dropped: Record<string, number>;
  droppedEntries: DroppedEntry[];
  warnings: ImportWarning[];
  warningCounts: Record<string, number>;
}

/** Builds the importer's error for the shared output-folder helpers of import-out.ts. */
export const failRepoExec: Fail = (message, file) => new RepoExecImportError(message, file);

/** How the parts of the importer report a warning (import.ts collects them). */

/** How building a project reports: warnings, and the lines and definitions it drops (by reason). */
export interface Recorder {
  warn: Warn;
  drop(reason: string, row: RawRow, what: string): void;
}
