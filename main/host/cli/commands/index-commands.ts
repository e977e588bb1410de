// Commands that build and inspect the repository index: index, demo, status.

import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { Store } from '../../../store/store.ts';
import { runIndex, type IndexEvent, type IndexStats } from '../../../index/indexer.ts';
import type { EncoderPreference } from '../../../embed/select.ts';
import { defaultModelsDir, sampleRepoPath } from '../../paths.ts';
import { openEngine } from '../../workspace.ts';
import { dbPathOf, fmtCounts, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';

/** Options of every command that indexes (or refreshes) a repository before its work. */
export const ENCODER_OPTS = {
  encoder: { type: 'string', default: 'auto' },
  models: { type: 'string' },
  'rebuild-db': { type: 'boolean', default: false },
  quiet: { type: 'boolean', short: 'q', default: false },
} as const satisfies ParseArgsConfig['options'];

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
      io.err(`[${lastPhase}] ${e.done}/${e.total}${e.current ? `  ${e.current}` : ''}`);
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
    `Files: ${f.seen} code files seen — ${f.added} added, ${f.changed} changed, ${f.removed} removed, ${f.touched} touched (same content, re-hashed only), ${f.unchanged} unchanged; ${f.other} other files (no supported language)`,
    `This run: ${stats.parsedFiles} files parsed (${stats.filesWithSyntaxErrors} with syntax errors), ${stats.embeddedTexts} texts embedded`,
    `Indexed files: ${s.files.indexed + s.files.partial} (${s.files.partial} partially, after syntax errors)`,
    `Skipped: ${fmtCounts(stats.skipped)}`,
    `Units: ${fmtCounts(s.units)}`,
    `Context chunks: ${s.chunks}; API entries: ${s.apiEntries}`,
    `Encoder: ${stats.encoder.name} (${stats.encoder.dim}-d, id ${stats.encoder.id})`,
  ];
  if (notice) lines.push(`Note: ${notice}`);
  return lines;
}

async function indexCommand(root: string, values: Record<string, unknown>, io: Io): Promise<CommandResult> {
  const dbPath = dbPathOf(values);
  const { store, encoder, notice, close } = await openEngine({
    dbPath,
    rebuild: values['rebuild-db'] === true,
    encoder: values.encoder as EncoderPreference,
    modelsDir: (values.models as string | undefined) ?? defaultModelsDir(),
  });
  if (notice && !values.quiet) io.err(`note: ${notice}`);
  const controller = new AbortController();
  const onSigint = () => {
    io.err('cancelling… (what is finished is kept)');
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    const stats = await runIndex({ store, root: path.resolve(root), encoder, signal: controller.signal }, progressPrinter(io, values.quiet === true));
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
    usage: 'opencoder index <folder> [--encoder auto|default|unixcoder] [--models DIR] [--rebuild-db] [--quiet]',
    options: ENCODER_OPTS,
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
      const store = Store.open(dbPath);
      try {
        const repos = store.listRepositories().map((r) => ({ ...r, stats: store.stats(r.id), lastRun: store.lastRun(r.id) ?? null }));
        const text = [`Database: ${dbPath}`];
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
          );
        }
        return { text, json: { ok: true, command: 'status', db: dbPath, repositories: repos } };
      } finally {
        store.close();
      }
    },
  },
};
