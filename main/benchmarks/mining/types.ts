// Mining's vocabulary: the options of one mining run, what it decides for each candidate function, its progress
// events and its summary. Plain data: the op (host/ops/mine.ts), the CLI, the app and MINE.md all read these.

import type { VerdictIsolation } from '../../model/verdict.ts';

/** Why a candidate function is not a task, in the order the checks run (MINE.md lists them in this order). */
export const DROP_REASONS = [
  'no-docstring',
  'short-docstring',
  'trivial',
  'duplicate',
  'unparsable',
  'untested',
  'reference-fails',
  'flaky',
  'stub-passes',
  'thin',
  'leaks',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** How MINE.md and the app name each reason. */
export const DROP_LABELS: Record<DropReason, string> = {
  'no-docstring': 'no docstring',
  'short-docstring': 'docstring shorter than --min-doc-words',
  trivial: 'trivial body',
  duplicate: 'duplicate (its name is defined twice in its file, or its code is another task’s)',
  unparsable: 'its header cannot be cut out as a signature',
  untested: 'no test calls it',
  'reference-fails': 'reference fails its tests',
  flaky: 'flaky (the reference’s two runs disagree)',
  'stub-passes': 'the NotImplementedError stub passes its tests',
  thin: 'thin (its tests kill no mutant, or only by crashes and hangs)',
  leaks: 'leaks (the leak audit found suspects in its retrieved evidence)',
};

export interface MineOptions {
  /** The repository folder (read, never written). */
  folder: string;
  /** Where tasks.jsonl, MINE.md, the frozen repository copy and the resume state go. */
  out: string;
  /** The suite's command (unittest or pytest, as a manifest's test_command); found from the repository when absent. */
  testCommand?: string;
  /** The interpreter the tests run under (a path or a virtualenv folder). */
  python?: string;
  /** Globs (repository-relative) the candidates' files must match; all source files when empty. */
  include?: string[];
  /** Check at most this many candidates (picked with the seed); all when absent. */
  limit?: number;
  /** A docstring needs at least this many words. Default 3. */
  minDocWords?: number;
  /** Seeds the choice of candidates under `limit` and of each reference's mutants. Default 0. */
  seed?: number;
  /** Mutants made per task (at most; at least five where the code has five places to change). Default 8. */
  mutants?: number;
  /** Tests frozen per task, at most (the ones calling the target directly first). Default 100. */
  maxTests?: number;
  /** Seconds each test may run while the suite is traced. Default 60. */
  perTestTimeoutS?: number;
  /** Seconds the whole traced suite may run. Default 600. */
  suiteTimeoutS?: number;
}

/** One function the scan found, with what the checks need of it. */
export interface MineCandidate {
  /** The task id it would get: `<module>.<qualname>`. */
  id: string;
  file: string;
  qualname: string;
  line: number;
  signature: string | null;
  reference: string;
  doc: string | null;
  trivial: string | null;
  /** How often its qualified name is defined in its file (2 or more: it cannot be named as a target). */
  sameName: number;
  uses: { inFile: [string, string][]; imported: [string, string, string | null, number][]; builtin: string[]; unknown: string[]; classMembers: string[] };
  /** The repository functions and classes it uses, `module:qualname` (its API truth). */
  apis: string[];
  /** Its context level (CoderEval's: self_contained … project_runnable) and the names it takes from elsewhere. */
  context: { level: string; crossFile: string[]; inFile: string[]; stdlib: string[]; thirdParty: string[] };
  className: string | null;
  statements: number;
  lines: number;
}

/** What the traced suite run found for one candidate. */
export interface TestLink {
  id: string;
  depth: number;
}

/** The checks of one kept task, as its provenance records them. */
export interface TaskChecks {
  reference: { runs: [string, string]; isolation: VerdictIsolation; isolationReason: string; ms: number };
  stub: { status: string };
  mutants: {
    made: number;
    killed: number;
    score: number;
    timeouts: number;
    byKind: Record<string, [number, number]>;
    survivors: { kind: string; line: number | null }[];
  };
  leak: { suspects: number };
}

/** What mining decided for one candidate: a task (with its record) or a drop (with its reason). */
export type Decision =
  | { id: string; file: string; qualname: string; line: number; kept: true; record: Record<string, unknown> }
  | { id: string; file: string; qualname: string; line: number; kept: false; reason: DropReason; detail: string };

export type MinePhase = 'scan' | 'trace' | 'checks' | 'leaks' | 'freeze';

export type MineEvent =
  | { type: 'phase'; phase: MinePhase; text: string }
  | { type: 'progress'; phase: MinePhase; done: number; total: number; current?: string }
  | { type: 'decision'; decision: Decision; done: number; total: number };

/** The summary `mine --json` prints last and the app shows. */
export interface MineSummary {
  candidates: number;
  tasks: number;
  dropped: Partial<Record<DropReason, number>>;
  isolated: number;
  mutationScore: { median: number | null; mean: number | null };
  out: string;
  folder: string;
  /** The frozen copy the tasks run against (DIR/repos/<name>). */
  frozen: string;
  testCommand: string;
  /** Candidates decided in an earlier, stopped run and taken from its state instead of checked again. */
  resumed: number;
  /** Files the scan could not parse, with the line. */
  unparsed: { file: string; error: string }[];
  /** The suite's run: tests run, passed, and the ms it took traced. */
  suite: { tests: number; passed: number; ms: number; importCalls: string[]; loadErrors: string[] };
  /** Tasks that passed the static checks and have tests but were not checked (over --limit). */
  unchecked: number;
  /** Whether the leak audit ran (the CLI's --no-leak-audit turns it off). */
  leakAudit: boolean;
  status: 'completed';
  ms: number;
}
