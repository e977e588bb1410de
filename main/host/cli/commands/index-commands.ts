// Commands that build the repository index: index, demo (status, which only reads it, is status-command.ts).

import path from 'node:path';
import type { Store } from '../../../store/store.ts';
import { otherFilesText, repositoryCounts, repositoryEmbeddedText, repositoryFilesText, runEmbeddedText, TEXT_MEANING } from '../../../model/index-counts.ts';
import { runIndex, type IndexEvent, type IndexStats } from '../../../index/indexer.ts';
import { includeRefusal } from '../../../index/walk.ts';
import { skipCountsText, skipReasonText } from '../../../model/skip-reasons.ts';
import type { EncoderPreference } from '../../../embed/select.ts';
import { defaultModelsDir, sampleRepoPath } from '../../paths.ts';
import { openEngine } from '../../workspace.ts';
import { INDEX_SPECS } from './specs.ts';
import { dbPathOf, fmtCounts, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';

const FORCEABLE = ['generated', 'minified', 'too_large'];

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
      io.err(`[${lastPhase}] ${e.done}/${e.total}${e.phase === 'embed' ? `  ${runEmbeddedText(e.done, e.total)}` : e.current ? `  ${e.current}` : ''}`);
    } else if (e.type === 'warning') {
      io.err(`warning: ${e.path}: ${e.message}`);
    }
  };
}

function indexReport(stats: IndexStats, store: Store, notice: string | null): string[] {
  const s = store.stats(stats.repoId);
  const f = stats.files;
  const lines = [
    `Repository: ${stats.root}`,
    `Run: ${stats.status} in ${(stats.timings.total / 1000).toFixed(2)} s ` +
      `(scan ${(stats.timings.scan / 1000).toFixed(2)} s, parse ${(stats.timings.parse / 1000).toFixed(2)} s, embed ${(stats.timings.embed / 1000).toFixed(2)} s)`,
    `Files: ${f.seen} code files seen — ${f.added} added, ${f.changed} changed, ${f.removed} removed, ${f.touched} touched (same content, re-hashed only), ${f.unchanged} unchanged; ${otherFilesText(f.other)}`,
    `This run: ${stats.parsedFiles} files parsed (${stats.filesWithSyntaxErrors} with syntax errors), ${runEmbeddedText(stats.embeddedTexts, stats.embeddedTexts)}`,
    `Indexed files: ${s.files.indexed + s.files.partial} (${s.files.partial} partially, after syntax errors)`,
    `In the repository: ${repositoryFilesText(repositoryCounts(s, f.other))}; ${repositoryEmbeddedText(repositoryCounts(s, f.other))} (${TEXT_MEANING})`,
    `Skipped: ${skipCountsText(stats.skipped)}${FORCEABLE.some((r) => stats.skipped[r]) ? ' (--include PATH forces a generated, minified or too large file in)' : ''}`,
    ...includeReport(stats),
    `Units: ${fmtCounts(s.units)}`,
    `Context chunks: ${s.chunks}; API entries: ${s.apiEntries}`,
    `Encoder: ${stats.encoder.name} (${stats.encoder.dim}-d, id ${stats.encoder.id})`,
  ];
  if (notice) lines.push(`Note: ${notice}`);
  return lines;
}

/** The lines on files forced in by include patterns, and on patterns that matched nothing. */
function includeReport(stats: IndexStats): string[] {
  const { forced, include } = stats;
  const lines: string[] = [];
  if (forced.length > 0) {
    const by: Record<string, number> = {};
    for (const f of forced) by[f.reason] = (by[f.reason] ?? 0) + 1;
    const shown = forced.slice(0, 10).map((f) => f.path);
    const more = forced.length > shown.length ? `, … ${forced.length - shown.length} more` : '';
    lines.push(`Forced in: ${forced.length} (indexed by include patterns; would be skipped as ${skipCountsText(by)}): ${shown.join(', ')}${more}`);
  }
  if (include.patterns.length > 0) lines.push(`Include patterns (remembered; --drop-include PATTERN forgets one): ${include.patterns.join(', ')}`);
  for (const f of include.refused) lines.push(`Note: ${f.path} stays skipped as ${skipReasonText(f.reason)}: ${includeRefusal(f.reason, f.pattern)}`);
  for (const p of include.unmatched) {
    lines.push(
      `Note: include pattern ${p} matched no file the walk reached (patterns are relative to the repository root; files under skipped or ignored folders are not reached)`,
    );
  }
  return lines;
}

async function indexCommand(root: string, values: Record<string, unknown>, io: Io): Promise<CommandResult> {
  const dbPath = dbPathOf(values);
  const { store, encoder, notice, storeNotice, close } = await openEngine({
    dbPath,
    rebuild: values['rebuild-db'] === true,
    encoder: values.encoder as EncoderPreference,
    modelsDir: (values.models as string | undefined) ?? defaultModelsDir(),
  });
  if (storeNotice) io.err(`note: ${storeNotice}`);
  if (notice && !values.quiet) io.err(`note: ${notice}`);
  const controller = new AbortController();
  const onSigint = () => {
    io.err('cancelling… (what is finished is kept)');
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    const include = { include: values.include as string[] | undefined, dropInclude: values['drop-include'] as string[] | undefined };
    const stats = await runIndex(
      { store, root: path.resolve(root), encoder, signal: controller.signal, ...include },
      progressPrinter(io, values.quiet === true),
    );
    const summary = store.stats(stats.repoId);
    return {
      text: indexReport(stats, store, notice),
      json: { ok: stats.status === 'completed', command: 'index', db: dbPath, run: stats, repository: summary, encoderNotice: notice },
      exit: stats.status === 'completed' ? 0 : 130,
    };
  } finally {
    process.off('SIGINT', onSigint);
    await close();
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
    async run({ values }, io) {
      return indexCommand(sampleRepoPath(), values, io);
    },
  },
};
