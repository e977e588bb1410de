// Mining, one way in for the CLI (`opencoder mine`) and the app (repo.mine): the validator it checks tasks with, the
// leak audit over the frozen copy's index, and the words a mining event is shown with.

import { mineRepository, type MineServices } from '../../benchmarks/mining/mine.ts';
import type { MineEvent, MineOptions, MineSummary } from '../../benchmarks/mining/types.ts';
import { DROP_LABELS } from '../../benchmarks/mining/types.ts';
import { DEFAULT_CONFIG } from '../../model/config.ts';
import type { Task } from '../../model/task.ts';
import { retrieveForTask } from '../../retrieve/engine.ts';
import { VectorIndexCache } from '../../retrieve/vector-index.ts';
import { createValidator, type ValidatorOptions } from '../../validate/validator.ts';
import { completedRepoId, indexRepo, type IndexEngine } from './indexing.ts';

export type { MineEvent, MineOptions, MineSummary };

export interface MineRequest extends MineOptions {
  /** The sandbox and limits the checks run under (the CLI's --sandbox, the app's Settings). */
  validator?: ValidatorOptions;
  /** Skip the leak audit (no index of the frozen copy is made); the summary and MINE.md then say it was not run. */
  noLeakAudit?: boolean;
}

/** The leak audit: the frozen copy indexed, each task's evidence retrieved as a run would, the audit's suspects counted. */
function leakAuditor(engine: IndexEngine): NonNullable<MineServices['auditLeaks']> {
  return async (tasks: Task[], signal?: AbortSignal) => {
    const out = new Map<string, { suspects: number; detail: string }>();
    if (!tasks.length) return out;
    const repoId = completedRepoId(await indexRepo(engine, tasks[0]!.repoPath, signal ? { signal } : {}));
    const cache = new VectorIndexCache();
    for (const task of tasks) {
      if (signal?.aborted) break;
      const trace = await retrieveForTask({ store: engine.store, encoder: engine.encoder, repoId, task, config: DEFAULT_CONFIG, cache, persist: false });
      const suspects = trace.leak?.suspects ?? [];
      out.set(task.id, {
        suspects: suspects.length,
        detail: suspects
          .slice(0, 3)
          .map((s) => `${s.title} (${s.kind} against ${s.against}: ${s.match.slice(0, 80)})`)
          .join('; '),
      });
    }
    return out;
  };
}

/** Mines a repository folder into a checked, frozen manifest (benchmarks/mining/mine.ts); the summary. */
export async function mineFolder(engine: IndexEngine, req: MineRequest, onEvent?: (e: MineEvent) => void, signal?: AbortSignal): Promise<MineSummary> {
  const validator = await createValidator(req.validator ?? {});
  try {
    return await mineRepository(req, { validator, ...(req.noLeakAudit ? {} : { auditLeaks: leakAuditor(engine) }) }, onEvent, signal);
  } finally {
    validator.close();
  }
}

/** One line for a mining event (the CLI's progress lines, the app's job card). */
export function mineEventText(e: MineEvent): string {
  if (e.type === 'phase') return `[mine ${e.phase}] ${e.text}`;
  if (e.type === 'progress') return `[mine ${e.phase}] ${e.done}${e.total ? `/${e.total}` : ''}${e.current ? ` — ${e.current}` : ''}`;
  const d = e.decision;
  return `[mine checks] ${e.done}/${e.total} ${d.id}: ${d.kept ? 'kept' : `dropped, ${DROP_LABELS[d.reason]}`}`;
}

/** The summary in a few lines (the CLI's text output). */
export function mineSummaryText(s: MineSummary): string {
  const dropped = Object.entries(s.dropped)
    .map(([r, n]) => `${DROP_LABELS[r as keyof typeof DROP_LABELS]}: ${n}`)
    .join('; ');
  return [
    `Mined ${s.folder} with ${s.testCommand}`,
    `Candidates ${s.candidates}, kept ${s.tasks} (${s.isolated} isolated), mutation score median ${s.mutationScore.median ?? '—'}`,
    `Dropped: ${dropped || 'none'}`,
    ...(s.unchecked ? [`Not checked: ${s.unchecked} candidates with tests, over --limit`] : []),
    ...(s.leakAudit ? [] : ['Leak audit: not run (--no-leak-audit)']),
    ...(s.resumed ? [`Resumed: ${s.resumed} decisions taken from the stopped run`] : []),
    ...(s.unparsed.length ? [`Files that do not parse: ${s.unparsed.map((u) => `${u.file} (${u.error})`).join(', ')}`] : []),
    `Manifest: ${s.out} (see MINE.md beside it)`,
  ].join('\n');
}
