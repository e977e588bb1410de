// `opencoder validate`: runs one candidate (or the task's reference) against the task's tests in
// the sandbox and prints the verdict.

import fs from 'node:fs';
import path from 'node:path';
import { findTask } from '../../../model/manifest.ts';
import { readManifest } from '../../../benchmarks/manifest-file.ts';
import { createValidator } from '../../../validate/validator.ts';
import { isolationOf, isolationReasonOf } from '../../../model/verdict.ts';
import { allowOf, sandboxModeOf, UsageError, type Command, type CommandResult } from '../kit.ts';
import { VALIDATE_SPECS } from '../specs.ts';
import { verdictLines } from '../text/validate-text.ts';

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
        // validate() made the task's reference check first (kept by the validator): where it put the task, and why.
        const check = useReference ? await validator.referenceCheck(task) : null;
        const isolation = isolationOf(verdict);
        const isolationReason = isolationReasonOf(verdict);
        return {
          text: [
            `Task: ${task.id} (${task.check_template !== undefined ? 'check template' : `repository, ${task.test_command}`})`,
            ...(check ? [`Reference check: ${check.passes ? 'passes' : 'fails'}; candidates ${check.isolation} — ${check.isolationReason}`] : []),
            ...verdictLines(verdict),
          ],
          // The verdict as decided, with its isolation (and why) said even where the validator left it out (then in-process).
          json: {
            ok: true,
            command: 'validate',
            task: task.id,
            candidate: useReference ? 'reference' : path.resolve(candidateFile!),
            isolation,
            isolationReason,
            ...(check ? { referenceCheck: { passes: check.passes, isolation: check.isolation, isolationReason: check.isolationReason } } : {}),
            verdict: { ...verdict, isolation, isolationReason },
          },
          exit: verdict.status === 'passed' ? 0 : 4,
        };
      } finally {
        validator.close();
      }
    },
  },
};
