// The `opencoder` command line. Every command takes --db FILE and --json; with --json the last line
// of stdout is one JSON document. Progress goes to stderr so stdout stays machine-readable.

import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { Store } from '../store/store.ts';
import { StoreError } from '../store/errors.ts';
import { runIndex, type IndexEvent, type IndexStats } from '../index/indexer.ts';
import { RepositoryRootError } from '../index/walk.ts';
import { openConfiguredEncoder, type EncoderPreference } from '../embed/select.ts';
import { defaultDbPath, defaultModelsDir, sampleRepoPath } from './paths.ts';

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

const COMMON = {
  db: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

const ENCODER_OPTS = {
  encoder: { type: 'string', default: 'auto' },
  models: { type: 'string' },
  'rebuild-db': { type: 'boolean', default: false },
  quiet: { type: 'boolean', short: 'q', default: false },
} as const satisfies ParseArgsConfig['options'];

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

interface CommandResult {
  text: string[];
  json: unknown;
  /** Exit code; 0 when absent. */
  exit?: number;
}

interface Command {
  summary: string;
  usage: string;
  options: ParseArgsConfig['options'];
  run(args: { values: Record<string, unknown>; positionals: string[] }, io: Io): Promise<CommandResult>;
}

const HELP = `opencoder — uncertainty-aware, retrieval-augmented repository-level code generation

Usage: opencoder <command> [options]

Commands:
${'{commands}'}

Every command takes --db FILE (default: ${defaultDbPath()}) and --json (the last line of stdout
is then one JSON document). Exit code 0 means success.`;

function dbPathOf(values: Record<string, unknown>): string {
  return path.resolve((values.db as string | undefined) ?? defaultDbPath());
}

function progressPrinter(io: Io, quiet: boolean): (e: IndexEvent) => void {
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

function fmtCounts(rec: Record<string, number>): string {
  const parts = Object.entries(rec).map(([k, v]) => `${k} ${v}`);
  return parts.length ? parts.join(', ') : 'none';
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
  const store = Store.open(dbPath, { rebuild: values['rebuild-db'] === true });
  try {
    const { encoder, notice } = await openConfiguredEncoder({
      prefer: values.encoder as EncoderPreference,
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
      const stats = await runIndex(
        { store, root: path.resolve(root), encoder, signal: controller.signal },
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
      await encoder.dispose();
    }
  } finally {
    store.close();
  }
}

const COMMANDS: Record<string, Command> = {
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
            `  last indexed: ${r.last_indexed_at ?? 'never completed'}; last run: ${r.lastRun?.status ?? 'none'}`,
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

function helpText(): string {
  const cmds = Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}\n             ${c.usage}`)
    .join('\n');
  return HELP.replace('{commands}', cmds);
}

function describeError(err: unknown): { kind: string; message: string } {
  if (err instanceof UsageError) return { kind: 'usage', message: err.message };
  if (err instanceof StoreError) return { kind: err.name, message: err.message };
  if (err instanceof RepositoryRootError) return { kind: err.name, message: err.message };
  const e = err as Error;
  if (e?.name && e.name !== 'Error' && e.message) return { kind: e.name, message: e.message };
  return { kind: 'internal', message: e?.stack ?? String(err) };
}

export async function main(argv: string[], io: Io = { out: (l) => console.log(l), err: (l) => console.error(l) }): Promise<number> {
  const [name, ...rest] = argv;
  const json = rest.includes('--json');
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(helpText());
    return name ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  try {
    if (!cmd) throw new UsageError(`unknown command "${name}". Run opencoder --help for the list.`);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...COMMON, ...cmd.options }, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError(`${(err as Error).message}\nusage: ${cmd.usage}`);
    }
    if (parsed.values.help) {
      io.out(`${cmd.summary}\nusage: ${cmd.usage}`);
      return 0;
    }
    const result = await cmd.run(parsed as { values: Record<string, unknown>; positionals: string[] }, io);
    if (json) io.out(JSON.stringify(result.json));
    else for (const line of result.text) io.out(line);
    return result.exit ?? 0;
  } catch (err) {
    const d = describeError(err);
    io.err(`error: ${d.message}`);
    if (json) io.out(JSON.stringify({ ok: false, command: name, error: d }));
    return d.kind === 'usage' ? 2 : 1;
  }
}
