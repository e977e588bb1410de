// Commands that build and inspect the repository index: index, demo, status.

import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import type { Store } from '../../../store/store.ts';
import {
  otherFilesOfRun,
  otherFilesText,
  repositoryCounts,
  repositoryEmbeddedText,
  repositoryFilesText,
  runEmbeddedText,
  TEXT_MEANING,
} from '../../../model/index-counts.ts';
import { runIndex, type IndexEvent, type IndexStats } from '../../../index/indexer.ts';
import { includeRefusal } from '../../../index/walk.ts';
import type { EncoderPreference } from '../../../embed/select.ts';
import { defaultModelsDir, sampleRepoPath } from '../../paths.ts';
import { openEngine } from '../../workspace.ts';
import { dbPathOf, fmtCounts, openReadOnlyStore, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';

/** Options of every command that indexes (or refreshes) a repository before its work. */
export const ENCODER_OPTS = {
  encoder: { type: 'string', default: 'auto' },
  models: { type: 'string' },
  'rebuild-db': { type: 'boolean', default: false },
  quiet: { type: 'boolean', short: 'q', default: false },
} as const satisfies ParseArgsConfig['options'];

/** The index command's own options: include patterns to add to (or drop from) those the repository remembers. */
const INCLUDE_OPTS = {
  include: { type: 'string', multiple: true },
  'drop-include': { type: 'string', multiple: true },
} as const satisfies ParseArgsConfig['options'];

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
    `Skipped: ${fmtCounts(stats.skipped)}${FORCEABLE.some((r) => stats.skipped[r]) ? ' (--include PATH forces a generated, minified or too large file in)' : ''}`,
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
    lines.push(`Forced in: ${forced.length} (indexed by include patterns; would be skipped as ${fmtCounts(by)}): ${shown.join(', ')}${more}`);
  }
  if (include.patterns.length > 0) lines.push(`Include patterns (remembered; --drop-include PATTERN forgets one): ${include.patterns.join(', ')}`);
  for (const f of include.refused) lines.push(`Note: ${f.path} stays skipped as ${f.reason}: ${includeRefusal(f.reason, f.pattern)}`);
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
    summary: 'index (or incrementally refresh) a repository folder',
    usage:
      'opencoder index <folder> [--include PATH_OR_GLOB]… [--drop-include PATTERN]… [--encoder auto|default|unixcoder] [--models DIR] [--rebuild-db] [--quiet]',
    options: { ...ENCODER_OPTS, ...INCLUDE_OPTS },
    async run({ values, positionals }, io) {
      const root = positionals[0];
      if (!root) throw new UsageError('index needs a folder: opencoder index <folder>');
      return indexCommand(root, values, io);
    },
  },
  demo: {
    summary: 'index the bundled sample repository and show what was found',
    usage: 'opencoder demo [--encoder …]',
    options: ENCODER_OPTS,
    async run({ values }, io) {
      return indexCommand(sampleRepoPath(), values, io);
    },
  },
  status: {
    summary: 'show the repositories in the database and their index state',
    usage: 'opencoder status',
    options: {},
    async run({ values }) {
      const dbPath = dbPathOf(values);
      const store = openReadOnlyStore(values);
      try {
        const repos = store
          .listRepositories()
          .map((r) => ({ ...r, stats: store.stats(r.id), lastRun: store.lastRun(r.id) ?? null, include: store.includePatterns(r.id) }));
        const text = [`Database: ${dbPath}${store.missing ? ' (not created yet)' : ''}`];
        if (!repos.length) text.push('No repositories indexed yet. Run: opencoder index <folder>');
        for (const r of repos) {
          const s = r.stats;
          text.push(
            '',
            `${r.name}  (${r.root})`,
            `  last indexed: ${r.last_indexed_at ?? 'never completed'}; last run: ${r.lastRun?.status ?? 'none'}${r.lastRun?.status === 'interrupted' ? ' (its process is gone; indexing again resumes it)' : ''}`,
            `  files: ${s.files.indexed + s.files.partial} indexed (${s.files.partial} partial); skipped: ${fmtCounts(s.skipped)}`,
            `  units: ${fmtCounts(s.units)}; chunks ${s.chunks}; API entries ${s.apiEntries}`,
            `  encoder: ${s.encoder ? `${s.encoder.name} (${s.encoder.dim}-d)` : 'none yet'}; embedded: unit ${s.embedded.unit}, chunk ${s.embedded.chunk}, api ${s.embedded.api}`,
            `  ${repositoryFilesText(repositoryCounts(s, otherFilesOfRun(r.lastRun?.stats)))}; ${repositoryEmbeddedText(repositoryCounts(s, null))} (${TEXT_MEANING})`,
          );
          if (r.include.length > 0) text.push(`  include patterns (files forced in): ${r.include.join(', ')}`);
        }
        return { text, json: { ok: true, command: 'status', db: dbPath, repositories: repos } };
      } finally {
        store.close();
      }
    },
  },
};
