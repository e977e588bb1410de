// Candidate selection with validation-guided repair:
//   1. validate the candidates (in parallel through the validator's pool) and return the earliest
//      passing one in generation order; later ones still running are cancelled;
//   2. when none passes, take the earliest candidate of the largest self-consistency group
//      (grouping is injected: Python-aware normalisation lives in main/generate) and repair it
//      at most `repairRounds` times, each round fed the task, the evidence, the static findings
//      and the failing tests' output; stop at the first passing repair; when all fail, the last
//      repair is the output (Eq. 10; `afterFailedRepairs: 'most-tests'` keeps the best instead).
//      A backend that cannot repair (imported samples) gets no rounds, and none is counted.
// Without validation the output is the normalised mode (`unverifiedOutput: 'first'`: candidate 1).
// Every step is recorded in the trace.

import type { Task } from '../model/task.ts';
import { DEFAULT_CONFIG, type PipelineConfig } from '../model/config.ts';
import type { StaticFinding, Verdict, VerdictStatus } from '../model/verdict.ts';
import { passedCount } from '../model/verdict.ts';
import { failureText } from './verdict-report.ts';

export interface CandidateValidator {
  validate(task: Task, code: string, opts?: { signal?: AbortSignal }): Promise<Verdict>;
}

export interface RepairRequest {
  task: Task;
  /** 1-based repair round. */
  round: number;
  /** The code to repair: the chosen candidate in round 1, the previous repair after that. */
  code: string;
  /** The retrieval evidence the candidates were generated from (as prompt text). */
  evidence: string;
  staticFindings: StaticFinding[];
  /** The failing tests' output (messages, tracebacks, stderr's end), capped. */
  failingOutput: string;
  verdict: Verdict;
}

export type GroupFn = (codes: string[]) => Promise<number[][]>;
export type RepairFn = (request: RepairRequest) => Promise<string>;

export interface SelectionInput {
  task: Task;
  /** Candidates in generation order. */
  candidates: string[];
  validator: CandidateValidator;
  group: GroupFn;
  /** null: the backend cannot repair (imported samples); no round is attempted or counted. */
  repair: RepairFn | null;
  evidence?: string;
  config?: PipelineConfig;
  signal?: AbortSignal;
}

export type TraceStep =
  | { kind: 'verify-disabled'; note: string }
  | { kind: 'validate'; index: number; status: VerdictStatus; reason: string; passedTests: number; durationMs: number; cached: boolean }
  | { kind: 'cancelled'; index: number; note: string }
  | { kind: 'selected'; index: number; note: string }
  | { kind: 'group'; groups: number[][]; chosen: number[]; representative: number; note: string }
  | {
      kind: 'repair';
      round: number;
      input: string;
      findings: number;
      failingOutputChars: number;
      code: string;
      status: VerdictStatus;
      reason: string;
      passedTests: number;
      durationMs: number;
    }
  | { kind: 'repair-error'; round: number; message: string }
  | { kind: 'repair-unavailable'; note: string }
  | { kind: 'final'; origin: Selection['origin']; index: number | null; round: number | null; passed: boolean; note: string };

export interface SelectionTrace {
  steps: TraceStep[];
  durationMs: number;
}

export interface Selection {
  code: string;
  /** Where the code came from: a raw candidate or a repair round. */
  origin: 'candidate' | 'repair';
  candidateIndex: number | null;
  repairRound: number | null;
  passed: boolean;
  /** The selected code's verdict (null when verification is switched off). */
  verdict: Verdict | null;
  /** Verdicts of the raw candidates by index (null: cancelled or not run). */
  candidateVerdicts: (Verdict | null)[];
  repairs: { round: number; code: string; verdict: Verdict | null }[];
  trace: SelectionTrace;
}

/** What the stages of one selection share: its input, its config, the trace so far and the candidates' verdicts. */
interface Selecting {
  input: SelectionInput;
  cfg: PipelineConfig;
  steps: TraceStep[];
  /** Verdicts of the raw candidates by index (null: cancelled or not run). */
  verdicts: (Verdict | null)[];
  trace: () => SelectionTrace;
}

export async function selectCandidate(input: SelectionInput): Promise<Selection> {
  const started = performance.now();
  const { task, candidates } = input;
  const cfg = input.config ?? DEFAULT_CONFIG;
  if (!candidates.length) throw new Error(`selectCandidate: task ${task.id} has no candidates`);
  const steps: TraceStep[] = [];
  const trace = (): SelectionTrace => ({ steps, durationMs: Math.round(performance.now() - started) });
  const s: Selecting = { input, cfg, steps, verdicts: candidates.map(() => null), trace };
  const { verdicts } = s;

  if (!cfg.validation.verify) return unverified(s);

  const winner = await firstPassing(s);
  if (winner !== null) {
    steps.push({ kind: 'selected', index: winner, note: 'earliest passing candidate in generation order' });
    return rawCandidate(s, winner, true, 'a raw candidate passed; no repair');
  }

  // 2. None passed: the earliest member of the largest self-consistency group.
  const rep = await representative(input, steps);
  const { repairs, passed } = await repairLoop(s, rep);
  if (passed) {
    steps.push({ kind: 'final', origin: 'repair', index: rep, round: passed.round, passed: true, note: `repair round ${passed.round} passed` });
    return {
      code: passed.code,
      origin: 'repair',
      candidateIndex: rep,
      repairRound: passed.round,
      passed: true,
      verdict: passed.verdict,
      candidateVerdicts: verdicts,
      repairs,
      trace: trace(),
    };
  }
  return afterFailedRepairs(s, rep, repairs);
}

/** A raw candidate as the output (no repair): the trace's final step and the selection. */
function rawCandidate({ input, steps, verdicts, trace }: Selecting, index: number, passed: boolean, note: string): Selection {
  steps.push({ kind: 'final', origin: 'candidate', index, round: null, passed, note });
  return {
    code: input.candidates[index]!,
    origin: 'candidate',
    candidateIndex: index,
    repairRound: null,
    passed,
    // A passing candidate has its verdict; an unvalidated one has none.
    verdict: passed ? verdicts[index]! : null,
    candidateVerdicts: verdicts,
    repairs: [],
    trace: trace(),
  };
}

/** Validation switched off: candidate 1, or the normalised mode (the earliest candidate of the largest group). */
async function unverified(s: Selecting): Promise<Selection> {
  const { input, cfg, steps } = s;
  // Frozen configs from before the option existed returned candidate 1.
  if ((cfg.validation.unverifiedOutput ?? 'first') === 'first') {
    steps.push({ kind: 'verify-disabled', note: 'validation is switched off: the first candidate is the output' });
    return rawCandidate(s, 0, false, 'first candidate, unvalidated');
  }
  steps.push({ kind: 'verify-disabled', note: 'validation is switched off: the normalised mode (earliest candidate of the largest group) is the output' });
  const rep = await representative(input, steps);
  return rawCandidate(s, rep, false, `normalised-mode candidate ${rep}, unvalidated`);
}

/**
 * 1. All candidates go to the pool at once; the earliest passing one wins as soon as every
 * earlier one has failed, and the later ones are cancelled. Returns its index, or null.
 */
async function firstPassing({ input, steps, verdicts }: Selecting): Promise<number | null> {
  const { task, candidates, validator } = input;
  const controllers = candidates.map(() => new AbortController());
  const outer = input.signal;
  const onOuterAbort = () => controllers.forEach((c) => c.abort());
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  try {
    const runs = candidates.map((code, i) =>
      validator.validate(task, code, { signal: controllers[i]!.signal }).then(
        (v) => {
          verdicts[i] = v;
          return v;
        },
        (err: Error) => {
          if (err?.name === 'AbortError') return null;
          throw err;
        },
      ),
    );
    for (let i = 0; i < runs.length; i++) {
      const v = await runs[i]!;
      if (outer?.aborted) throw abortErr();
      if (!v) continue;
      steps.push({ kind: 'validate', index: i, status: v.status, reason: v.reason, passedTests: passedCount(v), durationMs: v.durationMs, cached: v.cached });
      if (v.status === 'passed') {
        for (let j = i + 1; j < runs.length; j++) {
          if (!verdicts[j]) {
            controllers[j]!.abort();
            steps.push({ kind: 'cancelled', index: j, note: `not needed: candidate ${i} passed` });
          }
        }
        await Promise.allSettled(runs.slice(i + 1));
        return i;
      }
    }
    return null;
  } catch (err) {
    controllers.forEach((c) => c.abort());
    throw err;
  } finally {
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

/** Repairs candidate `rep` up to the configured rounds, stopping at the first passing repair (`passed`). */
async function repairLoop(
  { input, cfg, steps, verdicts }: Selecting,
  rep: number,
): Promise<{ repairs: Selection['repairs']; passed: { code: string; round: number; verdict: Verdict } | null }> {
  const { task, validator } = input;
  const outer = input.signal;
  const repairs: Selection['repairs'] = [];
  let code = input.candidates[rep]!;
  let verdict = verdicts[rep]!;
  let rounds = Math.max(0, Math.floor(cfg.validation.repairRounds));
  if (rounds > 0 && !input.repair) {
    steps.push({ kind: 'repair-unavailable', note: `the backend cannot repair (imported samples): none of the ${rounds} repair round(s) was attempted` });
    rounds = 0;
  }
  for (let round = 1; round <= rounds; round++) {
    if (outer?.aborted) throw abortErr();
    const failingOutput = failureText(verdict);
    let repaired: string;
    try {
      repaired = await input.repair!({ task, round, code, evidence: input.evidence ?? '', staticFindings: verdict.findings, failingOutput, verdict });
    } catch (err) {
      steps.push({ kind: 'repair-error', round, message: (err as Error).message ?? String(err) });
      break;
    }
    const v = await validator.validate(task, repaired, { signal: outer });
    repairs.push({ round, code: repaired, verdict: v });
    steps.push({
      kind: 'repair',
      round,
      input: round === 1 ? `candidate ${rep}` : `repair round ${round - 1}`,
      findings: verdict.findings.length,
      failingOutputChars: failingOutput.length,
      code: repaired,
      status: v.status,
      reason: v.reason,
      passedTests: passedCount(v),
      durationMs: v.durationMs,
    });
    if (v.status === 'passed') return { repairs, passed: { code: repaired, round, verdict: v } };
    code = repaired;
    verdict = v;
  }
  return { repairs, passed: null };
}

/**
 * Nothing passed. `last` (Eq. 10; the default): the last repair is the output. `most-tests` (and configs frozen
 * before the option): whichever of the chosen candidate and its repairs passed the most tests (ties keep the
 * earlier one, so a repair must strictly improve on what it was given).
 */
function afterFailedRepairs({ input, cfg, steps, verdicts, trace }: Selecting, rep: number, repairs: Selection['repairs']): Selection {
  let pick: { code: string; verdict: Verdict; round: number | null } = { code: input.candidates[rep]!, verdict: verdicts[rep]!, round: null };
  const rule = cfg.validation.afterFailedRepairs ?? 'most-tests';
  if (rule === 'last') {
    const last = repairs.at(-1);
    if (last?.verdict) pick = { code: last.code, verdict: last.verdict, round: last.round };
  } else {
    for (const r of repairs) if (r.verdict && passedCount(r.verdict) > passedCount(pick.verdict)) pick = { code: r.code, verdict: r.verdict, round: r.round };
  }
  steps.push({
    kind: 'final',
    origin: pick.round === null ? 'candidate' : 'repair',
    index: rep,
    round: pick.round,
    passed: false,
    note:
      pick.round === null
        ? 'no candidate or repair passed; the group representative is the output'
        : rule === 'last'
          ? `no repair passed; the last repair (round ${pick.round}) is the output`
          : `no repair passed; round ${pick.round} passed the most tests`,
  });
  return {
    code: pick.code,
    origin: pick.round === null ? 'candidate' : 'repair',
    candidateIndex: rep,
    repairRound: pick.round,
    passed: false,
    verdict: pick.verdict,
    candidateVerdicts: verdicts,
    repairs,
    trace: trace(),
  };
}

/** The earliest member of the largest normalised group (ties: the group with the earliest candidate); recorded in the trace. */
async function representative(input: SelectionInput, steps: TraceStep[]): Promise<number> {
  try {
    const groups = sanitiseGroups(await input.group(input.candidates), input.candidates.length);
    let best = groups[0]!;
    for (const g of groups) if (g.length > best.length || (g.length === best.length && g[0]! < best[0]!)) best = g;
    steps.push({ kind: 'group', groups, chosen: best, representative: best[0]!, note: 'largest group; ties go to the group with the earliest candidate' });
    return best[0]!;
  } catch (err) {
    steps.push({ kind: 'group', groups: [], chosen: [0], representative: 0, note: `grouping failed (${(err as Error).message}); using candidate 0` });
    return 0;
  }
}

/** Keeps valid, distinct indexes; candidates no group mentions become singletons. */
function sanitiseGroups(groups: number[][], n: number): number[][] {
  const used = new Set<number>();
  const out: number[][] = [];
  for (const g of Array.isArray(groups) ? groups : []) {
    const clean = [...new Set(g)].filter((i) => Number.isInteger(i) && i >= 0 && i < n && !used.has(i)).sort((a, b) => a - b);
    clean.forEach((i) => used.add(i));
    if (clean.length) out.push(clean);
  }
  for (let i = 0; i < n; i++) if (!used.has(i)) out.push([i]);
  return out;
}

function abortErr(): Error {
  const e = new Error('cancelled');
  e.name = 'AbortError';
  return e;
}
