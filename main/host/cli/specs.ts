// What `opencoder --help` and the argument parser need of every command: its summary, usage and flags, grouped
// as the command files beside this one implement them. The registry lists these and loads a command's file only
// to run it, so this file imports nothing heavy: only constants (pipeline/methods.ts is plain data over
// model/config.ts) and types.

import type { ParseArgsConfig } from 'node:util';
import { GENERATION_PRESETS, METHODS } from '../../pipeline/methods.ts';
import type { CommandSpec } from './kit.ts';

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

/** Options that choose and tune an LLM backend (generate, run, ablate). */
export const BACKEND_OPTS = {
  backend: { type: 'string', default: 'offline' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  samples: { type: 'string' },
  extract: { type: 'boolean' },
  'replay-run': { type: 'string' },
  'replay-provider': { type: 'string' },
  prices: { type: 'string' },
  'thinking-budget': { type: 'string' },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  concurrency: { type: 'string' },
  'max-reply-mib': { type: 'string' },
  decompose: { type: 'string' },
  // llama-cpp (the model file is --model, the folder a bare file name is looked up in is --models)
  threads: { type: 'string' },
  'context-size': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const GENERATE_OPTS = {
  ...ENCODER_OPTS,
  ...BACKEND_OPTS,
  manifest: { type: 'string' },
  id: { type: 'string' },
  candidates: { type: 'string' },
  temperature: { type: 'string' },
  'max-tokens': { type: 'string' },
  'top-logprobs': { type: 'string' },
  seed: { type: 'string' },
  'baseline-prompt': { type: 'boolean', default: false },
  'no-record': { type: 'boolean', default: false },
  'estimate-only': { type: 'boolean', default: false },
} as const satisfies ParseArgsConfig['options'];

const MANIFEST_OPTS = {
  ...ENCODER_OPTS,
  manifest: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const RUN_OPTS = {
  ...ENCODER_OPTS,
  ...BACKEND_OPTS,
  manifest: { type: 'string' },
  ids: { type: 'string' },
  limit: { type: 'string' },
  resume: { type: 'string' },
  parallel: { type: 'string' },
  sandbox: { type: 'string', default: 'auto' },
  'validator-workers': { type: 'string' },
  'estimate-only': { type: 'boolean', default: false },
  'max-usd': { type: 'string' },
  candidates: { type: 'string' },
  temperature: { type: 'string' },
  preset: { type: 'string' },
  'factorial-test': { type: 'string' },
  'unverified-output': { type: 'string' },
  'after-failed-repairs': { type: 'string' },
  queue: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const REPORT_OPTS = {
  'factorial-test': { type: 'string' },
  format: { type: 'string', default: 'html' },
  out: { type: 'string' },
  resamples: { type: 'string' },
  seed: { type: 'string' },
  title: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const SERVE_OPTS = {
  port: { type: 'string' },
  allow: { type: 'string', multiple: true },
  'no-demo': { type: 'boolean', default: false },
  renderer: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

const PRESETS = Object.keys(GENERATION_PRESETS).join('|');

export const INDEX_SPECS = {
  index: {
    summary: 'index (or incrementally refresh) a repository folder',
    usage:
      'opencoder index <folder> [--include PATH_OR_GLOB]… [--drop-include PATTERN]… [--encoder auto|default|unixcoder] [--models DIR] [--rebuild-db] [--quiet]',
    options: { ...ENCODER_OPTS, ...INCLUDE_OPTS },
  },
  demo: {
    summary: 'index the bundled sample repository and show what was found',
    usage: 'opencoder demo [--encoder …]',
    options: ENCODER_OPTS,
  },
} satisfies Record<string, CommandSpec>;

export const MINE_SPECS = {
  mine: {
    summary: 'mine a checked, frozen benchmark from a repository folder and its own tests (no model needed)',
    usage:
      'opencoder mine <folder> --out DIR [--test-command CMD] [--python PATH] [--include GLOB]… [--limit N] [--min-doc-words N] [--seed N] [--mutants N] [--max-tests N] [--per-test-timeout S] [--suite-timeout S] [--sandbox auto|strong|weak] [--no-leak-audit] [--json]',
    options: {
      ...ENCODER_OPTS,
      out: { type: 'string' },
      'test-command': { type: 'string' },
      python: { type: 'string' },
      include: { type: 'string', multiple: true },
      limit: { type: 'string' },
      'min-doc-words': { type: 'string' },
      seed: { type: 'string' },
      mutants: { type: 'string' },
      'max-tests': { type: 'string' },
      'per-test-timeout': { type: 'string' },
      'suite-timeout': { type: 'string' },
      sandbox: { type: 'string', default: 'auto' },
      'no-leak-audit': { type: 'boolean', default: false },
    },
  },
} satisfies Record<string, CommandSpec>;

export const STATUS_SPECS = {
  status: {
    summary: 'show the repositories in the database and their index state',
    usage: 'opencoder status',
    options: {},
  },
} satisfies Record<string, CommandSpec>;

export const IMPORT_SPECS = {
  import: {
    summary: 'import a benchmark: materialise its repositories and write a task manifest',
    usage: [
      'opencoder import repoexec <bench folder> [--out <dir>] [--subset NAME] [--quiet]',
      'opencoder import codereval <bench/codereval folder> [--out <dir>] [--records FILE] [--templates DIR] [--docstrings raw|human] [--quiet]',
      'opencoder import execrepobench <records.jsonl> [--out <dir>] [--quiet]',
      '(without --out: <user data folder>/benchmarks/<name>[-<subset>], never the current folder)',
    ].join('\n             '),
    options: {
      out: { type: 'string' },
      subset: { type: 'string' },
      records: { type: 'string' },
      templates: { type: 'string' },
      docstrings: { type: 'string' },
      quiet: { type: 'boolean', short: 'q', default: false },
    },
  },
} satisfies Record<string, CommandSpec>;

export const RETRIEVE_SPECS = {
  retrieve: {
    summary: 'retrieve, score and fuse the evidence for one task of a manifest',
    usage: 'opencoder retrieve --manifest FILE --id ID [--no-refine] [--leak-policy drop|flag|off] [--encoder …]',
    options: { ...MANIFEST_OPTS, id: { type: 'string' }, 'no-refine': { type: 'boolean', default: false }, 'leak-policy': { type: 'string' } },
  },
  'eval-api': {
    summary: 'API-retrieval quality under both protocols (task-view, repository): P / R / F1, exact match, count reliability, uncertainty AUROC / ECE',
    usage: 'opencoder eval-api --manifest FILE [--protocol repository|task-view] [--scope kept|retrieved|fused] [--ids A,B,…] [--no-refine] [--encoder …]',
    options: {
      ...MANIFEST_OPTS,
      ids: { type: 'string' },
      'no-refine': { type: 'boolean', default: false },
      protocol: { type: 'string', default: 'repository' },
      scope: { type: 'string', default: 'kept' },
    },
  },
} satisfies Record<string, CommandSpec>;

export const GENERATE_SPECS = {
  generate: {
    summary: 'generate candidates for one task, with their generation uncertainty, tokens and cost',
    usage:
      'opencoder generate --manifest FILE --id ID --backend offline|openai|gemini|replay|imported|llama-cpp [--model M] [--base-url URL] ' +
      '[--models DIR] [--threads N] [--context-size N] ' +
      '[--samples FILE] [--replay-run RUN] [--candidates N] [--temperature T] [--max-tokens N] [--max-reply-mib N] [--baseline-prompt] [--estimate-only] ' +
      '[--no-record] [--prices FILE]',
    options: GENERATE_OPTS,
  },
  'uncertainty-eval': {
    summary: 'failure-detection AUROC / AUPRC of the generation-uncertainty signals on labelled sample sets (default: CoderEval ChatGPT)',
    usage: 'opencoder uncertainty-eval [--samples FILE] [--encoder default|auto|unixcoder] [--python PATH] [--per-task]',
    options: {
      samples: { type: 'string' },
      encoder: { type: 'string', default: 'default' },
      models: { type: 'string' },
      python: { type: 'string' },
      'per-task': { type: 'boolean', default: false },
    },
  },
  prices: {
    summary: 'show the price table used for cost figures (--init writes the defaults to edit)',
    usage: 'opencoder prices [--prices FILE] [--init]',
    options: { prices: { type: 'string' }, init: { type: 'boolean', default: false } },
  },
} satisfies Record<string, CommandSpec>;

export const MODELS_SPECS = {
  models: {
    summary: 'list the models this machine can use: GGUF files, local servers (Ollama, llama.cpp, LM Studio, vLLM) and hosted providers',
    usage: 'opencoder models [--models DIR] [--port N …] [--timeout MS] [--json]',
    options: {
      models: { type: 'string' },
      port: { type: 'string', multiple: true },
      timeout: { type: 'string' },
    },
  },
} satisfies Record<string, CommandSpec>;

export const VALIDATE_SPECS = {
  validate: {
    summary: "run a candidate (or the task's reference) against the task's tests in the sandbox",
    usage: 'opencoder validate --manifest FILE --id ID (--candidate FILE | --reference) [--sandbox auto|strong|weak] [--timeout-ms N]',
    options: {
      manifest: { type: 'string' },
      id: { type: 'string' },
      candidate: { type: 'string' },
      reference: { type: 'boolean', default: false },
      sandbox: { type: 'string', default: 'auto' },
      'timeout-ms': { type: 'string' },
    },
  },
} satisfies Record<string, CommandSpec>;

export const EXPERIMENT_SPECS = {
  run: {
    summary: 'run methods on a frozen task manifest (stored after every task; resumable)',
    usage:
      'opencoder run --manifest FILE [--ids A,B | --limit N] [--method compare|opencoder,baseline-rag,…] [--backend offline|openai|gemini|…] ' +
      `[--candidates N] [--temperature T] [--preset ${PRESETS}] [--unverified-output mode|first] [--after-failed-repairs last|most-tests] [--parallel N] [--sandbox auto|strong|weak] [--estimate-only] [--max-usd X] [--queue redis://HOST:PORT] | opencoder run --resume RUN [--queue URL]`,
    options: { ...RUN_OPTS, method: { type: 'string', default: 'compare' } },
  },
  ablate: {
    summary: 'the 2³ factorial over API / context / similar-code evidence (or --ladder: components added in turn)',
    usage: `opencoder ablate --manifest FILE [--ids …] [--ladder] [--base ${Object.keys(METHODS).join('|')}] [--backend …] [--candidates N] [--temperature T] [--preset ${PRESETS}] | opencoder ablate --resume RUN`,
    options: { ...RUN_OPTS, ladder: { type: 'boolean', default: false }, base: { type: 'string', default: 'opencoder' } },
  },
  worker: {
    summary: 'take (task, condition) jobs of queued runs from Redis and run them here (see docs/queue.md)',
    usage:
      'opencoder worker --queue redis://[:PASSWORD@]HOST:PORT[/DB] [--concurrency N] [--rate-limit MAX/PERIOD] [--backends KIND,…] [--cache DIR] [--validator-workers N] [--lock-ms MS] [--encoder …]',
    options: {
      ...ENCODER_OPTS,
      queue: { type: 'string' },
      concurrency: { type: 'string' },
      'rate-limit': { type: 'string' },
      backends: { type: 'string' },
      cache: { type: 'string' },
      'validator-workers': { type: 'string' },
      'lock-ms': { type: 'string' },
      prices: { type: 'string' },
    },
  },
  report: {
    summary: 'export a run (or several, compared) as HTML, Markdown, JSON or CSV, from the store',
    usage: 'opencoder report RUN [RUN…] --format html|md|json|csv --out FILE [--resamples N] [--seed N] [--factorial-test t-test|sign-flip] [--title T]',
    options: REPORT_OPTS,
  },
  compare: {
    summary: 'compare two runs task by task (paired): W/L/T, exact McNemar, bootstrap differences',
    usage: 'opencoder compare RUN_A RUN_B [--resamples N] [--seed N]',
    options: { resamples: { type: 'string' }, seed: { type: 'string' }, 'factorial-test': { type: 'string' } },
  },
  runs: {
    summary: 'list experiment runs (label, task or manifest, methods, backend, created, status), or rename one',
    usage: 'opencoder runs [--rename RUN_ID --label TEXT]',
    options: { rename: { type: 'string' }, label: { type: 'string' } },
  },
} satisfies Record<string, CommandSpec>;

/** The published sample formats `samples import --format` takes (benchmarks/samples.ts SAMPLE_FORMATS; a test keeps them equal). */
export const SAMPLE_FORMAT_NAMES = ['repoexec', 'codereval', 'bigcode', 'evalplus'];

export const SAMPLES_SPECS = {
  samples: {
    summary: 'import a published sample set (RepoExec, CoderEval, bigcode-evaluation-harness, EvalPlus) as data',
    usage: `opencoder samples import FILE|DIR [--format auto|${SAMPLE_FORMAT_NAMES.join('|')}] [--index-map FILE] --out SET.jsonl`,
    options: { format: { type: 'string' }, out: { type: 'string' }, 'index-map': { type: 'string' } },
  },
  passk: {
    summary: 'Pass@k of a sample set from its official labels (per task and overall)',
    usage:
      'opencoder passk SET|FILE|DIR [--k 1,5,10] [--k-over-n refuse|humaneval] [--format …] [--json]\n' +
      '       opencoder passk SET --labels executed --manifest FILE [--extract] [--limit N] [--sandbox auto|strong|weak]',
    options: {
      k: { type: 'string', default: '1,5,10' },
      labels: { type: 'string', default: 'official' },
      'k-over-n': { type: 'string', default: 'refuse' },
      format: { type: 'string' },
      'index-map': { type: 'string' },
      manifest: { type: 'string' },
      extract: { type: 'boolean' },
      limit: { type: 'string' },
      sandbox: { type: 'string', default: 'auto' },
      quiet: { type: 'boolean', default: false },
    },
  },
} satisfies Record<string, CommandSpec>;

export const APP_SPECS = {
  serve: {
    summary: 'browser mode: the desktop app on http://127.0.0.1 (prints the address and the token)',
    usage: 'opencoder serve [--port N] [--db FILE] [--json] [--allow DIR]… [--no-demo] [--renderer DIR]',
    options: SERVE_OPTS,
  },
  start: {
    summary: 'start the desktop app (Electron), or browser mode when Electron cannot run here',
    usage: 'opencoder start [--db FILE] [--port N] [--allow DIR]… [--no-demo] [--json]',
    options: SERVE_OPTS,
  },
} satisfies Record<string, CommandSpec>;
