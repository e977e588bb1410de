// The checks a mined task passes before it is kept, each run by the validator exactly as an experiment runs a
// candidate: the reference passes its tests twice, the NotImplementedError stub fails them, and mutants of the
// reference are run against them for the task's mutation score (a task whose tests kill none is thin).

import type { Task } from '../../model/task.ts';
import type { Verdict } from '../../model/verdict.ts';
import { TaskError } from '../../validate/task-plan.ts';
import type { Validator } from '../../validate/validator.ts';
import type { Mutant } from './scan.ts';
import type { DropReason, TaskChecks } from './types.ts';

/** A mutant's time limit: this many times the reference's run, within the bounds below (a mutant that loops is killed). */
const MUTANT_TIME_FACTOR = 5;
const MUTANT_FLOOR_MS = 2000;

export type CheckOutcome = { kept: true; checks: TaskChecks } | { kept: false; reason: DropReason; detail: string; checks?: Partial<TaskChecks> };

/** The stub every task must fail: its signature with a body that raises NotImplementedError. */
export function stubOf(signature: string): string {
  return `${signature}\n    raise NotImplementedError\n`;
}

/** Why a verdict is not a plain pass, briefly. */
function short(v: Verdict): string {
  return `${v.status}: ${v.reason}`.slice(0, 300);
}

/** Runs the checks for one task (its `tests` frozen from the traced run); throws only when cancelled. */
export async function checkTask(validator: Validator, task: Task, mutants: Mutant[], signal?: AbortSignal): Promise<CheckOutcome> {
  const sig = signal ? { signal } : {};
  let check;
  try {
    check = await validator.referenceCheck(task, sig);
  } catch (err) {
    if (signal?.aborted) throw err;
    if (err instanceof TaskError) return { kept: false, reason: 'reference-fails', detail: err.message };
    throw err;
  }
  if (!check.passes) return { kept: false, reason: 'reference-fails', detail: check.reason.slice(0, 400) };
  const isolation = check.isolation;
  // The second run is judged afresh (never the first run's kept verdict), where the first run decided.
  const second = await validator.validateReference(task, { ...sig, isolation, fresh: true });
  const runs: [string, string] = ['passed', second.status];
  const reference = { runs, isolation, isolationReason: check.isolationReason, ms: Math.round(second.durationMs) };
  if (second.status !== 'passed') return { kept: false, reason: 'flaky', detail: `first run passed, second ${short(second)}`, checks: { reference } };
  const stub = await validator.validate(task, stubOf(task.signature), sig);
  if (stub.status === 'passed')
    return { kept: false, reason: 'stub-passes', detail: 'a body that raises NotImplementedError passes every test', checks: { reference } };
  const limit = Math.max(MUTANT_FLOOR_MS, MUTANT_TIME_FACTOR * second.durationMs);
  const verdicts = await Promise.all(
    mutants.map((m) => validator.validate(task, m.code, { ...sig, once: true, timeoutMs: Math.round(Math.min(limit, second.timeoutMs)) })),
  );
  const byKind: Record<string, [number, number]> = {};
  const survivors: { kind: string; line: number | null }[] = [];
  let killed = 0;
  let timeouts = 0;
  // Kills where a test failed its assertions (not only crashed or hung): what shows the tests check results.
  let byAssertion = 0;
  let made = 0;
  verdicts.forEach((v, i) => {
    const m = mutants[i]!;
    // A verdict the infrastructure decided says nothing of the tests: that mutant is not counted.
    if (v.infrastructure) return;
    made++;
    const k = (byKind[m.kind] ??= [0, 0]);
    k[0]++;
    if (v.status === 'passed') survivors.push({ kind: m.kind, line: m.line });
    else {
      killed++;
      k[1]++;
      if (v.status === 'timeout') timeouts++;
      if (v.tests.some((t) => t.outcome === 'failed')) byAssertion++;
    }
  });
  const score = made ? killed / made : 0;
  const mutantChecks = { made, killed, score: Math.round(score * 1000) / 1000, timeouts, byAssertion, byKind, survivors };
  const checks: TaskChecks = { reference, stub: { status: stub.status }, mutants: mutantChecks, leak: { suspects: 0 } };
  if (made === 0) return { kept: false, reason: 'thin', detail: 'no mutant of the reference could be made or run', checks };
  if (killed === 0) return { kept: false, reason: 'thin', detail: `its tests kill none of ${made} mutants`, checks };
  // A mutant that crashes (a statement removed leaves a name unbound) or loops is caught by tests that assert nothing.
  if (byAssertion === 0)
    return {
      kept: false,
      reason: 'thin',
      detail: `its tests notice ${killed} of ${made} mutants only by a crash or a hang, never by a failed assertion`,
      checks,
    };
  return { kept: true, checks };
}
