// A mined task as the manifest holds it: the importers' format (model/task.ts), with mining's provenance in `source`.

import type { TestCommand } from '../../validate/command.ts';
import type { TaskRecord } from '../../model/task.ts';
import type { MineCandidate } from './types.ts';

/** A word as a POSIX shell reads it back (quoted only when it must be). */
function shellQuote(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that runs just the given tests, with the suite command's environment and interpreter. Unittest ids
 * loaded by name need the discovery folder on the path when discovery did not start at the root.
 */
export function taskTestCommand(cmd: TestCommand, ids: string[], top: string | null): string {
  const env = { ...cmd.env };
  if (cmd.mode === 'unittest' && top && !cmd.pythonPath.includes(top)) env.PYTHONPATH = [...cmd.pythonPath, top].join(':');
  const prefix = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)} `);
  const python = cmd.interpreter ?? 'python3';
  const runner = cmd.mode === 'unittest' ? `${python} -m unittest` : `${python} -m pytest`;
  return `${prefix.join('')}${runner} ${ids.map(shellQuote).join(' ')}`;
}

export interface RecordFacts {
  tests: { id: string; depth: number }[];
  /** Passing tests that call it, before the cap. */
  calling: number;
  test_command: string;
  project: string;
  importTime: boolean;
  python: string | undefined;
  seed: number;
}

/** The manifest line of a candidate (its checks are added once they ran). */
export function taskRecordOf(c: MineCandidate, f: RecordFacts): TaskRecord {
  const direct = f.tests.filter((t) => t.depth === 1).length;
  return {
    id: c.id,
    repo: '.',
    file: c.file,
    qualname: c.qualname,
    requirement: c.doc ?? '',
    signature: c.signature!,
    reference: c.reference,
    test_command: f.test_command,
    tests: f.tests.map((t) => t.id),
    ...(f.python ? { python: f.python } : {}),
    ground_truth_apis: c.apis,
    source: {
      benchmark: 'mined',
      project: f.project,
      line: c.line,
      requirement_source: 'docstring',
      tests: { direct, frozen: f.tests.length, calling: f.calling, depths: [...new Set(f.tests.map((t) => t.depth))].sort((a, b) => a - b) },
      importTimeCall: f.importTime,
      context: c.context,
      size: { lines: c.lines, statements: c.statements },
      seed: f.seed,
    },
  };
}
