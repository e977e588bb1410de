// The words a run's progress is shown with, the same in the app's job card and the CLI's progress lines.

import type { Progress } from '../../experiment/runner.ts';
import { duration, usd } from '../../model/format.ts';

/** The pair that finished last: `task / condition: correct`, `wrong`, or `unscored: why`, and the worker that ran it. */
export function pairText(last: NonNullable<Progress['last']>): string {
  const line = `${last.taskId} / ${last.condition}: ${last.ok ? (last.correct ? 'correct' : 'wrong') : `unscored: ${(last.error ?? '').slice(0, 200)}`}`;
  return last.worker ? `${line} (on ${last.worker})` : line;
}

/** One progress line of a run: counts, time left, spend, the queue's workers, and the last pair. */
export function runProgressLine(p: Progress): string {
  const workers = p.workers
    ? `; queue: ${p.queued ?? 0} waiting, workers ${p.workers.map((w) => `${w.name} ${w.active} running/${w.done} done`).join(', ') || 'none seen yet'}`
    : '';
  return (
    `[run ${p.runId}] ${p.done}/${p.total}${p.failed ? ` (${p.failed} unscored)` : ''}${p.resumed ? `, ${p.resumed} from before` : ''}; ` +
    `ETA ${duration(p.etaMs, '?')}; spent ${usd(p.spentUsd, 'unknown (no price)')}${workers}${p.last ? ` — ${pairText(p.last)}` : ''}`
  );
}
