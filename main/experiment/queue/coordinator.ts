// The coordinator's side of a queued run: publish what workers need (repositories, the index, sample files) as
// bundles, put one BullMQ job per (task, condition) still to do on the backend's queue, and store each outcome
// the moment its job finishes. The manifest file, the results store and the statistics stay on this machine; a job
// carries only its task, its condition and the bundles' hashes.

import path from 'node:path';
import { Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { Task } from '../../model/task.ts';
import type { Condition } from '../../pipeline/methods.ts';
import type { ExperimentRunRecord, ExperimentStore } from '../../store/experiments.ts';
import type { Store } from '../../store/store.ts';
import type { TaskFailure } from '../../model/results.ts';
import type { BackendSpec, Decompose } from '../../model/backend-spec.ts';
import { referenceCheckKey } from '../../validate/validator.ts';
import { pairsOf, RunTally, type PairOutcome, type Progress, type RunOutcome } from '../runner.ts';
import { packFileCached, packRepositoryCached, publishBundle, publishIndex, type BundleRef } from './bundles.ts';
import {
  FINISHED_TTL_S,
  JOB_ATTEMPTS,
  jobIdOf,
  PAYLOAD_VERSION,
  queueNameOf,
  queueOrder,
  REFUSED_JOB,
  type QueueJobData,
  type QueueJobPayload,
  type QueueJobResult,
  type QueueJobReturn,
} from './jobs.ts';
import { loadQueueSecret, seal, unseal } from './seal.ts';
import { checkQueueExposure, connectionOptions, type QueueAddress } from './url.ts';
import { detectSandbox, type SandboxOptions } from '../../validate/sandbox.ts';
import { addVerdictUse, emptyVerdictUse, verdictUseTotal, type VerdictUse } from '../../model/verdict.ts';

/** Backend options that name a file on the coordinator; the file goes to workers as a bundle. */
const POLL_MS = 1000;
/** Polls between two sweeps over every outstanding job's state. */
const SWEEP_EVERY = 10;

export interface QueuedRunOptions {
  experiments: ExperimentStore;
  store: Store;
  queue: QueueAddress;
  repoIds: Map<string, number>;
  backend: BackendSpec;
  decompose: Decompose;
  encoderId: string;
  sandbox: string;
  detail?: 'compact' | 'full' | 'none';
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** Called once the bundles are published and the jobs queued; `warning`: why this sandbox with this queue is unsafe. */
  onQueued?: (info: { queue: string; jobs: number; bundles: BundleRef[]; warning?: string }) => void;
  /** The queue's sealing key (seal.ts); default: OPENCODER_QUEUE_SECRET or the machine's secret file. */
  secret?: Buffer;
}

/** The failure stored for a job BullMQ gave up on (every attempt failed, or it stalled too often). */
function queueFailure(task: Task, cond: Condition, job: Job): PairOutcome {
  const tries = job.attemptsMade;
  return pairFailure(
    task,
    cond,
    job.failedReason?.startsWith(REFUSED_JOB) ? 'refused' : 'worker',
    `the job failed on its worker${tries > 1 ? ` in all ${tries} attempts` : ''}: ${job.failedReason || 'no reason given'}`,
  );
}

/** An unscored pair the queue decided (cause `queue`): a resume runs it again. */
function pairFailure(task: Task, cond: Condition, kind: string, why: string): PairOutcome {
  const failure: TaskFailure = { taskId: task.id, condition: cond.id, stage: 'queue', kind, cause: 'queue', error: `${task.id} / ${cond.id}: ${why}` };
  return { taskId: task.id, condition: cond.id, status: 'error', costUsd: null, result: failure };
}

/** Publishes the run's bundles; returns the payload of each pair. */
async function publish(redis: Redis, tasks: Task[], opts: QueuedRunOptions, runId: string, manifestHash: string, secret: Buffer) {
  const bundles: BundleRef[] = [];
  const repos = new Map<string, BundleRef>();
  for (const root of new Set(tasks.flatMap((t) => [t.repoPath, ...(t.taskViewPath ? [t.taskViewPath] : [])]))) {
    const ref = await publishBundle(redis, 'repo', packRepositoryCached(root));
    repos.set(root, ref);
    bundles.push(ref);
  }
  const index = await publishIndex(redis, opts.store, secret);
  bundles.push(index);
  const files: QueueJobPayload['files'] = {};
  if (opts.backend.kind === 'imported' && opts.backend.samplesFile) {
    const file = opts.backend.samplesFile;
    const ref = await publishBundle(redis, 'file', packFileCached(path.resolve(file)));
    // The file keeps its name on the worker: backends name themselves after it (`imported:phi2.jsonl`).
    files.samplesFile = { ...ref, name: path.basename(file) };
    bundles.push(ref);
  }
  const backend = opts.backend;
  const payloadOf = (task: Task, cond: Condition): QueueJobPayload => {
    const { repoPath, taskViewPath, ...rest } = task;
    const repoId = opts.repoIds.get(repoPath);
    if (repoId === undefined) throw new Error(`internal: ${repoPath} was not indexed before queueing`);
    return {
      v: PAYLOAD_VERSION,
      runId,
      manifestHash,
      task: rest,
      repo: { bundle: repos.get(repoPath)!, repoId },
      reference: task.reference !== undefined ? opts.experiments.referenceCheck(manifestHash, task.id, referenceCheckKey(task)) : null,
      ...(taskViewPath ? { taskView: repos.get(taskViewPath)! } : {}),
      index,
      condition: cond,
      backend,
      decompose: opts.decompose,
      files,
      encoderId: opts.encoderId,
      sandbox: opts.sandbox,
      ...(opts.detail ? { detail: opts.detail } : {}),
    };
  };
  return { bundles, payloadOf };
}

/** Runs every (task, condition) of the run without a stored ok result through the queue. */
export async function executeQueued(run: ExperimentRunRecord, tasks: Task[], conditions: Condition[], opts: QueuedRunOptions): Promise<RunOutcome> {
  const { experiments, signal } = opts;
  // The run's sandbox as this machine gives it (workers check their own): refused or said to be unsafe with this queue.
  const warning = checkQueueExposure(await detectSandbox({ mode: opts.sandbox as SandboxOptions['mode'] }), opts.queue);
  const connection = connectionOptions(opts.queue);
  const name = queueNameOf(opts.backend.kind);
  const redis = new Redis({ ...connection, lazyConnect: true });
  redis.on('error', () => {}); // failures surface as rejected commands below
  await redis.connect().catch((err: Error) => {
    throw new Error(`cannot reach the queue at ${opts.queue.display}: ${err.message}`);
  });
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  queue.on('error', () => {});
  events.on('error', () => {});
  try {
    const { pairs, todo } = pairsOf(run, tasks, conditions, experiments);
    experiments.claim(run.id);
    const tally = new RunTally(run, pairs.length, pairs.length - todo.length, experiments, opts.onProgress, 1);
    tally.report(null);
    const secret = opts.secret ?? loadQueueSecret().key;
    const { bundles, payloadOf } = await publish(redis, tasks, opts, run.id, run.manifestHash, secret);
    // Verdict counts per validator (workers report theirs with each result), and what did not verify.
    const use = new Map<string, VerdictUse>();
    // The sum over validators of the latest counts each reported (they are cumulative per validator).
    tally.verdictUse = () => [...use.values()].reduce((sum, u) => addVerdictUse(sum, u), emptyVerdictUse());
    const refused = { jobs: 0, results: 0 };
    tally.refused = refused;

    const outstanding = new Map<string, { task: Task; cond: Condition }>();
    for (const p of queueOrder(todo)) outstanding.set(jobIdOf(run.id, p.task.id, p.cond.id), p);
    const doneBy = new Map<string, number>();
    let activeBy = new Map<string, number>();
    let waiting = 0;
    tally.queueState = () => ({
      workers: [...new Set([...doneBy.keys(), ...activeBy.keys()])].sort().map((n) => ({ name: n, active: activeBy.get(n) ?? 0, done: doneBy.get(n) ?? 0 })),
      queued: waiting,
    });
    let wakeNow: (() => void) | null = null;
    const settle = (id: string, outcome: PairOutcome, durationMs: number, worker?: string) => {
      if (!outstanding.delete(id)) return; // already stored: a job is stored once
      if (outstanding.size === 0) wakeNow?.(); // the last one: do not wait out the poll
      if (worker) doneBy.set(worker, (doneBy.get(worker) ?? 0) + 1);
      tally.record(outcome, durationMs, worker);
    };
    /** Stores a finished job's outcome; true when the job is finished (completed, or failed for good). */
    const collect = async (id: string): Promise<boolean> => {
      const p = outstanding.get(id);
      if (!p) return true;
      // The state first: a job read before it finished would have no return value yet.
      const state = await queue.getJobState(id);
      if (state !== 'completed' && state !== 'failed') return false;
      const job = await Job.fromId(queue, id);
      if (!job) return false;
      if (state === 'failed') {
        const failed = queueFailure(p.task, p.cond, job);
        if (failed.status === 'error' && failed.result.kind === 'refused' && outstanding.has(id)) refused.jobs++;
        settle(id, failed, 0);
        return true;
      }
      const rv = unseal<QueueJobResult>(secret, 'result', id, job.returnvalue as QueueJobReturn);
      // A result that does not open was not written by a worker of this run's key: not stored (a resume runs the pair).
      const mismatch = rv && (rv.outcome.taskId !== p.task.id || rv.outcome.condition !== p.cond.id);
      if (!rv || mismatch) {
        if (outstanding.has(id)) refused.results++;
        settle(
          id,
          pairFailure(p.task, p.cond, 'refused', 'its result in the queue does not verify (altered in Redis, or sealed with another queue secret): refused'),
          0,
        );
        return true;
      }
      // Stored with the outcome, once: settle() ignores a pair already stored.
      if (outstanding.has(id)) for (const ex of rv.exchanges) opts.store.exchanges.record(ex);
      if (rv.verdicts) {
        const before = use.get(rv.verdicts.validator);
        if (!before || verdictUseTotal(rv.verdicts.use) >= verdictUseTotal(before)) use.set(rv.verdicts.validator, rv.verdicts.use);
      }
      settle(id, rv.outcome, rv.durationMs, rv.worker);
      return true;
    };

    // Queue what is not there yet; a job left failed by an earlier attempt of this run is retried.
    await events.waitUntilReady();
    const fresh: { name: string; data: QueueJobData; opts: { jobId: string } }[] = [];
    for (const [id, p] of outstanding) {
      const state = await queue.getJobState(id);
      // Sealed for this job id: the payload opens for this (run, task, condition) alone.
      const data = (): QueueJobData => ({ v: PAYLOAD_VERSION, runId: run.id, ...seal(secret, 'job', id, payloadOf(p.task, p.cond)) });
      if (state === 'unknown') fresh.push({ name: 'pair', data: data(), opts: { jobId: id } });
      else if (state === 'failed') {
        // Queued again with a fresh seal (a job refused as altered is mended, as a resume mends a bundle).
        await (await Job.fromId(queue, id))?.remove();
        fresh.push({ name: 'pair', data: data(), opts: { jobId: id } });
      }
    }
    await queue.addBulk(
      fresh.map((j) => ({
        ...j,
        opts: {
          ...j.opts,
          attempts: JOB_ATTEMPTS,
          backoff: { type: 'fixed', delay: 1000 },
          removeOnComplete: { age: FINISHED_TTL_S },
          removeOnFail: { age: FINISHED_TTL_S },
        },
      })),
    );
    opts.onQueued?.({ queue: name, jobs: outstanding.size, bundles, ...(warning ? { warning } : {}) });

    const onDone = ({ jobId }: { jobId: string }) => {
      if (outstanding.has(jobId)) void collect(jobId).catch(() => {});
    };
    events.on('completed', onDone);
    events.on('failed', onDone);
    // Jobs that finished while nobody listened (a resume, or before the events connection was up) are found by a poll.
    for (const id of [...outstanding.keys()]) await collect(id);
    let polls = 0;
    while (outstanding.size > 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(t);
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        const t = setTimeout(wake, POLL_MS);
        signal?.addEventListener('abort', wake, { once: true });
        wakeNow = wake;
      });
      wakeNow = null;
      if (outstanding.size === 0 || signal?.aborted) break;
      // Events bring results as they finish; a full sweep now and then catches any missed while disconnected.
      if (++polls % SWEEP_EVERY === 0) for (const id of [...outstanding.keys()]) await collect(id);
      const active = await queue.getJobs(['active']);
      waiting = await queue.getWaitingCount();
      activeBy = new Map();
      for (const j of active) {
        if ((j.data as QueueJobData).runId !== run.id) continue;
        const w = j.processedBy ?? '?';
        activeBy.set(w, (activeBy.get(w) ?? 0) + 1);
      }
      tally.report(null);
    }
    events.off('completed', onDone);
    events.off('failed', onDone);

    if (signal?.aborted) {
      // Take back the jobs no worker has started; running ones finish and are collected by a resume.
      for (const id of outstanding.keys()) {
        const state = await queue.getJobState(id);
        if (state === 'waiting' || state === 'delayed' || state === 'prioritized') await queue.remove(id).catch(() => {});
      }
    }
    const status = signal?.aborted ? 'cancelled' : 'done';
    experiments.finish(run.id, status);
    return tally.outcome(status);
  } finally {
    await events.close().catch(() => {});
    await queue.close().catch(() => {});
    redis.disconnect();
  }
}
