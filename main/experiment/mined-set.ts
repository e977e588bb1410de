// What a run records of a mined task set (`opencoder mine`): read from the tasks' own provenance when the run is
// frozen, so reports name the set and the strength of its tests from the store alone.

import type { MinedSetProvenance } from '../model/report.ts';
import type { Task } from '../model/task.ts';
import { quantile } from '../stats/metrics.ts';

interface MinedSource {
  benchmark?: unknown;
  project?: unknown;
  checks?: { mutants?: { score?: unknown }; reference?: { isolation?: unknown } };
}

/** `{ mined }` for a run whose tasks include mined ones, else nothing. */
export function minedProvenanceOf(tasks: readonly Task[]): { mined?: MinedSetProvenance } {
  const mined = tasks.map((t) => t.source as MinedSource | undefined).filter((s): s is MinedSource => s?.benchmark === 'mined');
  if (!mined.length) return {};
  const scores = mined.map((s) => s.checks?.mutants?.score).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return {
    mined: {
      projects: [...new Set(mined.map((s) => String(s.project ?? '?')))].sort(),
      tasks: mined.length,
      mutationScore: { median: scores.length ? quantile(scores, 0.5) : null, min: scores.length ? Math.min(...scores) : null },
      isolated: mined.filter((s) => s.checks?.reference?.isolation === 'isolated').length,
    },
  };
}

/** One line for a report: where the set was mined and how strong its tests are. */
export function minedSetText(m: MinedSetProvenance): string {
  const score = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
  return (
    `${m.tasks} tasks mined from ${m.projects.join(', ')} (opencoder mine): mutation score of their tests median ${score(m.mutationScore.median)}, ` +
    `lowest ${score(m.mutationScore.min)}; ${m.isolated} judged isolated, ${m.tasks - m.isolated} in-process`
  );
}
