// Commands that build the repository index: index, demo (status, which only reads it, is status-command.ts).

import path from 'node:path';
import { indexRepo } from '../../ops/indexing.ts';
import { sampleRepoPath } from '../../paths.ts';
import { openEngineFor, progressPrinter } from '../engine.ts';
import type { Flags } from '../flags.ts';
import { dbPathOf, untilInterrupted, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';
import { INDEX_SPECS } from '../specs.ts';
import { indexReport } from '../text/index-text.ts';

/** Indexes (or refreshes) the folder; Ctrl-C stops it with what is finished kept, and exits 130. */
async function indexCommand(root: string, values: Flags, io: Io): Promise<CommandResult> {
  const engine = await openEngineFor(values, io);
  try {
    const include = { include: values.include as string[] | undefined, dropInclude: values['drop-include'] as string[] | undefined };
    const stats = await untilInterrupted(io, 'cancelling… (what is finished is kept)', (signal) =>
      indexRepo(engine, path.resolve(root), { signal, ...include }, progressPrinter(io, values.quiet === true)),
    );
    const completed = stats.status === 'completed';
    return {
      text: indexReport(stats, engine.store, engine.notice),
      json: { ok: completed, command: 'index', db: dbPathOf(values), run: stats, repository: engine.store.stats(stats.repoId), encoderNotice: engine.notice },
      exit: completed ? 0 : 130,
    };
  } finally {
    await engine.close();
  }
}

export const INDEX_COMMANDS: Record<string, Command> = {
  index: {
    ...INDEX_SPECS.index,
    async run({ values, positionals }, io) {
      const root = positionals[0];
      if (!root) throw new UsageError('index needs a folder: opencoder index <folder>');
      return indexCommand(root, values, io);
    },
  },
  demo: {
    ...INDEX_SPECS.demo,
    run: ({ values }, io) => indexCommand(sampleRepoPath(), values, io),
  },
};
