// runTask's own decisions, with scripted services: a tiny repository indexed with the fake encoder, a backend
// that answers generation and repair requests from a script (and records them), and a validator that decides
// pass or fail from the code alone (no sandbox). Covers selection (earliest passing, not the mode), the repair
// loop (only when nothing passes, at most the configured rounds, fed the failing feedback), Baseline RAG's
// unvalidated output, backend and decomposer errors, the evidence sources the stored result names, and how much
// detail it keeps.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConfig } from '../../main/model/config.ts';
import type { Task } from '../../main/model/task.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { LlmError } from '../../main/generate/errors.ts';
import type { ChatChoice, ChatRequest, ChatResponse, LlmBackend } from '../../main/generate/types.ts';
import { runIndex } from '../../main/index/indexer.ts';
import { factorialConditions, METHODS, type Condition } from '../../main/pipeline/methods.ts';
import { runTask, TaskRunError, type TaskServices } from '../../main/pipeline/run-task.ts';
import { evaluateRunApis } from '../../main/experiment/eval/api-score.ts';
import type { Decomposer } from '../../main/retrieve/decompose.ts';
import { Store } from '../../main/store/store.ts';
import type { Validator } from '../../main/validate/validator.ts';
import { fakeEncoder } from '../helpers/fake-encoder.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

const REPO_FILES: Record<string, string> = {
  'calc/__init__.py': '',
  'calc/ops.py': [
    '"""Money helpers shared by the pricing code."""',
    '',
    'TAX_PRECISION = 2',
    '',
    '',
    'def round_money(value):',
    '    """Round a money amount to cents."""',
    '    return round(value, TAX_PRECISION)',
    '',
    '',
    'def percent(rate):',
    '    """Turn a rate like 0.2 into the percentage 20."""',
    '    return rate * 100',
    '',
  ].join('\n'),
  'calc/tax.py': [
    '"""Tax arithmetic on prices."""',
    '',
    'from calc.ops import round_money',
    '',
    '',
    'def add_tax(price, rate):',
    '    """Return the price with tax at the given rate added, rounded to cents."""',
    '    return round_money(price * (1 + rate))',
    '',
    '',
    'def add_discount(price, discount):',
    '    """Return the price with a discount rate taken off, rounded to cents."""',
    '    return round_money(price * (1 - discount))',
    '',
  ].join('\n'),
  'calc/shipping.py': [
    '"""Shipping fees."""',
    '',
    'from calc.ops import round_money',
    '',
    '',
    'def add_fee(price, fee):',
    '    """Return the price with a flat shipping fee added, rounded to cents."""',
    '    return round_money(price + fee)',
    '',
  ].join('\n'),
};

const def = (body: string) => `def add_tax(price, rate):\n    return ${body}\n`;
// Two different passing programs and three different failing ones (distinct after normalisation).
const GOOD_A = def('round_money(price * (1 + rate))');
const GOOD_B = def('round_money(price + price * rate)');
const BAD_1 = def('price');
const BAD_2 = def('price * rate');
const BAD_3 = def('rate');
const PASSING = new Set([GOOD_A, GOOD_B]);
/** What the failing test says about a wrong candidate: names its return expression, so a prompt can be traced to it. */
const failureOf = (code: string) => `AssertionError: add_tax(100, 0.2) gave <${code.split('return ')[1]!.trim()}>`;

let dir: string;
let store: Store;
let repoPath: string;
let repoId: number;
const encoder = fakeEncoder('fake-run-task@1', 16);

function task(extra: Partial<Task> = {}): Task {
  return {
    id: 'calc/add_tax',
    repo: '.',
    repoPath,
    file: 'calc/tax.py',
    qualname: 'add_tax',
    requirement: 'Return the price with tax at the given rate added. Round the result to cents with the shared money helper.',
    signature: 'def add_tax(price, rate):',
    test_command: 'python -m pytest -q tests',
    ...extra,
  };
}

// ---- a scripted backend ---------------------------------------------------------------------------------------

interface Script {
  /** Generation replies' code, in order (each becomes one fenced reply). */
  candidates: string[];
  /** Mean log-probability per candidate (default none): lets a later candidate look more confident. */
  logprobs?: number[];
  /** One entry per repair call: code to answer with, or an error to throw. */
  repairs?: (string | Error)[];
  /** Thrown by the generation call. */
  generateError?: Error;
  /** Capabilities.repair (default true). */
  canRepair?: boolean;
}

interface ScriptedBackend extends LlmBackend {
  requests: ChatRequest[];
  calls(purpose: 'generate' | 'repair'): ChatRequest[];
}

const fence = (code: string) => `Here is the function.\n\n\`\`\`python\n${code}\`\`\`\n`;

function choice(index: number, code: string, logprob?: number): ChatChoice {
  return { index, text: fence(code), finishReason: 'stop', logprobs: logprob === undefined ? null : [{ token: 'x', logprob, top: [] }] };
}

function scriptedBackend(script: Script): ScriptedBackend {
  const requests: ChatRequest[] = [];
  const repairs = [...(script.repairs ?? [])];
  const respond = (choices: ChatChoice[]): ChatResponse => ({
    provider: 'openai',
    billing: 'local',
    model: 'scripted',
    choices,
    usage: { inputTokens: 100, outputTokens: 7, source: 'reported' },
    calls: 1,
    retries: 0,
    latencyMs: 1,
    warnings: [],
  });
  return {
    id: 'scripted:test',
    provider: 'openai',
    model: 'scripted',
    label: 'scripted test backend',
    billing: 'local',
    capabilities: { nativeN: true, logprobs: true, jsonSchema: false, network: false, repair: script.canRepair ?? true },
    requests,
    calls: (purpose) => requests.filter((r) => r.grounding?.purpose === purpose),
    async chat(req) {
      requests.push(req);
      if (req.grounding?.purpose === 'repair') {
        const next = repairs.shift();
        if (next === undefined) throw new Error('the script has no more repairs');
        if (next instanceof Error) throw next;
        return respond([choice(0, next)]);
      }
      if (script.generateError) throw script.generateError;
      return respond(script.candidates.slice(0, req.n).map((c, i) => choice(i, c, script.logprobs?.[i])));
    },
  };
}

// ---- a validator that decides from the code alone ---------------------------------------------------------------

interface ScriptedValidator {
  validator: Validator;
  /** Every code validated, in call order. */
  seen: string[];
  /** Runs cancelled through their signal. */
  aborted: { count: number };
}

function verdict(code: string): Verdict {
  const passed = PASSING.has(code);
  return {
    taskId: 'calc/add_tax',
    status: passed ? 'passed' : 'failed',
    reason: passed ? 'all 1 tests passed' : '1 of 1 tests failed',
    findings: [],
    tests: [{ id: 'tests/test_tax.py::test_add_tax', outcome: passed ? 'passed' : 'failed', expected: true, ...(passed ? {} : { message: failureOf(code) }) }],
    expectedTests: ['tests/test_tax.py::test_add_tax'],
    durationMs: 1,
    timeoutMs: 10_000,
    peakMemoryBytes: null,
    sandbox: { strength: 'weak', label: 'scripted (no sandbox)', events: [] },
    exit: { code: passed ? 0 : 1, signal: null },
    stdout: '',
    stderr: '',
    cached: false,
    expectedFrom: 'task',
    target: null,
    environment: null,
    flaky: null,
  };
}

/** Waits `ms`, or rejects with an AbortError (as the real validator does) when the signal fires first. */
function pause(ms: number, signal: AbortSignal | undefined, onAbort: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      onAbort();
      reject(Object.assign(new Error('cancelled'), { name: 'AbortError' }));
    });
  });
}

/** `slow` codes take a moment and give up when their signal fires, so that selection can cancel them. */
function scriptedValidator(slow: string[] = []): ScriptedValidator {
  const seen: string[] = [];
  const aborted = { count: 0 };
  const fake: Pick<Validator, 'validate'> = {
    async validate(_task, code, opts = {}) {
      seen.push(code);
      if (slow.includes(code)) await pause(150, opts.signal, () => aborted.count++);
      return verdict(code);
    },
  };
  // runTask only calls validate(); the rest of the class (pool, sandbox) is not reached.
  return { validator: fake as Validator, seen, aborted };
}

// ---- running one task -----------------------------------------------------------------------------------------

function withConfig(cond: Condition, overrides: Parameters<typeof makeConfig>[0]): Condition {
  return { ...cond, config: makeConfig(overrides, cond.config) };
}

async function run(cond: Condition, script: Script, extra: Partial<TaskServices> & { task?: Task; slow?: string[] } = {}) {
  const backend = scriptedBackend(script);
  const { task: t, slow, ...svcExtra } = extra;
  const v = scriptedValidator(slow);
  const svc: TaskServices = {
    store,
    encoder,
    repoIds: new Map([[repoPath, repoId]]),
    backend,
    validator: v.validator,
    scoreApis: evaluateRunApis,
    ...svcExtra,
  };
  const result = await runTask(t ?? task(), cond, svc);
  return { result, backend, seen: v.seen, aborted: v.aborted };
}

const userText = (req: ChatRequest) =>
  req.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
const kinds = (steps: { kind: string }[]) => steps.map((s) => s.kind);

beforeAll(async () => {
  dir = tmpDir('oc-run-task-');
  repoPath = makeRepo(REPO_FILES, 'oc-run-task-repo-');
  store = Store.open(path.join(dir, 'w.db'));
  const stats = await runIndex({ store, root: repoPath, encoder, parseThreads: 1 });
  expect(stats.status).toBe('completed');
  repoId = stats.repoId;
});

afterAll(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(repoPath, { recursive: true, force: true });
});

describe('runTask: verified selection', () => {
  it('selects the earliest passing candidate, not the mode or the most confident one, and repairs nothing', async () => {
    // Candidates 2–4 are one program (the largest group) and the most confident; candidate 1 passes first.
    // They validate slowly, so selection cancels them once candidate 1 has passed.
    const { result, backend, seen, aborted } = await run(
      METHODS.opencoder!,
      { candidates: [BAD_1, GOOD_B, GOOD_A, GOOD_A, GOOD_A], logprobs: [-2, -3, -0.01, -0.01, -0.01] },
      { slow: [GOOD_A] },
    );
    expect(result.generation.groups).toContainEqual([2, 3, 4]);
    expect(result.selected).toMatchObject({
      origin: 'candidate',
      candidateIndex: 1,
      repairRound: null,
      correct: true,
      status: 'passed',
      verified: true,
      code: GOOD_B,
    });
    expect(backend.calls('repair')).toHaveLength(0);
    expect(result.repairs).toEqual([]);
    expect(result.repairAttempted).toBe(false);
    expect(result.repairRecovered).toBe(false);
    // Every raw candidate is still evaluated (Pass@k), whatever was selected.
    expect(result.n).toBe(5);
    expect(result.c).toBe(4);
    expect(result.candidates.map((c) => c.passed)).toEqual([false, true, true, true, true]);
    expect(new Set(seen)).toEqual(new Set([BAD_1, GOOD_B, GOOD_A]));
    // The stored selection trace says why, and leaves the (timing-dependent) cancellations out.
    expect(aborted.count).toBeGreaterThan(0);
    expect(result.selectionTrace.find((s) => s.kind === 'selected')!.note).toMatch(/earliest passing/);
    expect(kinds(result.selectionTrace)).not.toContain('cancelled');
    expect(result.selectionTrace.at(-1)).toMatchObject({ kind: 'final', note: 'a raw candidate passed; no repair' });
  });
});

describe('runTask: repair', () => {
  // BAD_2 is the largest group (1, 2, 4): candidate 1 is the one repaired.
  const allFail = [BAD_1, BAD_2, BAD_2, BAD_3, BAD_2];

  it('repairs only when no candidate passes, at most the configured two rounds, each fed the failure it follows', async () => {
    const { result, backend } = await run(METHODS.opencoder!, { candidates: allFail, repairs: [BAD_3, BAD_1, GOOD_A] });
    const calls = backend.calls('repair');
    expect(calls).toHaveLength(2); // a third scripted repair would have passed: it was never asked for
    // Round 1 repairs the group representative with its own failing output; round 2 repairs round 1's output.
    expect(calls[0]!.grounding!.failing).toBe(BAD_2);
    expect(userText(calls[0]!)).toContain(failureOf(BAD_2));
    expect(userText(calls[0]!)).toContain(BAD_2.trim());
    expect(calls[1]!.grounding!.failing).toBe(BAD_3);
    expect(userText(calls[1]!)).toContain(failureOf(BAD_3));
    expect(userText(calls[1]!)).not.toContain(failureOf(BAD_2));

    expect(result.repairs).toEqual([
      { round: 1, passed: false, code: BAD_3, reason: '1 of 1 tests failed' },
      { round: 2, passed: false, code: BAD_1, reason: '1 of 1 tests failed' },
    ]);
    // Nothing passed: the last repair is the output (Eq. 10), and it is marked wrong and unverified.
    expect(result.selected).toMatchObject({ origin: 'repair', candidateIndex: 1, repairRound: 2, correct: false, verified: false, code: BAD_1 });
    expect(result.repairAttempted).toBe(true);
    expect(result.repairRecovered).toBe(false);
    expect(result.c).toBe(0);
    // Repairs spend tokens too: one generation call and two repair calls of 100 in / 7 out each.
    expect(result.generation.inputTokens).toBe(300);
    expect(result.generation.outputTokens).toBe(21);
    expect(result.detail!.repairTests).toHaveLength(2);
  });

  it('honours another configured number of rounds', async () => {
    const one = await run(withConfig(METHODS.opencoder!, { validation: { repairRounds: 1 } }), { candidates: allFail, repairs: [BAD_3, GOOD_A] });
    expect(one.backend.calls('repair')).toHaveLength(1);
    expect(one.result.selected).toMatchObject({ origin: 'repair', repairRound: 1, correct: false });

    const three = await run(withConfig(METHODS.opencoder!, { validation: { repairRounds: 3 } }), { candidates: allFail, repairs: [BAD_3, BAD_1, GOOD_A] });
    expect(three.backend.calls('repair')).toHaveLength(3);
    expect(three.result.selected).toMatchObject({ origin: 'repair', repairRound: 3, correct: true, code: GOOD_A });
  });

  it('records which repair attempt passed, and that repair recovered the task', async () => {
    const { result, backend } = await run(METHODS.opencoder!, { candidates: allFail, repairs: [BAD_3, GOOD_A, GOOD_B] });
    expect(backend.calls('repair')).toHaveLength(2);
    expect(result.selected).toMatchObject({
      origin: 'repair',
      candidateIndex: 1,
      repairRound: 2,
      correct: true,
      status: 'passed',
      verified: true,
      code: GOOD_A,
    });
    expect(result.repairs.map((r) => [r.round, r.passed])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(result.repairRecovered).toBe(true);
    expect(result.c).toBe(0); // the raw candidates still all failed
    expect(result.selectionTrace.at(-1)).toMatchObject({ kind: 'final', note: 'repair round 2 passed' });
  });

  it('a backend that cannot repair gets no round, and the trace says so', async () => {
    const { result, backend } = await run(METHODS.opencoder!, { candidates: allFail, repairs: [GOOD_A], canRepair: false });
    expect(backend.calls('repair')).toHaveLength(0);
    expect(kinds(result.selectionTrace)).toContain('repair-unavailable');
    expect(result.repairAttempted).toBe(false);
    expect(result.selected).toMatchObject({ origin: 'candidate', candidateIndex: 1, repairRound: null, correct: false });
  });
});

describe('runTask: Baseline RAG (no verification)', () => {
  // One candidate passes, but BAD_2 is the normalised mode (1, 2, 4).
  const candidates = [GOOD_A, BAD_2, BAD_2, GOOD_B, BAD_2];

  it('returns the normalised-mode candidate unvalidated and never repairs; evaluation still scores every candidate', async () => {
    const { result, backend } = await run(METHODS['baseline-rag']!, { candidates, repairs: [GOOD_A] });
    expect(result.selected).toMatchObject({
      origin: 'candidate',
      candidateIndex: 1,
      repairRound: null,
      verified: null,
      correct: false,
      status: 'failed',
      code: BAD_2,
    });
    expect(backend.calls('repair')).toHaveLength(0);
    expect(result.repairs).toEqual([]);
    expect(result.repairAttempted).toBe(false);
    expect(result.selectionTrace[0]!.kind).toBe('verify-disabled');
    expect(result.c).toBe(2);
    expect(result.candidates.map((c) => c.passed)).toEqual([true, false, false, true, false]);
    expect(result.generation.promptKind).toBe('baseline');
  });

  it('returns candidate 1 with unverifiedOutput first; RAG + Verify/Repair on the same candidates takes the earliest passing', async () => {
    const first = await run(withConfig(METHODS['baseline-rag']!, { validation: { unverifiedOutput: 'first' } }), { candidates });
    expect(first.result.selected).toMatchObject({ candidateIndex: 0, verified: null, correct: true, code: GOOD_A });

    const verified = await run(METHODS['rag-verify-repair']!, { candidates: [BAD_2, BAD_2, GOOD_B, BAD_2, GOOD_A] });
    expect(verified.result.selected).toMatchObject({ candidateIndex: 2, verified: true, correct: true, code: GOOD_B });
  });
});

describe('runTask: where verdicts were decided', () => {
  it('stores each verdict’s isolation and the selected output’s, reading one the validator left out as in-process', async () => {
    const isolation: Record<string, Verdict['isolation']> = { [GOOD_A]: 'isolated', [BAD_2]: 'in-process' };
    const fake: Pick<Validator, 'validate'> = {
      validate: async (_task, code) => ({ ...verdict(code), ...(isolation[code] ? { isolation: isolation[code] } : {}) }),
    };
    const cond = withConfig(METHODS['baseline-rag']!, { validation: { unverifiedOutput: 'first' } });
    const { result } = await run(cond, { candidates: [GOOD_A, BAD_2, GOOD_B, BAD_2, GOOD_A] }, { validator: fake as Validator });
    expect(result.candidates.map((c) => c.verdict.isolation)).toEqual(['isolated', 'in-process', 'in-process', 'in-process', 'isolated']);
    expect(result.selected).toMatchObject({ candidateIndex: 0, isolation: 'isolated' });
  });

  it('stores why each verdict was decided there, and the selected output’s; none where the validator gave none', async () => {
    const why: Record<string, string> = { [GOOD_A]: 'the reference passes every test the task names isolated' };
    const fake: Pick<Validator, 'validate'> = {
      validate: async (_task, code) => ({ ...verdict(code), isolation: 'isolated', ...(why[code] ? { isolationReason: why[code] } : {}) }),
    };
    const cond = withConfig(METHODS['baseline-rag']!, { validation: { unverifiedOutput: 'first' } });
    const { result } = await run(cond, { candidates: [GOOD_A, BAD_2, GOOD_B, BAD_2, GOOD_A] }, { validator: fake as Validator });
    expect(result.candidates.map((c) => c.verdict.isolationReason)).toEqual([why[GOOD_A], undefined, undefined, undefined, why[GOOD_A]]);
    expect(result.candidates[1]!.verdict).not.toHaveProperty('isolationReason');
    expect(result.selected).toMatchObject({ candidateIndex: 0, isolationReason: why[GOOD_A] });
  });
});

describe('runTask: failures', () => {
  it('a repair call that fails is recorded in the trace; the candidates and their verdicts are kept', async () => {
    const err = new LlmError('server', 'scripted:test', 'HTTP 500 from the script: internal error', { status: 500 });
    const { result, backend } = await run(METHODS.opencoder!, { candidates: [BAD_1, BAD_2, BAD_2, BAD_3, BAD_2], repairs: [err, GOOD_A] });
    expect(backend.calls('repair')).toHaveLength(1); // no second round after an error
    const step = result.selectionTrace.find((s) => s.kind === 'repair-error');
    expect(step?.note).toMatch(/^round 1: .*HTTP 500 from the script/);
    expect(result.repairAttempted).toBe(true);
    expect(result.repairs).toEqual([]);
    expect(result.n).toBe(5);
    expect(result.candidates.every((c) => c.verdict.status === 'failed')).toBe(true);
    expect(result.selected).toMatchObject({ origin: 'candidate', candidateIndex: 1, code: BAD_2, correct: false });
  });

  it('a generation error rejects with a TaskRunError naming the stage, task and condition, its cause kept', async () => {
    const err = new LlmError('server', 'scripted:test', 'HTTP 503 from the script: overloaded', { status: 503 });
    const backend = scriptedBackend({ candidates: [GOOD_A], generateError: err });
    const v = scriptedValidator();
    const out = await runTask(task(), METHODS.opencoder!, { store, encoder, repoIds: new Map([[repoPath, repoId]]), backend, validator: v.validator }).catch(
      (e: unknown) => e,
    );
    expect(out).toBeInstanceOf(TaskRunError);
    expect(out).toMatchObject({ name: 'TaskRunError', stage: 'generate', taskId: 'calc/add_tax', condition: 'opencoder' });
    expect((out as TaskRunError).message).toMatch(/calc\/add_tax \/ opencoder: generate failed: HTTP 503 from the script/);
    expect((out as TaskRunError).cause).toBe(err);
    expect(v.seen).toEqual([]);
  });

  it('a task whose repository is not indexed fails at the retrieve stage without calling the backend', async () => {
    const backend = scriptedBackend({ candidates: [GOOD_A] });
    const out = await runTask(task({ repoPath: path.join(dir, 'elsewhere') }), METHODS.opencoder!, {
      store,
      encoder,
      repoIds: new Map([[repoPath, repoId]]),
      backend,
      validator: scriptedValidator().validator,
    }).catch((e: unknown) => e);
    expect(out).toMatchObject({ name: 'TaskRunError', stage: 'retrieve' });
    expect(backend.requests).toEqual([]);
  });

  it('a failing LLM decomposer falls back to the deterministic steps, and is not consulted when the method does not decompose', async () => {
    let asked = 0;
    const failing = (): Decomposer => ({
      label: 'llm:scripted',
      async decompose() {
        asked++;
        throw new Error('decomposer unavailable');
      },
    });
    const decomposed = await run(METHODS.opencoder!, { candidates: [GOOD_A] }, { decomposer: failing });
    expect(asked).toBe(1);
    expect(decomposed.result.retrieval.decomposition).toMatch(/^fallback \(decomposer llm:scripted failed: decomposer unavailable/);
    expect(decomposed.result.retrieval.steps).toBeGreaterThanOrEqual(2);
    const baseline = await run(METHODS['baseline-rag']!, { candidates: [GOOD_A] }, { decomposer: failing });
    expect(asked).toBe(1);
    expect(baseline.result.retrieval).toMatchObject({ decomposition: 'none', steps: 1 });
  });
});

describe('runTask: evidence sources in the stored result', () => {
  const sourcesOf = (r: { detail?: { evidence: { source: string }[] } }) => new Set(r.detail!.evidence.map((e) => e.source));
  const cell = (id: string) => factorialConditions().find((c) => c.id === id)!;

  it('names every source used, and an ablated source is gone from the evidence, the fused counts and the API score', async () => {
    const stated = task({ ground_truth_apis: ['calc.ops:round_money'] });
    const all = await run(METHODS.opencoder!, { candidates: [GOOD_A] }, { task: stated });
    expect(sourcesOf(all.result)).toEqual(new Set(['api', 'context', 'similar']));
    for (const s of ['api', 'context', 'similar'] as const) expect(all.result.retrieval.sourceUncertainty[s]).not.toBeNull();
    const bySource = all.result.retrieval.fusedBySource;
    expect(bySource.api + bySource.context + bySource.similar).toBe(all.result.retrieval.fused);
    expect(all.result.retrieval.fused).toBeGreaterThan(0);
    expect(all.result.retrieval.api).not.toBeNull();
    // Every condition's retrieval is audited for leaks, and the stored result says what the audit did.
    expect(all.result.retrieval.leak).toMatchObject({ policy: 'drop', suspects: 0 });
    expect(all.result.retrieval.leak!.checked).toBeGreaterThan(0);

    const noContext = await run(cell('A1X0S1'), { candidates: [GOOD_A] }, { task: stated });
    expect(sourcesOf(noContext.result)).toEqual(new Set(['api', 'similar']));
    expect(noContext.result.retrieval.fusedBySource.context).toBe(0);
    expect(noContext.result.retrieval.sourceUncertainty.context).toBeNull();

    const noApi = await run(cell('A0X1S1'), { candidates: [GOOD_A] }, { task: stated });
    expect(sourcesOf(noApi.result)).toEqual(new Set(['context', 'similar']));
    expect(noApi.result.retrieval.fusedBySource.api).toBe(0);
    expect(noApi.result.retrieval.api).toBeNull();
    // What the generator was shown follows the same switches.
    expect(noApi.backend.calls('generate')[0]!.grounding!.evidence.every((e) => e.source !== 'api')).toBe(true);
  });

  it('keeps evidence texts and the prompt only in a full detail, and no detail at level none', async () => {
    const compact = await run(METHODS.opencoder!, { candidates: [GOOD_A] });
    expect(compact.result.detail!.prompt).toBeNull();
    expect(compact.result.detail!.evidence.some((e) => 'text' in e)).toBe(false);
    const full = await run(METHODS.opencoder!, { candidates: [GOOD_A] }, { detail: 'full' });
    expect(full.result.detail!.prompt!.map((m) => m.content)).toEqual(full.backend.calls('generate')[0]!.messages.map((m) => m.content));
    expect(full.result.detail!.evidence.every((e) => typeof e.text === 'string')).toBe(true);
    const none = await run(METHODS.opencoder!, { candidates: [GOOD_A] }, { detail: 'none' });
    expect(none.result.detail).toBeUndefined();
  });
});
