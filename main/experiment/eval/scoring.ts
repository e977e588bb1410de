// What a report counts beside its figures: unscored (task, condition) pairs by cause, and raw candidates by what
// their reply held. Unscored pairs are the infrastructure's (an API error after its retries, no sandbox, a harness
// crash, a workspace that could not be built) and are left out of every figure; replies without code are the
// model's and stay failed samples, named. Read from stored results only, older ones included.

import type { ReplyTally, UnscoredCounts } from '../../model/report.ts';
import type { ReplyCounts, TaskFailure, TaskResult } from '../../model/results.ts';
import type { VerdictIsolation } from '../../model/verdict.ts';

/** Why a stored pair is unscored: its recorded cause, or for failures stored before causes were recorded, its kind. */
export function causeOf(f: TaskFailure): string {
  return f.cause ?? f.kind ?? 'engine';
}

export function unscoredCounts(failures: readonly TaskFailure[]): UnscoredCounts {
  const byCause: Record<string, number> = {};
  for (const f of failures) byCause[causeOf(f)] = (byCause[causeOf(f)] ?? 0) + 1;
  return { total: failures.length, byCause };
}

/**
 * A result's raw candidates by reply, from the counts it stored or its candidates' own kinds; null when some
 * candidate has no recorded kind (a result stored before replies were recorded).
 */
export function repliesOf(r: TaskResult): ReplyCounts | null {
  if (r.generation.replies) return r.generation.replies;
  if (!r.candidates.every((c) => c.reply)) return null;
  const n = (k: string) => r.candidates.filter((c) => c.reply === k).length;
  return { code: n('code'), empty: n('empty'), noCode: n('no-code'), refused: n('refused') };
}

export function replyTally(rs: readonly TaskResult[]): ReplyTally {
  const t: ReplyTally = { candidates: 0, code: 0, empty: 0, noCode: 0, refused: 0, unknown: 0 };
  for (const r of rs) {
    t.candidates += r.candidates.length;
    const c = repliesOf(r);
    if (!c) {
      t.unknown += r.candidates.length;
      continue;
    }
    t.code += c.code;
    t.empty += c.empty;
    t.noCode += c.noCode;
    t.refused += c.refused;
  }
  return t;
}

export const UNSCORED_NOTE =
  'Unscored pairs: a (task, condition) the infrastructure failed (an API error after its retries, a sandbox that would not start, a harness crash, a workspace that could not be built, or a verdict of a raw candidate or repair that the sandbox or harness decided rather than the candidate) is left out of Pass@k, selected-output correctness, calibration and cost, and counted beside them by cause; each figure is over the scored tasks (n stated). Paired comparisons and factorial effects pair only tasks scored in every arm and say how many were dropped. A candidate’s own faults (a crash, a timeout, tampering, os._exit, tests that never reach it) are failures, not unscored.';

export const REPLIES_NOTE =
  'Replies without code: a raw candidate whose reply was empty, prose without any code, or a refusal is a failed sample of the model (it counts in n and never passes); reports count them by kind. Results stored before the reply kind was recorded count as unknown, not as code.';

/** What a verdict's isolation promises (model/verdict.ts), as the notes, the reports and the CLI say it. */
export const ISOLATION_PROMISE: Record<VerdictIsolation, string> = {
  isolated:
    'the tests ran in a process the candidate never ran in and only data crossed, so a wrong candidate can pass only by returning what the tests accept',
  'in-process': 'the candidate ran inside the test process under hardening, and hardening inside one interpreter is a best effort, never a guarantee',
};

/** What no verdict promises, whatever its isolation. */
export const THIN_TESTS = 'Neither can make thin tests thick.';

export const ISOLATION_NOTE = `Isolation: every verdict records where it was decided. Isolated: ${ISOLATION_PROMISE.isolated}. In-process: ${ISOLATION_PROMISE['in-process']}. ${THIN_TESTS} Per condition the report counts in-process raw-candidate verdicts (of all raw-candidate verdicts) and tasks whose selected output’s verdict was in-process (of the tasks with a result), lists the tasks with either, each with why it was not isolated (the reason its verdicts recorded: the task's reference check's, or the validator's setting; not recorded for verdicts stored before reasons were kept), and gives the share of raw-candidate verdicts decided isolated; a verdict stored before isolation was recorded counts as in-process (every such verdict was).`;
