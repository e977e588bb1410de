// Pass@k of a published sample set from executed labels (`opencoder passk --labels executed`): every sample of the
// tasks a manifest holds is run in the sandbox against the task's tests, and Pass@k, the official Pass@k of the
// same tasks and the agreement with the official labels are computed from those verdicts.

import { agreementOf, isolationCounts, matchTask, passAtKOf, type ExecutedTask, type KOverN, type SampleTask } from '../../benchmarks/samples.ts';
import { extractCode } from '../../generate/extract.ts';
import { signatureName } from '../../generate/prompts.ts';
import type { Task } from '../../model/task.ts';
import { isolationOf } from '../../model/verdict.ts';
import type { SandboxOptions } from '../../validate/sandbox.ts';
import { TaskError } from '../../validate/task-plan.ts';
import { createValidator, type Validator } from '../../validate/validator.ts';

/** A task of the sample set with the manifest task it was matched to. */
export interface MatchedTask {
  set: SampleTask;
  task: Task;
}

/** A task no sample can be judged on (its reference fails its own tests here, or it cannot be set up), and why. */
export interface NotJudged {
  taskId: string;
  manifestTaskId: string;
  reason: string;
}

/** How one task went: the samples that passed of those run, or why none could be judged. */
export type TaskOutcome = { passed: number; total: number } | { notJudged: string };

/** The set's tasks that the manifest holds (matchTask), in the set's order. */
export function matchTasks(manifestTasks: Task[], tasks: SampleTask[]): MatchedTask[] {
  return tasks.map((t) => ({ set: t, task: matchTask(manifestTasks, t.taskId) })).filter((x): x is MatchedTask => !!x.task);
}

/** One task's samples run against its tests, as given or (with `extract`) with the code extracted from each reply. */
async function executeTask(validator: Validator, { set, task }: MatchedTask, extract: boolean): Promise<ExecutedTask> {
  const name = signatureName(task.signature);
  const verdicts = await Promise.all(
    set.samples.map((s) => validator.validate(task, extract ? extractCode(s.code, { name, qualname: task.qualname }).code : s.code)),
  );
  const samples = verdicts.map((v, j) => ({
    index: j,
    official: set.samples[j]!.passed ?? null,
    executed: v.status === 'passed',
    status: v.status,
    reason: v.reason,
    isolation: isolationOf(v),
  }));
  return { taskId: set.taskId, manifestTaskId: task.id, samples };
}

/**
 * Runs every sample of the tasks in the sandbox. A task that cannot be judged is named with the reason and left
 * out, and the run goes on with the next task; `onTask` hears how each went.
 */
export async function executeSamples(
  tasks: MatchedTask[],
  opts: { sandbox: SandboxOptions['mode']; extract: boolean; onTask?: (i: number, task: Task, outcome: TaskOutcome) => void },
): Promise<{ executed: ExecutedTask[]; notJudged: NotJudged[] }> {
  const validator = await createValidator({ sandbox: { mode: opts.sandbox } });
  const executed: ExecutedTask[] = [];
  const notJudged: NotJudged[] = [];
  try {
    for (const [i, matched] of tasks.entries()) {
      let done: ExecutedTask;
      try {
        done = await executeTask(validator, matched, opts.extract);
      } catch (err) {
        if (!(err instanceof TaskError)) throw err;
        notJudged.push({ taskId: matched.set.taskId, manifestTaskId: matched.task.id, reason: err.message });
        opts.onTask?.(i, matched.task, { notJudged: err.message });
        continue;
      }
      executed.push(done);
      opts.onTask?.(i, matched.task, { passed: done.samples.filter((s) => s.executed).length, total: done.samples.length });
    }
  } finally {
    validator.close();
  }
  return { executed, notJudged };
}

/**
 * Pass@k from the executed labels; the official Pass@k of the same tasks where every sample has an official label;
 * the agreement of the two labels, and where the verdicts were decided. Throws RangeError as passAtKOf does.
 */
export function executedPassAtK(executed: ExecutedTask[], ks: number[], kOverN: KOverN) {
  const countsOf = (passed: (s: ExecutedTask['samples'][number]) => boolean | null) =>
    executed.map((t) => ({ taskId: t.taskId, n: t.samples.length, c: t.samples.filter(passed).length }));
  const report = passAtKOf(
    countsOf((s) => s.executed),
    ks,
    kOverN,
  );
  const labelled = executed.every((t) => t.samples.every((s) => s.official !== null));
  const official = labelled
    ? passAtKOf(
        countsOf((s) => s.official),
        ks,
        kOverN,
      ).passAtK
    : null;
  return { report, official, agreement: agreementOf(executed), isolation: isolationCounts(executed) };
}
