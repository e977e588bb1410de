// A CLI command's engine: the store and the encoder its flags ask for (host/workspace.ts openEngine composes them),
// and how it indexes a repository before its work: ops/indexing.ts, with progress lines on stderr.

import type { EncoderPreference } from '../../embed/select.ts';
import type { IndexEvent } from '../../index/index-types.ts';
import type { Task } from '../../model/task.ts';
import { completedRepoId, ensureIndexed, indexProgressText, indexRepo } from '../ops/indexing.ts';
import { defaultModelsDir } from '../paths.ts';
import { openEngine, type EngineCore } from '../workspace.ts';
import type { Flags } from './flags.ts';
import { dbPathOf, type Io } from './kit.ts';

/** Opens the database and the configured encoder (both closed by `close`); a fallback notice goes to stderr. */
export async function openEngineFor(values: Flags, io: Io): Promise<EngineCore> {
  const engine = await openEngine({
    dbPath: dbPathOf(values),
    rebuild: values['rebuild-db'] === true,
    encoder: (values.encoder as EncoderPreference | undefined) ?? 'auto',
    modelsDir: (values.models as string | undefined) ?? defaultModelsDir(),
  });
  if (engine.storeNotice) io.err(`note: ${engine.storeNotice}`);
  if (engine.notice && !values.quiet) io.err(`note: ${engine.notice}`);
  return engine;
}

/** Index progress as stderr lines: each phase, its counts at most twice a second, and warnings. */
export function progressPrinter(io: Io, quiet: boolean): (e: IndexEvent) => void {
  let lastPrint = 0;
  let lastPhase = '';
  return (e) => {
    if (quiet) return;
    if (e.type === 'phase') {
      lastPhase = e.phase;
      io.err(`[${e.phase}]`);
    } else if (e.type === 'progress') {
      const t = Date.now();
      if (t - lastPrint < 500 && e.done !== e.total) return;
      lastPrint = t;
      const more = indexProgressText(e);
      io.err(`[${lastPhase}] ${e.done}/${e.total}${more ? `  ${more}` : ''}`);
    } else if (e.type === 'warning') {
      io.err(`warning: ${e.path}: ${e.message}`);
    }
  };
}

/** Indexes (or refreshes) each distinct folder once, printing progress unless quiet; repository ids by folder. */
export function indexFolders(engine: EngineCore, roots: Iterable<string>, io: Io, quiet: boolean): Promise<Map<string, number>> {
  return ensureIndexed(roots, async (root) => completedRepoId(await indexRepo(engine, root, {}, progressPrinter(io, quiet))));
}

/** The tasks' repositories, indexed. */
export function indexTasks(engine: EngineCore, tasks: Task[], io: Io, quiet: boolean): Promise<Map<string, number>> {
  return indexFolders(
    engine,
    tasks.map((t) => t.repoPath),
    io,
    quiet,
  );
}
