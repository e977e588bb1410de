// A queue worker: takes (task, condition) jobs from the backends' queues, fetches and verifies the bundles a job
// names, and runs retrieval, generation and sandboxed validation through runPair, exactly as a local run does.
// It keeps private, unpacked copies of the bundles for as long as it runs; the verified bundles stay cached.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Encoder } from '../../model/encoder.ts';
import type { PriceTable } from '../../generate/cost.ts';
import { Limiter } from '../../generate/reliability.ts';
import type { LlmBackend } from '../../generate/types.ts';
import type { ExchangeRecord, ExchangeStore } from '../../store/exchanges.ts';
import type { Task } from '../../model/task.ts';
import { VectorIndexCache } from '../../retrieve/vector-index.ts';
import { Store } from '../../store/store.ts';
import { detectSandbox, type SandboxOptions } from '../../validate/sandbox.ts';
import type { SandboxInfo } from '../../model/verdict.ts';
import type { Verdict } from '../../model/verdict.ts';
import { processTempDir } from '../../validate/cleanup.ts';
import { createValidator, type ReferenceCheck, type SharedVerdictStore, type Validator } from '../../validate/validator.ts';
import { pairServices } from '../orchestrate.ts';
import type { BackendSpec } from '../../model/backend-spec.ts';
import { runPair } from '../runner.ts';
import { fetchBundle, unpackFile, unpackRepository, type BundleRef } from './bundles.ts';
import {
  FINISHED_TTL_S,
  jobIdOf,
  PAYLOAD_VERSION,
  QUEUED_BACKENDS,
  REFUSED_JOB,
  VERDICT_KEY_PREFIX,
  queueNameOf,
  type QueueJobData,
  type QueueJobPayload,
  type QueueJobResult,
  type QueueJobReturn,
} from './jobs.ts';
import { loadQueueSecret, seal, sealText, unseal, unsealText } from './seal.ts';
import { checkQueueExposure, connectionOptions, type QueueAddress } from './url.ts';

export interface QueueWorkerOptions {
  queue: QueueAddress;
  encoder: Encoder;
  /** Builds the run's backend from what it froze; keys come from this machine's environment or keychain. */
  makeBackend: (backend: BackendSpec, exchanges: ExchangeStore) => LlmBackend;
  prices: PriceTable;
  /** Jobs at once over all queues (default 1). */
  concurrency?: number;
  /** BullMQ's limiter: at most `max` jobs per `durationMs` on each queue, across every worker of it. */
  rateLimit?: { max: number; durationMs: number };
  /** Backend kinds to take jobs for (default: all). */
  backends?: readonly string[];
  cacheDir: string;
  /** Lock on a running job (renewed at half this); a job whose worker died goes back to the queue after it. */
  lockMs?: number;
  /** Sandboxed runs at once within one job (the validator's concurrency). */
  validatorConcurrency?: number;
  name?: string;
  onEvent?: (line: string) => void;
  /** The queue's sealing key (seal.ts); default: OPENCODER_QUEUE_SECRET or the machine's secret file. */
  secret?: Buffer;
}

export interface RunningWorker {
  name: string;
  /** Jobs finished (completed or failed) by this worker. */
  readonly finished: number;
  /** Jobs given back to the queue by stop(). */
  readonly givenBack: number;
  /** Takes no more jobs, lets the running ones finish, then lets go of the queue and the copies. */
  close(): Promise<void>;
  /**
   * What a signal asks for: takes no more jobs, cancels the running ones and gives them back to the queue (when it
   * can be reached; else their locks lapse and another worker takes them), and lets go of everything within about
   * `graceMs` whether or not the queue answers. Resolves with what was given back and what could not be said to it.
   */
  stop(graceMs?: number): Promise<{ givenBack: number; unreachable: boolean }>;
}

/** Resolves with `p`'s value, or with `fallback` once `ms` have passed (its timer does not hold the process). */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(fallback), ms);
    t.unref();
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      () => (clearTimeout(t), resolve(fallback)),
    );
  });
}

/** Runs `fn` for one key at a time (the first caller computes, the others wait for it). */
function once<T>(cache: Map<string, Promise<T>>, key: string, fn: () => Promise<T>): Promise<T> {
  let p = cache.get(key);
  if (!p) {
    p = fn();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

interface IndexCopy {
  store: Store;
  cache: VectorIndexCache;
  validators: Map<string, Promise<Validator>>;
  /** The coordinator's reference check of each task seen (by manifest hash and task id). */
  references: Map<string, ReferenceCheck>;
  file: string;
  /** Jobs using this copy now. */
  inUse: number;
}

async function closeCopy(copy: IndexCopy): Promise<void> {
  for (const v of copy.validators.values()) (await v.catch(() => null))?.close();
  copy.store.close();
  // The database, its journal files and the vector packs a first retrieval wrote beside it.
  for (const f of [copy.file, `${copy.file}-wal`, `${copy.file}-shm`, `${copy.file}-vectors`]) fs.rmSync(f, { recursive: true, force: true });
}

/**
 * The verdicts a run's workers share through Redis, sealed for their key and run (seal.ts): a verdict written there
 * by anyone without the queue's key (a candidate that reached Redis, another program) is refused, and the candidate
 * runs here instead; it is never taken.
 */
export function sealedVerdicts(
  redis: Redis,
  secret: Buffer,
  runId: string,
  scope: SharedVerdictStore['scope'],
  log: (line: string) => void,
): SharedVerdictStore {
  return {
    scope,
    get: async (key) => {
      const name = `${VERDICT_KEY_PREFIX}${runId}:${key}`;
      const text = await redis.get(name);
      if (text === null) return null;
      const verdict = unsealText<Verdict>(secret, 'verdict', name, text);
      if (verdict) return { verdict };
      log(
        `run ${runId}: the shared verdict ${key.slice(0, 12)}… in the queue does not verify (altered in Redis, or sealed with another queue secret): refused, the candidate is run here`,
      );
      return { refused: 'its seal does not open' };
    },
    put: async (key, v) => {
      const name = `${VERDICT_KEY_PREFIX}${runId}:${key}`;
      await redis.set(name, sealText(secret, 'verdict', name, v), 'EX', FINISHED_TTL_S);
    },
  };
}

export async function startQueueWorker(opts: QueueWorkerOptions): Promise<RunningWorker> {
  const connection = connectionOptions(opts.queue);
  const name = opts.name ?? `${os.hostname()}-${process.pid}`;
  const log = opts.onEvent ?? (() => {});
  const secret = opts.secret ?? loadQueueSecret().key;
  // This machine's default sandbox, before anything connects: a worker that would refuse its jobs says so at once (a
  // refusal is thrown), and says once per sandbox why it is unsafe.
  const warned = new Set<string>();
  const checkExposure = (info: SandboxInfo) => {
    const warning = checkQueueExposure(info, opts.queue);
    if (warning && !warned.has(info.label)) {
      warned.add(info.label);
      log(warning);
    }
  };
  checkExposure(await detectSandbox({}));
  const redis = new Redis({ ...connection, lazyConnect: true });
  // One line when the queue goes away and one when it is back, not one per queue and reconnect attempt.
  let unreachable: string | null = null;
  let stopping = false;
  const lost = (err: Error) => {
    if (unreachable !== null || stopping) return;
    unreachable = err.message;
    log(`the queue at ${opts.queue.display} is unreachable (${err.message}); retrying, and jobs resume when it is back (a signal still stops this worker)`);
  };
  redis.on('error', lost);
  redis.on('ready', () => {
    if (unreachable === null) return;
    unreachable = null;
    log(`the queue at ${opts.queue.display} is reachable again`);
  });
  await redis.connect().catch((err: Error) => {
    throw new Error(`cannot reach the queue at ${opts.queue.display}: ${err.message}`);
  });
  // Named after this process; the folders of killed workers are removed on the way.
  const work = processTempDir('opencoder-worker-');
  const repos = new Map<string, Promise<string>>();
  const indexes = new Map<string, Promise<IndexCopy>>();
  const files = new Map<string, Promise<string>>();
  const backends = new Map<string, LlmBackend>();
  const slots = new Limiter(Math.max(1, opts.concurrency ?? 1));
  /** The bundle hash of each unpacked repository folder: what names its files on every worker. */
  const bundleOfDir = new Map<string, string>();
  let finished = 0;
  let givenBack = 0;
  /** The jobs running now: what cancels each, and the lock token that gives it back. */
  const running = new Map<string, { controller: AbortController; job: Job<QueueJobData, QueueJobReturn>; token: string | undefined }>();

  const repoDir = (ref: BundleRef) =>
    once(repos, ref.sha256, async () => {
      const dir = path.join(work, `repo-${ref.sha256.slice(0, 16)}`);
      unpackRepository(await fetchBundle(redis, ref, opts.cacheDir), dir);
      bundleOfDir.set(dir, ref.sha256);
      return dir;
    });
  const fileOf = (ref: BundleRef & { name: string }) =>
    once(files, `${ref.sha256}/${ref.name}`, async () => {
      const file = path.join(work, `file-${ref.sha256.slice(0, 16)}`, path.basename(ref.name));
      unpackFile(await fetchBundle(redis, ref, opts.cacheDir), file);
      return file;
    });
  const indexOf = (ref: BundleRef) =>
    once(indexes, ref.sha256, async () => {
      const file = path.join(work, `index-${ref.sha256.slice(0, 16)}.db`);
      unpackFile(await fetchBundle(redis, ref, opts.cacheDir), file);
      return {
        store: Store.open(file),
        cache: new VectorIndexCache(),
        validators: new Map(),
        references: new Map(),
        file,
        inUse: 0,
      };
    });
  // One validator per run, as a local run has: verdicts are reused within a run (here and, through Redis, on the
  // other workers), never carried into another run. A run's validator is closed once a newer run's job arrives and
  // none of its own is running.
  const validatorOf = (copy: IndexCopy, runId: string, manifestHash: string, sandbox: string) =>
    once(copy.validators, `${runId}\u0000${manifestHash}\u0000${sandbox}`, async () => {
      const experiments = copy.store.experiments;
      // The sandbox the run asked for, as this machine gives it: one that leaves candidates this machine's network
      // may not take jobs from a queue without a password, and is said to be unsafe with one.
      const info = await detectSandbox({ mode: sandbox as SandboxOptions['mode'] });
      try {
        checkExposure(info);
      } catch (err) {
        throw new UnrecoverableError(`run ${runId}: ${(err as Error).message}`);
      }
      return createValidator({
        sandbox: { mode: sandbox } as SandboxOptions,
        ...(opts.validatorConcurrency ? { concurrency: opts.validatorConcurrency } : {}),
        sharedVerdicts: sealedVerdicts(redis, secret, runId, (task) => bundleOfDir.get(task.repoPath) ?? null, log),
        expectations: {
          // The coordinator's check, which the snapshot holds, before one made here: both judge the same files, and
          // using the coordinator's keeps every verdict's expectations those of a local run.
          get: (taskId, key) => copy.references.get(`${manifestHash}\u0000${taskId}`) ?? experiments.referenceCheck(manifestHash, taskId, key),
          put: (taskId, check) => experiments.saveReferenceCheck(manifestHash, taskId, check),
        },
      });
    });

  /** Jobs running now, by run; the run of the newest job. */
  const runs = new Map<string, number>();
  let latestRun: string | null = null;
  async function retireValidators(): Promise<void> {
    for (const p of indexes.values()) {
      const copy = await p.catch(() => null);
      if (!copy) continue;
      for (const [key, v] of [...copy.validators]) {
        const run = key.split('\u0000')[0]!;
        if (run === latestRun || (runs.get(run) ?? 0) > 0) continue;
        copy.validators.delete(key);
        (await v.catch(() => null))?.close();
      }
    }
    for (const [run, n] of [...runs]) if (n === 0 && run !== latestRun) runs.delete(run);
  }

  // A copy of an index that a newer snapshot has replaced is closed once no job uses it.
  let latestIndex: string | null = null;
  async function retireIndexes(): Promise<void> {
    for (const [sha, p] of [...indexes]) {
      if (sha === latestIndex) continue;
      const copy = await p.catch(() => null);
      if (!copy || copy.inUse > 0) continue;
      indexes.delete(sha);
      for (const [k, b] of [...backends]) {
        if (!k.startsWith(`${sha}\u0000`)) continue;
        backends.delete(k);
        await b.dispose?.().catch(() => {});
      }
      await closeCopy(copy);
    }
  }

  async function backendOf(job: QueueJobPayload, copy: IndexCopy): Promise<LlmBackend> {
    // The record as the run stored it, but for a file it names: here, this worker's copy of that file.
    const spec: BackendSpec =
      job.backend.kind === 'imported' && job.files.samplesFile ? { ...job.backend, samplesFile: await fileOf(job.files.samplesFile) } : job.backend;
    const key = `${job.index.sha256}\u0000${JSON.stringify(spec)}`;
    let b = backends.get(key);
    if (!b) {
      b = opts.makeBackend(spec, copy.store.exchanges);
      backends.set(key, b);
    }
    return b;
  }

  /** The payload of a job, once its seal opens for this job's id; refused (unrecoverable, counted) otherwise. */
  function openJob(job: Job<QueueJobData, QueueJobReturn>): QueueJobPayload {
    const data = job.data;
    if (data?.v !== PAYLOAD_VERSION) {
      throw new UnrecoverableError(
        `job payload version ${data?.v}, this worker reads version ${PAYLOAD_VERSION}: run the same OpenCoder version as the coordinator`,
      );
    }
    const p = job.id ? unseal<QueueJobPayload>(secret, 'job', job.id, data) : null;
    // The seal names the job id, and the id names (run, task, condition): a payload moved to another job does not open.
    if (!p || p.runId !== data.runId || jobIdOf(p.runId, p.task.id, p.condition.id) !== job.id) {
      const why = `${REFUSED_JOB} job ${job.id ?? '?'} of run ${String(data.runId).slice(0, 40)} does not verify (altered in Redis, or sealed with another queue secret than this worker's); it was not run`;
      log(why);
      throw new UnrecoverableError(why);
    }
    return p;
  }
  /** What each job refers to once opened (for the failure log line). */
  const opened = new WeakMap<object, QueueJobPayload>();

  async function handle(job: Job<QueueJobData, QueueJobReturn>, token?: string): Promise<QueueJobReturn> {
    const p = openJob(job);
    opened.set(job, p);
    if (p.encoderId !== opts.encoder.id) {
      throw new UnrecoverableError(
        `run ${p.runId} was indexed with encoder ${p.encoderId}; this worker has ${opts.encoder.id}: start it with the same encoder (and model files) as the coordinator`,
      );
    }
    const controller = new AbortController();
    const key = job.id ?? `${p.runId}/${p.task.id}/${p.condition.id}`;
    running.set(key, { controller, job, token });
    try {
      const result = await slots.run(() => runJob(job, p, controller.signal));
      return seal(secret, 'result', job.id!, result);
    } catch (err) {
      if (!stopping || !controller.signal.aborted) throw err;
      // Stopped by a signal: back to the queue at once, without spending an attempt (BullMQ's delayed-job pattern).
      // When the queue cannot be reached, the job's lock lapses instead and the stalled check hands it on.
      const back = await within(
        job.moveToDelayed(Date.now(), token).then(() => true),
        2000,
        false,
      );
      if (back) {
        givenBack++;
        log(`${p.task.id} / ${p.condition.id}: given back to the queue`);
        throw new DelayedError();
      }
      throw err;
    } finally {
      running.delete(key);
    }
  }

  async function runJob(job: Job<QueueJobData, QueueJobReturn>, p: QueueJobPayload, signal: AbortSignal): Promise<QueueJobResult> {
    const started = performance.now();
    let held: IndexCopy | null = null;
    let heldRun: string | null = null;
    try {
      const [repo, view, copy] = await Promise.all([repoDir(p.repo.bundle), p.taskView ? repoDir(p.taskView) : Promise.resolve(null), indexOf(p.index)]);
      held = copy;
      copy.inUse++;
      runs.set(p.runId, (runs.get(p.runId) ?? 0) + 1);
      heldRun = p.runId;
      latestRun = p.runId;
      latestIndex = p.index.sha256;
      // The snapshot names the coordinator's folders; here the repository is this worker's unpacked copy.
      copy.store.relocateRepository(p.repo.repoId, repo);
      if (p.reference) copy.references.set(`${p.manifestHash}\u0000${p.task.id}`, p.reference);
      const task: Task = { ...p.task, repoPath: repo, ...(view ? { taskViewPath: view } : {}) };
      const inner = await backendOf(p, copy);
      // The exchanges this job makes are captured and returned with its outcome, so the coordinator's store holds
      // them as a local run's would (record / replay, spend).
      const exchanges: ExchangeRecord[] = [];
      const capturing = {
        record: (ex: ExchangeRecord) => {
          exchanges.push(ex);
          return exchanges.length;
        },
      } as unknown as ExchangeStore;
      const validator = await validatorOf(copy, p.runId, p.manifestHash, p.sandbox);
      const services = pairServices({
        store: copy.store,
        encoder: opts.encoder,
        repoIds: new Map([[repo, p.repo.repoId]]),
        backend: inner,
        exchanges: capturing,
        validator,
        prices: opts.prices,
        cache: copy.cache,
        runId: p.runId,
        decompose: p.decompose,
        ...(p.detail ? { detail: p.detail } : {}),
      });
      log(
        `${p.task.id} / ${p.condition.id}: started (run ${p.runId}, attempt ${job.attemptsMade + 1}${job.stalledCounter ? `, after ${job.stalledCounter} stalled` : ''})`,
      );
      const outcome = await runPair(task, p.condition, services, signal);
      if (!outcome) throw new Error(`${p.task.id} / ${p.condition.id} was cancelled on ${name}`);
      const durationMs = Math.round(performance.now() - started);
      const verdict = outcome.status === 'ok' ? (outcome.result.selected.correct ? 'correct' : 'wrong') : `unscored (${outcome.result.cause})`;
      log(`${p.task.id} / ${p.condition.id}: ${verdict} in ${(durationMs / 1000).toFixed(1)} s`);
      return { outcome, worker: name, durationMs, exchanges, verdicts: { validator: validator.id, use: { ...validator.use } } };
    } finally {
      if (held) held.inUse--;
      if (heldRun) runs.set(heldRun, runs.get(heldRun)! - 1);
      await retireIndexes();
      await retireValidators();
    }
  }

  const kinds = opts.backends ?? QUEUED_BACKENDS;
  const workers = kinds.map((kind) => {
    const w = new Worker<QueueJobData, QueueJobReturn>(queueNameOf(kind), handle, {
      connection,
      name,
      concurrency: Math.max(1, opts.concurrency ?? 1),
      lockDuration: opts.lockMs ?? 30_000,
      stalledInterval: opts.lockMs ?? 30_000,
      maxStalledCount: 2,
      ...(opts.rateLimit ? { limiter: { max: opts.rateLimit.max, duration: opts.rateLimit.durationMs } } : {}),
    });
    // A connection error is the queue going away: said once (above), not per queue and per retry.
    w.on('error', (err) =>
      /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection is closed/.test(err.message) ? lost(err) : log(`queue ${queueNameOf(kind)}: ${err.message}`),
    );
    w.on('failed', (job, err) => {
      // Counted once per job: when BullMQ gives up on it (attempts spent, or unrecoverable), not per attempt.
      if (job && (err instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1))) finished++;
      const p = job && opened.get(job);
      if (job && p) log(`${p.task.id} / ${p.condition.id}: job failed on attempt ${job.attemptsMade}: ${err.message}`);
    });
    w.on('completed', () => finished++);
    return w;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  log(`worker ${name} on ${opts.queue.display}: queues ${kinds.map(queueNameOf).join(', ')}; ${opts.concurrency ?? 1} job(s) at once; cache ${opts.cacheDir}`);

  const letGo = async () => {
    for (const p of indexes.values()) {
      const copy = await p.catch(() => null);
      if (copy) await closeCopy(copy);
    }
    redis.disconnect();
    fs.rmSync(work, { recursive: true, force: true });
  };

  return {
    name,
    get finished() {
      return finished;
    },
    get givenBack() {
      return givenBack;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await letGo();
    },
    async stop(graceMs = 5000) {
      stopping = true;
      const deadline = Date.now() + graceMs;
      for (const { controller } of running.values()) controller.abort();
      // Does the queue answer? A polite close with an absent Redis waits for it for ever (its QUIT never returns).
      const answers =
        unreachable === null &&
        (await within(
          redis.ping().then(() => true),
          1000,
          false,
        ));
      // The running jobs end at their next check of the signal and are given back; then the workers close politely,
      // or, when the queue is gone, drop their connections at once.
      const closed = answers
        ? await within(
            Promise.all(workers.map((w) => w.close())).then(() => true),
            Math.max(0, deadline - Date.now()),
            false,
          )
        : await within(
            Promise.all(workers.map((w) => w.close(true))).then(() => false),
            1000,
            false,
          );
      await letGo();
      return { givenBack, unreachable: !closed };
    },
  };
}
