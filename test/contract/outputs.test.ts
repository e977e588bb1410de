// The contract's output schemas: every call has one, the engine's real shapes (built by the engine's own code
// where it has no side effects, by hand or from the shared fixtures otherwise) pass it, and a malformed answer
// is refused by parseOutput with a message naming the call and the field. The derived CallOutputs types are
// checked against the DTO names the engine and the UI import.

import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  CALLS,
  CONTRACT_VERSION,
  parseOutput,
  type AppInfo,
  type CallName,
  type CallOutputs,
  type JobInfo,
  type MinedSet,
  type ModelPrice,
  type PricesInfo,
  type RepoSummary,
  type ReportModel,
  type SamplePassK,
  type Settings,
  type TaskResult,
} from '../../contract/index.ts';
import { passAtKOf } from '../../main/benchmarks/samples.ts';
import { DEFAULT_PRICES } from '../../main/generate/cost.ts';
import { factorialConditions, LADDER, METHODS, type Condition } from '../../main/pipeline/methods.ts';
import { buildReportFixture } from '../helpers/report-fixture.ts';
import { minedSetFixture } from '../helpers/mined-set-fixture.ts';
import { taskResult } from '../renderer/fixtures.ts';

const APP_INFO: AppInfo = {
  contract: CONTRACT_VERSION,
  version: '0.1.0',
  mode: 'browser',
  dbPath: '/home/u/.opencoder/opencoder.db',
  encoder: { name: 'opencoder-subtoken-hash-256', notice: 'UniXcoder is not installed; using the built-in encoder.' },
  sandbox: 'weak (subprocess, no network namespace)',
  sampleRepo: '/opt/opencoder/resources/sample-repo',
  sampleManifest: '/opt/opencoder/resources/sample-repo/tasks.jsonl',
  allowedRoots: ['/home/u/code', '/opt/opencoder/resources/sample-repo'],
  keys: { openai: true, gemini: false },
  keyStorage: 'session',
  folderPicker: false,
};

const SETTINGS: Settings = { backend: { kind: 'offline' }, sandbox: 'auto', encoder: 'auto', parallel: 2, pipeline: { topK: 8 } };

const REPO: RepoSummary = {
  id: 1,
  root: '/home/u/code/shop',
  name: 'shop',
  lastIndexedAt: '2026-01-02T10:00:00.000Z',
  files: 42,
  otherFiles: 1,
  units: { function: 120, class: 14, method: 88 },
  chunks: 300,
  apiEntries: 222,
  embedded: 642,
  encoder: 'opencoder-subtoken-hash-256',
  skipped: { binary: 3, 'too-large': 1 },
  testFiles: { 'named as a test': 6, 'TestCase subclass': 1 },
};

const JOB: JobInfo = {
  id: 'index-1-a1b2c3',
  kind: 'index',
  state: 'done',
  title: 'Index shop',
  startedAt: '2026-01-02T09:59:00.000Z',
  finishedAt: '2026-01-02T10:00:00.000Z',
  progress: { phase: 'embed', done: 642, total: 642, message: 'embedded 642 items', etaMs: null },
  error: null,
  result: { repoId: 1 },
};

const methodInfo = (c: Condition) => ({ id: c.id, label: c.label, family: c.family, description: c.description });

/** Realistic answers of several calls, each as the engine's handler builds it. */
const REALISTIC: { [K in CallName]?: CallOutputs[K] } = {
  'app.info': APP_INFO,
  'settings.get': SETTINGS,
  'keys.set': { openai: true, gemini: false },
  'prices.get': { source: 'built-in defaults', file: '/home/u/.opencoder/prices.json', models: structuredClone(DEFAULT_PRICES.models) },
  'repo.pick': { path: null, reason: 'No folder was chosen.' },
  'repo.list': [REPO],
  'repo.index': { jobId: 'index-1-a1b2c3' },
  'repo.skipped': [
    { path: 'assets/logo.png', reason: 'binary', detail: null },
    { path: 'data/dump.sql', reason: 'too-large', detail: '12 MB > 1 MB' },
  ],
  'job.list': [
    JOB,
    {
      ...JOB,
      id: 'task-2-d4e5f6',
      kind: 'task',
      state: 'running',
      finishedAt: null,
      result: null,
      progress: { phase: 'generate', done: 1, total: 3, spentUsd: 0.002 },
    },
    {
      ...JOB,
      id: 'mine-3-0a1b2c',
      kind: 'mine',
      state: 'paused',
      title: 'Find tasks in shop',
      finishedAt: '2026-01-02T10:02:00.000Z',
      result: { mined: { folder: '/home/u/code/shop', out: '/home/u/.opencoder/benchmarks/mined-shop' } },
      progress: { phase: 'checks', done: 12, total: 47, message: '12/47 shop.pricing.apply_discount: kept' },
    },
  ],
  'job.cancel': { ...JOB, state: 'cancelled' },
  'repo.mine': { jobId: 'mine-3-0a1b2c', out: '/home/u/.opencoder/benchmarks/mined-shop' },
  'repo.mined': minedSetFixture('/home/u/.opencoder/benchmarks/mined-shop'),
  'methods.list': { methods: Object.values(METHODS).map(methodInfo), ladder: LADDER.map(methodInfo), factorial: factorialConditions().map(methodInfo) },
  'tasks.list': {
    manifest: '/opt/opencoder/resources/sample-repo/tasks.jsonl',
    hash: 'sha256:0f1e2d',
    tasks: [
      {
        id: 'pkg/apply_discount',
        file: 'pkg/pricing.py',
        qualname: 'apply_discount',
        requirement: 'Apply a percentage discount.',
        signature: 'def apply_discount(amount, percent):',
        shape: 'repository',
        hasReference: true,
      },
    ],
  },
  'experiment.estimate': {
    calls: 30,
    inputTokens: 27_000,
    outputTokensExpected: 9000,
    usdExpected: 0.0095,
    usdMax: 0.02,
    note: 'gpt-4o-mini at 2026-11-29 prices',
    assumptions: '5 candidates, up to 2 repairs',
  },
  'experiment.list': [
    {
      id: 'run-20260102-abc',
      kind: 'run',
      state: 'done',
      createdAt: '2026-01-02T10:05:00.000Z',
      manifestFile: '/m/tasks.jsonl',
      tasks: 6,
      conditions: ['baseline-rag', 'opencoder'],
      results: 12,
      errors: 0,
      backend: 'offline:retrieve-and-adapt@1',
      label: 'tasks.jsonl (6 tasks) · baseline-rag, opencoder · offline:retrieve-and-adapt@1',
      autoLabel: 'tasks.jsonl (6 tasks) · baseline-rag, opencoder · offline:retrieve-and-adapt@1',
      subject: 'tasks.jsonl · 6 tasks',
    },
  ],
  'run.rename': {
    id: 'run-20260102-abc',
    kind: 'run',
    state: 'done',
    createdAt: '2026-01-02T10:05:00.000Z',
    manifestFile: '/m/tasks.jsonl',
    tasks: 1,
    conditions: ['opencoder'],
    results: 1,
    errors: 0,
    backend: 'offline:retrieve-and-adapt@1',
    label: 'first try',
    autoLabel: 't1 · opencoder · offline:retrieve-and-adapt@1',
    subject: 't1 (tasks.jsonl)',
  },
  'experiment.model': buildReportFixture(),
  'experiment.result': taskResult(),
  'report.render': { files: [{ name: 'opencoder-run-1.md', mime: 'text/markdown', content: '# Report\n' }] },
  'samples.passk': {
    path: '/data/repoexec/results',
    format: 'repoexec',
    ...passAtKOf(
      [
        { taskId: 't1', n: 10, c: 3 },
        { taskId: 't2', n: 4, c: 0 },
      ],
      [1, 5],
      'humaneval',
    ),
  },
};

describe('call outputs', () => {
  it('every call in CALLS has an output schema beside its input schema', () => {
    for (const [name, spec] of Object.entries(CALLS)) {
      expect(spec.input, `${name}.input`).toBeInstanceOf(z.ZodType);
      expect(spec.output, `${name}.output`).toBeInstanceOf(z.ZodType);
    }
  });

  it('the derived output types are the DTO types the engine and the UI name', () => {
    expectTypeOf<CallOutputs['app.info']>().toEqualTypeOf<AppInfo>();
    expectTypeOf<CallOutputs['settings.set']>().toEqualTypeOf<Settings>();
    expectTypeOf<CallOutputs['prices.get']>().toEqualTypeOf<PricesInfo>();
    expectTypeOf<PricesInfo['models'][string]>().toEqualTypeOf<ModelPrice>();
    expectTypeOf<CallOutputs['repo.list']>().toEqualTypeOf<RepoSummary[]>();
    expectTypeOf<CallOutputs['job.cancel']>().toEqualTypeOf<JobInfo>();
    expectTypeOf<CallOutputs['samples.passk']>().toEqualTypeOf<SamplePassK>();
    expectTypeOf<CallOutputs['experiment.result']>().toEqualTypeOf<TaskResult>();
    expectTypeOf<CallOutputs['experiment.model']>().toEqualTypeOf<ReportModel>();
    expectTypeOf<CallOutputs['repo.mined']>().toEqualTypeOf<MinedSet>();
  });

  it('realistic answers pass their schema and come back unchanged', () => {
    expect(Object.keys(REALISTIC).length).toBeGreaterThanOrEqual(15);
    for (const [name, value] of Object.entries(REALISTIC)) {
      const r = parseOutput(name as CallName, value);
      expect(r.ok ? null : r.error.message, name).toBeNull();
      if (r.ok) expect(r.value, name).toEqual(value);
    }
  });

  it('a price table the engine loaded passes even where Settings could not have written it', () => {
    const models = { 'my-local-model': { inputPerMTok: 0, outputPerMTok: 0, asOf: 'January 2026', note: 'x'.repeat(600) } };
    expect(parseOutput('prices.get', { source: '/home/u/.opencoder/prices.json', file: '/home/u/.opencoder/prices.json', models }).ok).toBe(true);
  });

  it('a malformed answer is refused with a message naming the call and the field', () => {
    const cases: [CallName, unknown, string][] = [
      ['repo.list', [{ ...REPO, files: '42' }], '0.files'],
      ['app.info', { ...APP_INFO, keys: { openai: true } }, 'keys.gemini'],
      ['job.cancel', { ...JOB, state: 'exploded' }, 'state'],
      ['job.list', [{ ...JOB, progress: { phase: 'embed', done: 1 } }], '0.progress.total'],
      ['settings.get', { ...SETTINGS, parallel: 0 }, 'parallel'],
      ['samples.passk', { ...REALISTIC['samples.passk']!, perTask: [{ taskId: 't1', n: 10, c: -1, passAtK: {} }] }, 'perTask.0.c'],
      ['experiment.result', { ...taskResult(), taskId: undefined }, 'taskId'],
      ['experiment.model', { ...buildReportFixture(), tasks: 'none' }, 'tasks'],
      ['report.render', { files: [{ name: 'r.md', mime: 'text/markdown' }] }, 'files.0.content'],
      ['repo.mined', { ...REALISTIC['repo.mined']!, kept: [{ ...REALISTIC['repo.mined']!.kept[0]!, isolation: 'sandboxed' }] }, 'kept.0.isolation'],
      ['job.list', [{ ...JOB, kind: 'mine', result: { mined: { folder: '/home/u/code/shop' } } }], '0.result.mined.out'],
    ];
    for (const [name, value, field] of cases) {
      const r = parseOutput(name, value);
      expect(r.ok, name).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe('engine');
      expect(r.error.message).toContain(`invalid output of ${name}`);
      expect(r.error.message).toContain(`${field}:`);
      expect(r.error.issues?.map((i) => i.path)).toContain(field);
    }
  });

  it('an answer that is not an object at all names the whole output, and an unknown call is not found', () => {
    const r = parseOutput('experiment.result', null);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.issues?.[0]?.path).toBe('(output)');
    const u = parseOutput('shell.openExternal' as CallName, {});
    expect(u.ok).toBe(false);
    if (!u.ok) expect(u.error).toEqual({ code: 'not-found', message: 'unknown call shell.openExternal' });
  });
});
