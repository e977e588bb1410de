// Commands of the generation layer: generate (one task: retrieval → prompt → candidates with their generation
// uncertainty, tokens and cost), uncertainty-eval (failure-detection AUROC of the uncertainty signals on labelled
// sample sets) and prices (the editable price table).

import fs from 'node:fs';
import path from 'node:path';
import type { EncoderPreference } from '../../../embed/select.ts';
import { findTask, readManifest, type Manifest, type Task } from '../../../benchmarks/manifest.ts';
import { makeConfig, type PipelineConfig } from '../../../model/config.ts';
import { retrieveForTask } from '../../../retrieve/engine.ts';
import type { RetrievalTrace } from '../../../model/trace.ts';
import { ExchangeStore } from '../../../store/exchanges.ts';
import { BACKEND_KINDS, createBackend, type BackendKind, type BackendSpec } from '../../../generate/backends.ts';
import { DEFAULT_PRICES, estimateGeneration, loadPriceTable, writeDefaultPriceTable, type CostEstimate, type PriceTable } from '../../../generate/cost.ts';
import { evaluateSampleSets } from '../../../experiment/eval/uncertainty-eval.ts';
import { generateCandidates, generationRequest, llmDecomposer } from '../../../generate/generate.ts';
import { loadSampleSets } from '../../../generate/imported-backend.ts';
import { promptTemplatesRecord } from '../../../generate/prompts.ts';
import { recordExchanges } from '../../../generate/record.ts';
import { capReplies } from '../../../generate/reply-cap.ts';
import type { CandidateSet, LlmBackend, Provider } from '../../../generate/types.ts';
import { defaultModelsDir, packageRoot, userDataDir } from '../../paths.ts';
import { allowOf, untilInterrupted, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';
import { openEncoderFor, pricesFileIn } from '../../workspace.ts';
import { samplesFileIn } from '../../calls/experiments.ts';
import { GENERATE_SPECS } from './specs.ts';
import { ensureIndexed, openWorkspace, type Workspace } from './retrieve-commands.ts';
import { counts, duration, fixed, usd as fmtUsd } from '../../../model/format.ts';

/** The price table the user edits (created by `opencoder prices --init`; the desktop app's too). */
export function defaultPricesPath(): string {
  return pricesFileIn(userDataDir());
}

/** ../shared/bench next to the checkout, or OPENCODER_BENCH_DIR. */
export function benchDir(): string {
  return process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(packageRoot(), '..', 'shared', 'bench');
}

export const CODEREVAL_CHATGPT_SAMPLES = path.join('codereval', 'experimental-results', 'GenerateResultPython', 'ChatGPT', 'Raw_Input.jsonl_out.jsonl');

const f3 = (x: number | null | undefined) => fixed(x, 3);
const usd = (x: number | null) => fmtUsd(x, 'unknown (no price)');

// ---- generate -------------------------------------------------------------------------------------------------

export function num(values: Record<string, unknown>, key: string, opts: { int?: boolean; min?: number } = {}): number | undefined {
  const raw = values[key];
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v) || (opts.int && !Number.isInteger(v)) || (opts.min !== undefined && v < opts.min)) {
    throw new UsageError(
      `--${key} must be ${opts.int ? 'an integer' : 'a number'}${opts.min !== undefined ? ` ≥ ${opts.min}` : ''}, got ${JSON.stringify(raw)}`,
    );
  }
  return v;
}

function generationConfig(values: Record<string, unknown>): PipelineConfig {
  const candidates = num(values, 'candidates', { int: true, min: 1 });
  const temperature = num(values, 'temperature', { min: 0 });
  const maxTokens = num(values, 'max-tokens', { int: true, min: 1 });
  return makeConfig({
    generation: {
      ...(candidates !== undefined ? { candidates } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(values['baseline-prompt'] ? { uncertaintyGuided: false } : {}),
    },
  });
}

/** What an estimate will spend: dollars for a billed service, time for a model on this machine (which nobody bills). */
export function spendText(est: CostEstimate): string {
  return est.secondsExpected !== undefined && est.secondsMax !== undefined
    ? `time ≈ ${duration(est.secondsExpected * 1000)} (at most ${duration(est.secondsMax * 1000)}) on this machine, not billed`
    : `cost ≈ ${usd(est.usdExpected)} (at most ${usd(est.usdMax)})`;
}

function estimateLine(est: CostEstimate): string {
  const spend = spendText(est);
  return (
    `Estimate before the run: ${est.calls} call(s), ~${est.inputTokens} input tokens, ~${est.outputTokensExpected} output tokens expected ` +
    `(at most ${est.outputTokensMax}); ${spend}. ${est.note}.`
  );
}

function candidateLines(set: CandidateSet): string[] {
  const u = set.uncertainty;
  const lines = [
    `Backend: ${set.backend.label}${set.backend.replayed ? ' — replayed from the store, no network' : ''}`,
    `Prompt: ${set.prompt.version}, ${set.prompt.kind}`,
    '',
  ];
  for (const c of set.candidates) {
    const meta = [
      `group ${c.group + 1}`,
      c.tokens !== null ? `${c.tokens} tokens` : null,
      c.logprobs ? `token entropy ${f3(c.logprobs.normalised)}` : null,
      c.timing
        ? `${(c.timing.wallMs / 1000).toFixed(2)} s${c.timing.tokensPerSecond !== null ? `, ${c.timing.tokensPerSecond.toFixed(1)} tokens/s` : ''}`
        : null,
      c.refused ? 'REFUSED' : null,
      c.extraction.ok ? null : `NO CODE (${c.extraction.note})`,
      c.origin ?? null,
    ].filter(Boolean);
    lines.push(`Candidate ${c.index + 1} [${meta.join('; ')}]`);
    // one push per line: spreading a long reply's lines into one call would overflow the stack
    for (const l of (c.code || c.reply || '(empty reply)').trimEnd().split('\n')) lines.push(`    ${l}`);
    lines.push('');
  }
  lines.push(
    `Generation uncertainty ${f3(u.aggregate)} (weights entropy ${u.weights.entropy} / consistency ${u.weights.consistency} / variance ${u.weights.variance})`,
    `  token entropy     ${f3(u.entropy.value)}  — ${u.entropy.method}`,
    `  self-consistency  ${f3(u.consistency.value)}  — ${u.consistency.method}; groups ${u.groups.map((g) => `{${g.map((i) => i + 1).join(',')}}`).join(' ')}`,
    `  semantic variance ${f3(u.variance.value)}  — ${u.variance.method}`,
    `Tokens: ${set.usage.inputTokens} in, ${set.usage.outputTokens} out (${set.usage.source}); ${set.usage.calls} call(s), ${set.usage.retries} retries; ${(set.latencyMs / 1000).toFixed(2)} s`,
    `Cost: ${usd(set.cost.usd)} — ${set.cost.note}`,
  );
  for (const w of set.warnings) lines.push(`warning: ${w}`);
  return lines;
}

export type RetrieveFn = typeof retrieveForTask;

export interface GenerateDeps {
  /** Retrieval (tests inject a hand-made trace). */
  retrieve?: RetrieveFn;
  env?: NodeJS.ProcessEnv;
  /** Keys handed over by the desktop app (never logged or stored). */
  apiKeys?: { openai?: string; gemini?: string };
}

/** The backend kind and decomposition mode the options ask for (LLM decomposition by default with a language model). */
export function backendChoice(values: Record<string, unknown>): { kind: BackendKind; decompose: 'llm' | 'fallback' } {
  const kind = values.backend as BackendKind;
  if (!BACKEND_KINDS.includes(kind)) throw new UsageError(`--backend must be one of ${BACKEND_KINDS.join(', ')}, got ${JSON.stringify(values.backend)}`);
  const decompose = (values.decompose as string | undefined) ?? (kind === 'openai' || kind === 'gemini' || kind === 'replay' ? 'llm' : 'fallback');
  if (decompose !== 'llm' && decompose !== 'fallback') throw new UsageError('--decompose must be llm or fallback');
  return { kind, decompose };
}

export function pricesOf(values: Record<string, unknown>) {
  return loadPriceTable((values.prices as string | undefined) ?? defaultPricesPath());
}

/** `--max-reply-mib N`: the absolute cap of one reply and of one candidate's text (main/generate/reply-cap.ts), in bytes. */
export function maxReplyBytesOf(values: Record<string, unknown>): number | undefined {
  const mib = num(values, 'max-reply-mib', { min: 0.001 });
  return mib === undefined ? undefined : Math.round(mib * 1024 * 1024);
}

/** The backend spec the options describe (the numbers checked; a kind's spec keeps only the options it uses). */
export function backendSpecOfFlags(values: Record<string, unknown>): BackendSpec {
  const { kind } = backendChoice(values);
  const timeout = num(values, 'timeout', { min: 1 });
  const retries = num(values, 'retries', { int: true, min: 0 });
  const concurrency = num(values, 'concurrency', { int: true, min: 1 });
  const maxReplyBytes = maxReplyBytesOf(values);
  const thinkingBudget = num(values, 'thinking-budget', { int: true, min: -1 });
  const text = (key: string) => (values[key] ? (values[key] as string) : undefined);
  const [model, baseURL, replayRun, replayProvider, samplesFile] = ['model', 'base-url', 'replay-run', 'replay-provider', 'samples'].map(text);
  const modelsDir = text('models');
  const api = {
    ...(model ? { model } : {}),
    ...(baseURL ? { baseURL } : {}),
    reliability: {
      ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}),
      ...(retries !== undefined ? { maxRetries: retries } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(maxReplyBytes !== undefined ? { maxReplyBytes } : {}),
    },
  };
  switch (kind) {
    case 'offline':
      return { kind };
    case 'openai':
      return { kind, ...api };
    case 'gemini':
      return { kind, ...api, ...(thinkingBudget !== undefined ? { thinkingBudget } : {}) };
    case 'replay':
      return {
        kind,
        ...(model ? { model } : {}),
        ...(replayRun ? { replayRun } : {}),
        ...(replayProvider ? { replayProvider: replayProvider as Provider } : {}),
      };
    case 'imported':
      // What the Experiment view's "published samples" takes (a results folder, bigcode, EvalPlus) is taken here too.
      return {
        kind,
        ...(samplesFile ? { samplesFile: samplesFileIn(userDataDir(), samplesFile) } : {}),
        ...(values.extract === true ? { extract: true } : {}),
      };
    case 'llama-cpp': {
      if (!model)
        throw new UsageError(`--backend llama-cpp needs --model FILE.gguf (a path, or a file name in the models folder ${modelsDir ?? defaultModelsDir()})`);
      const threads = num(values, 'threads', { int: true, min: 1 });
      const contextSize = num(values, 'context-size', { int: true, min: 16 });
      return {
        kind,
        model,
        modelsDir: modelsDir ?? defaultModelsDir(),
        ...(threads !== undefined ? { threads } : {}),
        ...(contextSize !== undefined ? { contextSize } : {}),
      };
    }
  }
}

/** The backend the options describe (keys from the desktop app or the environment; never logged or stored). */
export function backendOfFlags(values: Record<string, unknown>, exchanges: ExchangeStore, deps: GenerateDeps, io: Io): LlmBackend {
  return createBackend(backendSpecOfFlags(values), deps.env ?? process.env, {
    exchanges,
    ...(deps.apiKeys ? { apiKeys: deps.apiKeys } : {}),
    onRetry: (m) => io.err(`retry: ${m}`),
  });
}

/** What `opencoder generate` was asked for, its flags read and checked before anything is opened. */
interface GenerateRequest {
  values: Record<string, unknown>;
  manifest: Manifest;
  task: Task;
  config: PipelineConfig;
  decompose: 'llm' | 'fallback';
  prices: PriceTable;
  pricesSource: string;
  estimateOnly: boolean;
  /** Record the exchanges as a generation run (not for a replay, an estimate or --no-record). */
  record: boolean;
  topLogprobs: number | undefined;
  seed: number | undefined;
}

function generateRequest(values: Record<string, unknown>): GenerateRequest {
  if (!values.manifest) throw new UsageError('--manifest FILE is required');
  if (!values.id) throw new UsageError('--id ID is required');
  const { kind, decompose } = backendChoice(values);
  const manifest = readManifest(values.manifest as string, { allow: allowOf(values) });
  const task = findTask(manifest, values.id as string);
  const config = generationConfig(values);
  const { table: prices, source: pricesSource } = pricesOf(values);
  const topLogprobs = num(values, 'top-logprobs', { int: true, min: 0 });
  const seed = num(values, 'seed', { int: true });
  const estimateOnly = values['estimate-only'] === true;
  const record = !estimateOnly && kind !== 'replay' && values['no-record'] !== true;
  return { values, manifest, task, config, decompose, prices, pricesSource, estimateOnly, record, topLogprobs, seed };
}

type TraceSummary = Pick<RetrievalTrace, 'decomposition' | 'sourceUncertainty'> & { steps: number; fused: number };

function traceSummaryOf(trace: RetrievalTrace): TraceSummary {
  return { decomposition: trace.decomposition, steps: trace.steps.length, fused: trace.fused.length, sourceUncertainty: trace.sourceUncertainty };
}

/** Stores the candidate set of a recorded run and closes the run with its usage. */
function finishRecorded(exchanges: ExchangeStore, runId: string, task: Task, trace: TraceSummary, set: CandidateSet) {
  exchanges.saveResult(runId, task.id, 'generate', { trace, set });
  const usage = exchanges.usageOfRun(runId);
  exchanges.finishRun(runId, { tasks: 1, usage });
  return { id: runId, usage };
}

/** Retrieval for the task, the estimate, then (unless only the estimate was asked for) the candidates. */
async function generateTask(
  ws: Workspace,
  req: GenerateRequest,
  deps: GenerateDeps,
  retrieve: RetrieveFn,
  io: Io,
  signal: AbortSignal,
): Promise<CommandResult> {
  const { task, config, prices, pricesSource } = req;
  const exchanges = ws.store.exchanges;
  const backend = backendOfFlags(req.values, exchanges, deps, io);
  const runId = req.record
    ? exchanges.beginRun({
        backend: backend.id,
        provider: backend.provider,
        model: backend.model,
        prompts: promptTemplatesRecord(),
        config,
        manifestHash: req.manifest.hash,
      })
    : undefined;
  // Every candidate text is held to its cap (reply-cap.ts), recorded or not: nothing over it is stored or printed.
  const maxReplyBytes = maxReplyBytesOf(req.values);
  const llm = runId ? recordExchanges(backend, exchanges, { runId, prices, maxReplyBytes }) : capReplies(backend, { absoluteBytes: maxReplyBytes });

  const repos = await ensureIndexed(ws, [task], io, req.values.quiet === true);
  const decomposer = req.decompose === 'llm' && !req.estimateOnly ? llmDecomposer(llm, { taskId: task.id, signal, ...(runId ? { runId } : {}) }) : undefined;
  const trace = await retrieve({
    store: ws.store,
    encoder: ws.encoder,
    repoId: repos.get(task.repoPath)!,
    task,
    config,
    ...(decomposer ? { decomposer } : {}),
  });

  const { request } = generationRequest(task, trace, { config });
  const speed = backend.localSpeed?.();
  const estimate = estimateGeneration(
    { messages: request.messages, n: request.n, maxTokens: request.maxTokens, nativeN: backend.capabilities.nativeN, ...(speed ? { speed } : {}) },
    backend.model,
    backend.billing,
    prices,
  );
  const traceSummary = traceSummaryOf(trace);
  const header = [
    `Task ${task.id} — ${backend.label}`,
    `Retrieval: ${trace.steps.length} steps (${trace.decomposition}), ${trace.fused.length} fused items; ū_A ${f3(trace.sourceUncertainty.api)}, ū_X ${f3(trace.sourceUncertainty.context)}, ū_S ${f3(trace.sourceUncertainty.similar)}`,
    `Prices: ${pricesSource}`,
  ];
  if (req.estimateOnly) {
    return {
      text: [...header, estimateLine(estimate)],
      json: { ok: true, command: 'generate', task: task.id, backend: backend.id, estimate, trace: traceSummary, prices: pricesSource },
    };
  }
  io.err(estimateLine(estimate)); // before any token is spent, even with --quiet

  const set = await generateCandidates(task, trace, {
    backend: llm,
    config,
    encoder: ws.encoder,
    prices,
    signal,
    ...(runId ? { runId } : {}),
    ...(req.topLogprobs !== undefined ? { topLogprobs: req.topLogprobs } : {}),
    ...(req.seed !== undefined ? { seed: req.seed } : {}),
  });
  const run = runId ? finishRecorded(exchanges, runId, task, traceSummary, set) : null;
  const text = [
    ...header,
    ...(runId ? [`Run: ${runId} (recorded; replay with --backend replay --replay-run ${runId})`] : []),
    estimateLine(estimate),
    '',
    ...candidateLines(set),
  ];
  if (run)
    text.push(
      `Run total: ${run.usage.calls} call(s) (${run.usage.errors} failed), ${run.usage.inputTokens} in / ${run.usage.outputTokens} out, ${usd(run.usage.costUsd)}`,
    );
  return {
    text,
    json: {
      ok: true,
      command: 'generate',
      task: task.id,
      manifestHash: req.manifest.hash,
      backend: backend.id,
      run,
      estimate,
      trace: traceSummary,
      result: set,
      prices: pricesSource,
    },
  };
}

/** `opencoder generate`: retrieval for the task, then candidates with their uncertainty, tokens and cost. */
export function makeGenerateCommand(deps: GenerateDeps = {}): Command {
  const retrieve = deps.retrieve ?? retrieveForTask;
  return {
    ...GENERATE_SPECS.generate,
    async run({ values }, io: Io): Promise<CommandResult> {
      const req = generateRequest(values);
      const ws = await openWorkspace(values, io);
      try {
        return await untilInterrupted(io, 'cancelling… (recorded exchanges are kept)', (signal) => generateTask(ws, req, deps, retrieve, io, signal));
      } finally {
        await ws.close();
      }
    },
  };
}

export const GENERATE_COMMAND: Command = makeGenerateCommand();

// ---- uncertainty-eval, prices --------------------------------------------------------------------------------

export const GENERATE_COMMANDS: Record<string, Command> = {
  generate: GENERATE_COMMAND,
  'uncertainty-eval': {
    ...GENERATE_SPECS['uncertainty-eval'],
    async run({ values }, io) {
      const file = (values.samples as string | undefined) ?? path.join(benchDir(), CODEREVAL_CHATGPT_SAMPLES);
      if (!fs.existsSync(file)) {
        throw new UsageError(
          `No sample file at ${file}. Pass --samples FILE (JSONL: CoderEval's Raw_Input.jsonl_out.jsonl, or {task_id, samples: [{code, passed}]} lines), ` +
            'or set OPENCODER_BENCH_DIR to the folder holding codereval/.',
        );
      }
      const sets = loadSampleSets(file);
      const { encoder, notice } = await openEncoderFor(values.encoder as EncoderPreference, (values.models as string | undefined) ?? defaultModelsDir());
      if (notice) io.err(`note: ${notice}`);
      try {
        const res = await evaluateSampleSets(sets, {
          encoder,
          weights: makeConfig().generation.uncertaintyWeights,
          ...(values.python ? { python: { python: values.python as string } } : {}),
        });
        const text = [
          `Samples: ${file}`,
          `Protocol: ${res.protocol}`,
          `Tasks: ${res.tasks} (${res.skipped} without labels skipped), samples per task ${res.samplesPerTask.join('/')}; first sample fails in ${res.positives} (${f3(res.positives / res.tasks)} — the AUPRC of a random score)`,
          `Normalisation of ${Object.values(res.normalisation).reduce((a, b) => a + b, 0)} samples: ${counts(res.normalisation, '')}; encoder ${res.encoder}`,
          'Token entropy needs log-probabilities, which these samples lack: group entropy stands in for it.',
          '',
          `${'signal'.padEnd(64)} AUROC   AUPRC`,
          ...res.signals.map((s) => `${s.signal.padEnd(64)} ${f3(s.auroc)}   ${f3(s.auprc)}`),
          '',
          `ECE of the aggregate read as P(first sample fails), 10 bins: ${f3(res.aggregateEce)} (uncalibrated)`,
          ...res.notes.map((n) => `note: ${n}`),
        ];
        if (values['per-task']) {
          text.push('', 'task                       n  groups  consistency  variance  aggregate  first-fails  pass-rate');
          for (const t of res.perTask) {
            text.push(
              `${t.taskId.padEnd(26)} ${String(t.n).padStart(2)}  ${String(t.groups).padStart(6)}  ${f3(t.consistency).padStart(11)}  ${f3(t.variance).padStart(8)}  ${f3(t.aggregate).padStart(9)}  ${String(t.firstFailed).padStart(11)}  ${f3(t.passRate).padStart(9)}`,
            );
          }
        }
        const { perTask, ...summary } = res;
        return { text, json: { ok: true, command: 'uncertainty-eval', samples: file, ...summary, ...(values['per-task'] ? { perTask } : {}) } };
      } finally {
        await encoder.dispose();
      }
    },
  },
  prices: {
    ...GENERATE_SPECS.prices,
    async run({ values }) {
      const file = (values.prices as string | undefined) ?? defaultPricesPath();
      const text: string[] = [];
      if (values.init) {
        writeDefaultPriceTable(file);
        text.push(`Wrote the default price table to ${file}; edit it to change prices or add models.`);
      }
      const { table, source } = loadPriceTable(file);
      text.push(`Price table: ${source}${source === 'built-in defaults' ? ` (run opencoder prices --init to write ${file} and edit it)` : ''}`, '');
      text.push(`${'model'.padEnd(24)} ${'in $/M'.padStart(8)} ${'out $/M'.padStart(8)}  as of       source`);
      for (const [model, p] of Object.entries(table.models)) {
        text.push(
          `${model.padEnd(24)} ${p.inputPerMTok.toFixed(3).padStart(8)} ${p.outputPerMTok.toFixed(3).padStart(8)}  ${p.asOf}  ${p.source ?? ''}${p.note ? ` (${p.note})` : ''}`,
        );
      }
      text.push(
        '',
        'Local servers (a base URL on this machine or a private network), models run in process (llama-cpp) and no model (the retrieval-only baseline) cost 0 unless priced here.',
      );
      return { text, json: { ok: true, command: 'prices', source, table, defaults: table === DEFAULT_PRICES } };
    },
  },
};
