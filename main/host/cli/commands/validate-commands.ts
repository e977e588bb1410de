// `opencoder validate`: runs one candidate (or the task's reference) against the task's tests in
// the sandbox and prints the verdict.

import fs from 'node:fs';
import path from 'node:path';
import { findTask, readManifest } from '../../../benchmarks/manifest.ts';
import { createValidator } from '../../../validate/validator.ts';
import { isolationOf, type Verdict } from '../../../model/verdict.ts';
import { ISOLATION_PROMISE } from '../../../experiment/scoring.ts';
import { allowOf, sandboxModeOf, UsageError, type Command, type CommandResult } from '../kit.ts';
import { bytes } from '../../../model/format.ts';
import { VALIDATE_SPECS } from './specs.ts';

export function verdictLines(v: Verdict): string[] {
  const lines = [
    `Verdict: ${v.status.toUpperCase()} — ${v.reason}`,
    `Duration: ${v.durationMs} ms (limit ${v.timeoutMs} ms)${v.peakMemoryBytes !== null ? `; peak memory ${bytes(v.peakMemoryBytes)}` : ''}${v.cached ? ' (reused verdict of an identical candidate)' : ''}`,
    `Sandbox: ${v.sandbox.label}`,
    `Isolation: ${isolationOf(v)} (${ISOLATION_PROMISE[isolationOf(v)]})`,
    `Interpreter: ${
      v.environment
        ? `${v.environment.python} (Python ${v.environment.version})${
            Object.keys(v.environment.env).length
              ? `, with ${Object.entries(v.environment.env)
                  .map(([k, x]) => `${k}=${x}`)
                  .join(' ')}`
              : ''
          }`
        : 'unknown (no report)'
    }`,
    ...(v.environment?.withheld?.length
      ? [
          `Withheld from the workspace (credentials, keys and task manifests): ${v.environment.withheld.slice(0, 6).join(', ')}${v.environment.withheld.length > 6 ? ` and ${v.environment.withheld.length - 6} more` : ''}`,
        ]
      : []),
    `Target: ${v.target ? `${v.target.expectedFile}, loaded from ${v.target.loadedFrom ?? 'nowhere (never imported)'}, called ${v.target.calls ?? 'an unknown number of'} time(s) while tests ran` : 'not observed'}`,
    `Expected tests: ${v.expectedTests ? `${v.expectedTests.length}, from ${v.expectedFrom === 'reference' ? "the reference's passing run" : "the task's list"}` : 'every test that runs'}`,
    ...(v.flaky ? [`Flaky: first ${v.flaky.outcomes[0]} (${v.flaky.reasons[0]}), then ${v.flaky.outcomes[1]} (${v.flaky.reasons[1]})`] : []),
    `Events: ${v.sandbox.events.length ? v.sandbox.events.map((e) => `${e.kind} (${e.detail})`).join('; ') : 'none'}`,
  ];
  if (v.findings.length) {
    lines.push(`Static findings (${v.findings.length}):`);
    for (const f of v.findings) lines.push(`  ${f.line !== undefined ? `line ${f.line}: ` : ''}${f.severity} ${f.kind}: ${f.message}`);
  } else {
    lines.push('Static findings: none');
  }
  const counts = new Map<string, number>();
  for (const t of v.tests) counts.set(t.outcome, (counts.get(t.outcome) ?? 0) + 1);
  lines.push(`Tests: ${v.tests.length ? [...counts].map(([k, n]) => `${n} ${k}`).join(', ') : 'none ran'}`);
  for (const t of v.tests) {
    const mark = t.outcome === 'passed' ? 'ok  ' : t.outcome === 'skipped' || t.outcome === 'expected-failure' ? 'skip' : 'FAIL';
    const msg = t.message ? ` — ${(t.message.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '').slice(0, 200)}` : '';
    lines.push(`  ${mark} ${t.id}${t.outcome === 'passed' ? '' : ` (${t.outcome})`}${t.expected ? '' : ' [not one of the task’s tests]'}${msg}`);
  }
  return lines;
}

export const VALIDATE_COMMANDS: Record<string, Command> = {
  validate: {
    ...VALIDATE_SPECS.validate,
    async run({ values }): Promise<CommandResult> {
      const manifestFile = values.manifest as string | undefined;
      const id = values.id as string | undefined;
      if (!manifestFile || !id) throw new UsageError('validate needs --manifest FILE and --id ID');
      const candidateFile = values.candidate as string | undefined;
      const useReference = values.reference === true;
      if (!!candidateFile === useReference) throw new UsageError('validate needs exactly one of --candidate FILE and --reference');
      const mode = sandboxModeOf(values);
      let timeoutMs: number | undefined;
      if (values['timeout-ms'] !== undefined) {
        timeoutMs = Number(values['timeout-ms']);
        if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new UsageError('--timeout-ms must be a positive number');
      }
      const task = findTask(readManifest(manifestFile, { allow: allowOf(values) }), id);
      let code: string;
      if (useReference) {
        if (!task.reference) throw new UsageError(`task ${id} has no reference solution in ${path.resolve(manifestFile)}`);
        code = task.reference;
      } else {
        try {
          code = fs.readFileSync(candidateFile!, 'utf8');
        } catch (err) {
          throw new UsageError(`cannot read the candidate ${candidateFile}: ${(err as Error).message}`);
        }
      }
      const validator = await createValidator({ sandbox: { mode } });
      try {
        const verdict = await validator.validate(task, code, { timeoutMs });
        return {
          text: [`Task: ${task.id} (${task.check_template !== undefined ? 'check template' : `repository, ${task.test_command}`})`, ...verdictLines(verdict)],
          // The verdict as decided, with its isolation said even where the validator left it out (then in-process).
          json: {
            ok: true,
            command: 'validate',
            task: task.id,
            candidate: useReference ? 'reference' : path.resolve(candidateFile!),
            verdict: { ...verdict, isolation: isolationOf(verdict) },
          },
          exit: verdict.status === 'passed' ? 0 : 4,
        };
      } finally {
        validator.close();
      }
    },
  },
};
