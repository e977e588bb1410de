// What coordinator and workers agree on: queue names, job ids and the job payload. A payload carries no secret:
// the backend as the run froze it (kind, model, base URL, non-secret options), never a key. Payloads, results and
// shared verdicts travel sealed (seal.ts) with the queue's key, which Redis never holds.

import crypto from 'node:crypto';
import type { Task } from '../../model/task.ts';
import type { Condition } from '../../pipeline/methods.ts';
import type { PairOutcome } from '../runner.ts';
import type { BackendSpec, Decompose } from '../../model/backend-spec.ts';
import type { BundleRef } from './bundles.ts';
import type { ReferenceCheck } from '../../validate/validator.ts';
import type { ExchangeRecord } from '../../store/exchanges.ts';
import type { VerdictUse } from '../../model/verdict.ts';
import type { Sealed } from './seal.ts';

/** 3: payloads and results sealed (seal.ts). */
export const PAYLOAD_VERSION = 3;
export const QUEUE_PREFIX = 'opencoder-';
/** Verdicts workers share (keyed by files, task, limit, expectations and code), so a candidate is run once. */
export const VERDICT_KEY_PREFIX = 'opencoder:verdict:';
/** BullMQ attempts per job: a worker that dies mid-job hands it on; a job that keeps failing is stored as failed. */
export const JOB_ATTEMPTS = 3;
/** Finished jobs (and their results) stay in Redis this long, so a coordinator that was away can collect them. */
export const FINISHED_TTL_S = 7 * 24 * 3600;
/** Backend kinds that have queues; a worker takes jobs from all of them. */
export const QUEUED_BACKENDS = ['offline', 'openai', 'gemini', 'replay', 'imported', 'llama-cpp'] as const;

/** One queue per backend kind, so each backend's rate limit (BullMQ's limiter) holds across all workers. */
export function queueNameOf(backendKind: string): string {
  return `${QUEUE_PREFIX}${backendKind}`;
}

/** The job id of a (run, task, condition): the same pair is queued once, however often the coordinator adds it. */
export function jobIdOf(runId: string, taskId: string, condition: string): string {
  return crypto.createHash('sha256').update(`${runId}\u0000${taskId}\u0000${condition}`).digest('hex').slice(0, 40);
}

export interface QueueJobPayload {
  v: number;
  runId: string;
  manifestHash: string;
  /** The task with its paths left out: a worker puts its own unpacked copies there. */
  task: Omit<Task, 'repoPath' | 'taskViewPath'>;
  repo: { bundle: BundleRef; repoId: number };
  /**
   * The reference check the coordinator ran for this task (null: none stored, or the task has no reference): the
   * worker judges candidates against it instead of running the reference again at its own paths.
   */
  reference: ReferenceCheck | null;
  taskView?: BundleRef;
  index: BundleRef;
  condition: Condition;
  /** The run's backend record as it is stored (model/backend-spec.ts); the worker builds its backend from it. */
  backend: BackendSpec;
  decompose: Decompose;
  /** Files the backend reads (an imported sample set), by the spec field that names them, with their file names. */
  files: Partial<Record<'samplesFile', BundleRef & { name: string }>>;
  encoderId: string;
  sandbox: string;
  detail?: 'compact' | 'full' | 'none';
}

/**
 * A job as Redis holds it: the payload sealed for the job's id (so it opens for that job alone), with the version and
 * the run in the clear for a worker of another version and for the coordinator's count of active jobs.
 */
export interface QueueJobData extends Sealed {
  v: number;
  runId: string;
}

/** How the verdicts of a run were come by on one validator (cumulative; the coordinator keeps the latest of each). */
export interface QueueVerdictUse {
  validator: string;
  use: VerdictUse;
}

/** What a worker returns (sealed for the job's id, as QueueJobReturn): the outcome to store, and who ran it. */
export interface QueueJobResult {
  outcome: PairOutcome;
  worker: string;
  durationMs: number;
  /** The LLM exchanges the job made (none for imported samples), for the coordinator's store. */
  exchanges: ExchangeRecord[];
  /** The run's validator on that worker: its verdicts so far, run, reused and refused. */
  verdicts: QueueVerdictUse;
}

export type QueueJobReturn = Sealed;

/** The start of the reason of a job a worker refused because its seal did not open (counted apart by the coordinator). */
export const REFUSED_JOB = 'refused:';

/** Tasks per block of the queue's order (queueOrder): more than the workers a run usually has. */
export const QUEUE_BLOCK = 16;

/**
 * The order a run's pairs are queued in, which is the order workers take them: tasks in blocks of `block`, each block
 * condition by condition (t1/A … t16/A, t1/B … t16/B, …). Jobs that run at once are then different tasks' until
 * there are more workers than a block holds. In task-major order two workers ran one task's conditions side by
 * side; the conditions share candidates (imported samples, a cached reply), and each worker validated them before
 * the other's verdict was there to reuse, so two workers did the work twice. A run cancelled part-way leaves at
 * most one block's tasks without every condition, which a resume completes.
 */
export function queueOrder<P extends { task: { id: string }; cond: { id: string } }>(pairs: P[], block = QUEUE_BLOCK): P[] {
  const tasks: string[] = [];
  const byTask = new Map<string, P[]>();
  for (const p of pairs) {
    let list = byTask.get(p.task.id);
    if (!list) {
      list = [];
      byTask.set(p.task.id, list);
      tasks.push(p.task.id);
    }
    list.push(p);
  }
  const out: P[] = [];
  for (let b = 0; b < tasks.length; b += block) {
    const lists = tasks.slice(b, b + block).map((id) => byTask.get(id)!);
    const depth = Math.max(...lists.map((l) => l.length));
    for (let c = 0; c < depth; c++) for (const l of lists) if (c < l.length) out.push(l[c]!);
  }
  return out;
}
