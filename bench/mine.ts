// Mining benchmarks (BENCH_ONLY=mine): the whole of `opencoder mine` on python-string-utils (the repository RepoExec
// curated 42 tasks from), and the traced suite run over the same suite run with no tracer (the tracer's cost), the
// two runs interleaved in the same sandbox so machine noise hits them alike.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mineRepository } from '../main/benchmarks/mining/mine.ts';
import { repositoryFiles } from '../main/benchmarks/mining/scan.ts';
import { findTestCommand, parseSuiteCommand, traceSuite } from '../main/benchmarks/mining/trace.ts';
import { createValidator } from '../main/validate/validator.ts';

type Record = (what: string, value: string, baseline: string, ratio: string, target?: string) => void;
type Put = (name: string, value: number) => void;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function benchMine(record: Record, put: Put): Promise<void> {
  const bench = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(ROOT, '..', 'shared', 'bench');
  const repo = path.join(bench, 'mining', 'python-string-utils');
  if (!fs.existsSync(repo)) {
    console.log(`mine: skipped, ${repo} not found (set OPENCODER_BENCH_DIR)`);
    return;
  }
  const validator = await createValidator();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-mine-'));
  try {
    // The tracer's cost: the same suite, same sandbox, with and without it, alternated.
    const cmd = parseSuiteCommand(findTestCommand(repo, validator.sandbox.tools.python));
    const files = repositoryFiles(repo, 'tests');
    const run = async (trace: boolean) => {
      const t = await traceSuite(validator, repo, cmd, {
        python: null,
        sources: files.sources,
        testFiles: files.tests,
        perTestTimeoutS: 60,
        suiteTimeoutS: 300,
        trace,
      });
      if (t.tests.length === 0 || t.loadError) throw new Error(`the suite did not run: ${t.loadError ?? t.stderr}`);
      return t.durationMs;
    };
    await run(false); // warm the file cache
    const plain: number[] = [];
    const traced: number[] = [];
    for (let i = 0; i < 5; i++) {
      plain.push(await run(false));
      traced.push(await run(true));
    }
    const ratio = median(traced) / median(plain);
    record(
      'mine: traced suite run (python-string-utils, 407 tests)',
      `${median(traced).toFixed(0)} ms`,
      `${median(plain).toFixed(0)} ms untraced`,
      ratio.toFixed(2),
      '≤ 2',
    );
    put('mine.traceOverSuite', ratio);
    put('mine.tracedSuiteMs', median(traced));
    put('mine.plainSuiteMs', median(plain));

    const t0 = performance.now();
    const summary = await mineRepository({ folder: repo, out }, { validator });
    const ms = performance.now() - t0;
    record(
      `mine: whole mining of python-string-utils (${summary.candidates} candidates → ${summary.tasks} tasks, no leak audit)`,
      `${(ms / 1000).toFixed(1)} s`,
      '—',
      '—',
    );
    put('mine.pythonStringUtilsMs', ms);
    put('mine.pythonStringUtilsTasks', summary.tasks);
  } finally {
    validator.close();
    fs.rmSync(out, { recursive: true, force: true });
  }
}
