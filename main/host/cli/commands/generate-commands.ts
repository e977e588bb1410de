// Commands of the generation layer: generate (one task: retrieval → prompt → candidates with their generation
// uncertainty, tokens and cost), uncertainty-eval (failure-detection AUROC of the uncertainty signals on labelled
// sample sets) and prices (the editable price table). Flags become typed values in ../flags.ts; the words are in
// ../text/.

import fs from 'node:fs';
import path from 'node:path';
import { readManifest } from '../../../benchmarks/manifest-file.ts';
import { findTask, type Manifest } from '../../../model/manifest.ts';
import type { Task } from '../../../model/task.ts';
import { makeConfig, type PipelineConfig } from '../../../model/config.ts';
import { retrieveForTask } from '../../../retrieve/engine.ts';
import type { RetrievalTrace } from '../../../model/trace.ts';
import type { ExchangeStore } from '../../../store/exchanges.ts';
import { DEFAULT_PRICES, estimateGeneration, loadPriceTable, writeDefaultPriceTable, type PriceTable } from '../../../generate/cost.ts';
import { evaluateSampleSets } from '../../../experiment/eval/uncertainty-eval.ts';
import { generateCandidates, generationRequest, llmDecomposer } from '../../../generate/generate.ts';
import { loadSampleSets } from '../../../generate/imported-backend.ts';
import { promptTemplatesRecord } from '../../../generate/prompts.ts';
import { recordExchanges } from '../../../generate/record.ts';
import { capReplies } from '../../../generate/reply-cap.ts';
import type { CandidateSet } from '../../../generate/types.ts';
import { defaultDecompose, type BackendSpec, type Decompose } from '../../../model/backend-spec.ts';
import { normalizedSpec } from '../../ops/backend.ts';
import { defaultModelsDir, packageRoot, userDataDir } from '../../paths.ts';
import { openEncoderFor } from '../../workspace.ts';
import { indexTasks, openEngineFor } from '../engine.ts';
import { allowOf, untilInterrupted, UsageError, type Command, type CommandResult, type Io } from '../kit.ts';
import { backendOfFlags, cliBackend, decomposeOf, defaultPricesPath, num, pricesOf, type BackendDeps, type Flags } from '../flags.ts';
import { candidateLines, estimateLine } from '../text/generate-text.ts';
import { priceTableLines, uncertaintyEvalLines } from '../text/eval-text.ts';
import { GENERATE_SPECS } from '../specs.ts';
import type { EngineCore } from '../../workspace.ts';
import { fixed, usd as fmtUsd } from '../../../model/format.ts';

/** ../shared/bench next to the checkout, or OPENCODER_BENCH_DIR. */
export function benchDir(): string {
  return process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(packageRoot(), '..', 'shared', 'bench');
}

export const CODEREVAL_CHATGPT_SAMPLES = path.join('codereval', 'experimental-results', 'GenerateResultPython', 'ChatGPT', 'Raw_Input.jsonl_out.jsonl');

const f3 = (x: number | null | undefined) => fixed(x, 3);
const usd = (x: number | null) => fmtUsd(x, 'unknown (no price)');

export type RetrieveFn = typeof retrieveForTask;

export interface GenerateDeps extends BackendDeps {
  /** Retrieval (tests inject a hand-made trace). */
  retrieve?: RetrieveFn;
}

/** What `opencoder generate` was asked for, its flags read and checked before anything is opened. */
interface GenerateRequest {
  values: Flags;
  manifest: Manifest;
  task: Task;
  backend: BackendSpec;
  config: PipelineConfig;
  decompose: Decompose;
  prices: PriceTable;
  pricesSource: string;
  estimateOnly: boolean;
  /** Record the exchanges as a generation run (not for a replay, an estimate or --no-record). */
  record: boolean;
  topLogprobs: number | undefined;
  seed: number | undefined;
}

function generateRequest(values: Flags): GenerateRequest {
  if (!values.manifest) throw new UsageError('--manifest FILE is required');
  if (!values.id) throw new UsageError('--id ID is required');
  const backend = normalizedSpec(backendOfFlags(values), userDataDir());
  const manifest = readManifest(values.manifest as string, { allow: allowOf(values) });
  const task = findTask(manifest, values.id as string);
  const candidates = num(values, 'candidates', { int: true, min: 1 });
  const temperature = num(values, 'temperature', { min: 0 });
  const maxTokens = num(values, 'max-tokens', { int: true, min: 1 });
  const config = makeConfig({
    generation: {
      ...(candidates !== undefined ? { candidates } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(values['baseline-prompt'] ? { uncertaintyGuided: false } : {}),
    },
  });
  const { table: prices, source: pricesSource } = pricesOf(values);
  const estimateOnly = values['estimate-only'] === true;
  return {
    values,
    manifest,
    task,
    backend,
    config,
    decompose: decomposeOf(values) ?? defaultDecompose(backend.kind),
    prices,
    pricesSource,
    estimateOnly,
    record: !estimateOnly && backend.kind !== 'replay' && values['no-record'] !== true,
    topLogprobs: num(values, 'top-logprobs', { int: true, min: 0 }),
    seed: num(values, 'seed', { int: true }),
  };
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
  ws: EngineCore,
  req: GenerateRequest,
  deps: GenerateDeps,
  retrieve: RetrieveFn,
  io: Io,
  signal: AbortSignal,
): Promise<CommandResult> {
  const { task, config, prices, pricesSource } = req;
  const exchanges = ws.store.exchanges;
  const backend = cliBackend(req.backend, exchanges, deps, io);
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
  const maxReplyBytes = req.backend.kind === 'openai' || req.backend.kind === 'gemini' ? req.backend.reliability?.maxReplyBytes : undefined;
  const llm = runId ? recordExchanges(backend, exchanges, { runId, prices, maxReplyBytes }) : capReplies(backend, { absoluteBytes: maxReplyBytes });

  const repos = await indexTasks(ws, [task], io, req.values.quiet === true);
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
      const ws = await openEngineFor(values, io);
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
      const { encoder, notice } = await openEncoderFor(
        values.encoder as Parameters<typeof openEncoderFor>[0],
        (values.models as string | undefined) ?? defaultModelsDir(),
      );
      if (notice) io.err(`note: ${notice}`);
      try {
        const res = await evaluateSampleSets(sets, {
          encoder,
          weights: makeConfig().generation.uncertaintyWeights,
          ...(values.python ? { python: { python: values.python as string } } : {}),
        });
        const text = uncertaintyEvalLines(file, res, values['per-task'] === true);
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
      text.push(...priceTableLines(file, table, source));
      return { text, json: { ok: true, command: 'prices', source, table, defaults: table === DEFAULT_PRICES } };
    },
  },
};
