// `opencoder mine`: a repository folder to a checked, frozen task manifest (host/ops/mine.ts does the work).

import path from 'node:path';
import { mineEventText, mineFolder, mineSummaryText, type MineRequest } from '../../ops/mine.ts';
import { openEngineFor } from '../engine.ts';
import type { Flags } from '../flags.ts';
import { sandboxModeOf, untilInterrupted, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';
import { MINE_SPECS } from '../specs.ts';

/** `--NAME N` as a whole number of at least `min`, or undefined when absent. */
function count(values: Flags, name: string, min: number): number | undefined {
  const v = values[name] as string | undefined;
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number of at least ${min} (got ${v})`);
  return n;
}

/** The request the flags describe. */
export function mineRequestOf(folder: string, values: Flags): MineRequest {
  const out = values.out as string | undefined;
  if (!out) throw new UsageError('mine needs --out DIR: the folder the manifest, MINE.md and the frozen repository copy go to');
  const n = (name: string, min: number) => count(values, name, min);
  const opt = <T>(key: string, v: T | undefined) => (v === undefined ? {} : { [key]: v });
  return {
    folder: path.resolve(folder),
    out: path.resolve(out),
    ...opt('testCommand', values['test-command'] as string | undefined),
    ...opt('python', values.python ? path.resolve(values.python as string) : undefined),
    ...opt('include', values.include as string[] | undefined),
    ...opt('limit', n('limit', 1)),
    ...opt('minDocWords', n('min-doc-words', 0)),
    ...opt('seed', n('seed', 0)),
    ...opt('mutants', n('mutants', 1)),
    ...opt('maxTests', n('max-tests', 1)),
    ...opt('perTestTimeoutS', n('per-test-timeout', 1)),
    ...opt('suiteTimeoutS', n('suite-timeout', 1)),
    validator: { sandbox: { mode: sandboxModeOf(values) } },
    noLeakAudit: values['no-leak-audit'] === true,
  };
}

async function mineCommand(folder: string, values: Flags, io: Io): Promise<CommandResult> {
  const req = mineRequestOf(folder, values);
  const quiet = values.quiet === true;
  const engine = await openEngineFor(values, io);
  try {
    let last = 0;
    const summary = await untilInterrupted(io, 'cancelling… (every task decided so far is kept; run the same command again to resume)', (signal) =>
      mineFolder(
        engine,
        req,
        (e) => {
          if (quiet) return;
          const now = Date.now();
          if (e.type !== 'phase' && now - last < 400 && !(e.type === 'decision' && e.done === e.total)) return;
          last = now;
          io.err(mineEventText(e));
        },
        signal,
      ).catch((err: Error) => {
        if (!signal.aborted) throw err;
        return null;
      }),
    );
    if (!summary)
      return {
        text: [`Cancelled. Every task decided so far is kept in ${path.join(req.out, '.mine')}; the same command resumes.`],
        json: { ok: false, command: 'mine', status: 'cancelled', out: req.out },
        exit: 130,
      };
    return { text: mineSummaryText(summary).split('\n'), json: summary, exit: 0 };
  } finally {
    await engine.close();
  }
}

export const MINE_COMMANDS: Record<string, Command> = {
  mine: {
    ...MINE_SPECS.mine,
    async run({ values, positionals }, io) {
      const folder = positionals[0];
      if (!folder) throw new UsageError('mine needs a folder: opencoder mine <folder> --out DIR');
      return mineCommand(folder, values, io);
    },
  },
};
