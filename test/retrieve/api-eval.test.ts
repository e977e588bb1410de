import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../main/store/store.ts';
import { runIndex } from '../../main/index/indexer.ts';
import { makeConfig } from '../../main/model/config.ts';
import {
  ApiPool,
  canonicalKey,
  isHeldOut,
  predictedApis,
  protocolReport,
  referenceUses,
  resolveTruth,
  scoreTask,
  statedTruth,
  summarise,
} from '../../main/experiment/eval/api-eval.ts';
import { evaluateTaskApis, moduleView, truthTarget } from '../../main/experiment/eval/api-run.ts';
import type { Evidence, RetrievalTrace } from '../../main/model/trace.ts';
import { candidateFeatures, SELECTOR_FEATURES } from '../../main/retrieve/select-api.ts';
import { fitLogistic, thresholdScore } from '../../scripts/fit-api-selector.ts';
import { fakeEncoder } from '../helpers/fake-encoder.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

// A hand-built repository: the target pkg.core.clip uses an imported function, an imported exception
// class, a constant defined elsewhere, a class attribute, and a builtin the repository happens to shadow.
const FILES = {
  'pkg/__init__.py': '',
  'pkg/errors.py': 'class BadInput(ValueError):\n    """Raised on bad input."""\n',
  'pkg/util.py': [
    'LIMIT = 10',
    '',
    'def is_text(x):',
    '    """True for str."""',
    '    return isinstance(x, str)',
    '',
    'def enumerate(x):',
    '    """A shadowing helper nobody should resolve the builtin to."""',
    '    return x',
    '',
    'class Box:',
    '    SIZE = 3',
    '',
    '    def area(self):',
    '        return self.SIZE ** 2',
    '',
  ].join('\n'),
  'pkg/other.py': 'def unrelated_helper(a, b):\n    """Adds."""\n    return a + b\n',
  'pkg/core.py': [
    'from .errors import BadInput',
    'from .util import is_text, Box',
    '',
    'def clip(s):',
    '    """Clip s to LIMIT characters; raise BadInput when s is not text."""',
    '    if not is_text(s):',
    '        raise BadInput(s)',
    '    for i, ch in enumerate(s):',
    '        pass',
    '    return s[: LIMIT * Box.SIZE]',
    '',
  ].join('\n'),
};
const REFERENCE = FILES['pkg/core.py'].split('\n').slice(3).join('\n');

let dir: string;
let root: string;
let store: Store;
let repoId: number;

beforeAll(async () => {
  dir = tmpDir('oc-apieval-');
  root = makeRepo(FILES, 'oc-apieval-repo-');
  store = Store.open(path.join(dir, 'w.db'));
  repoId = (await runIndex({ store, root, encoder: fakeEncoder() })).repoId;
});
afterAll(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(root, { recursive: true, force: true });
});

describe('API truth', () => {
  it('takes every repository API the reference uses: calls, exception classes, constants, class attributes — never a builtin', async () => {
    const target = truthTarget(store, repoId, { file: 'pkg/core.py', qualname: 'clip' });
    expect(target.module).toBe('pkg.core');
    const truth = resolveTruth(ApiPool.load(store, repoId), await referenceUses(REFERENCE), target)
      .map((t) => t.key)
      .sort();
    expect(truth).toEqual(['pkg.errors:BadInput', 'pkg.util:Box', 'pkg.util:Box.SIZE', 'pkg.util:LIMIT', 'pkg.util:is_text']);
    // `enumerate` is the builtin: the repository's pkg.util.enumerate is not what the reference calls.
    expect(truth).not.toContain('pkg.util:enumerate');
    expect(truth).not.toContain('pkg.core:clip');
  });

  it('finds a call whose result is read further (`f(x).y.z()`), and only the names in it', async () => {
    const ref = ['def host(url, pairs):', '    h = parse_url(url).netloc.lower()', '    return h, pairs[0].key, Box().area()'].join('\n');
    const uses = (await referenceUses(ref)).map((u) => `${u.chain.join('.')}${u.called ? '()' : ''}`);
    expect(uses).toEqual(['parse_url()', 'Box()']);
  });

  it("uses the manifest's ground_truth_apis when given, keeping unknown names for bare matching only", () => {
    const target = truthTarget(store, repoId, { file: 'pkg/core.py', qualname: 'clip' });
    const truth = statedTruth(ApiPool.load(store, repoId), ['pkg.util:is_text', 'BadInput', 'pkg.util.Box', 'nowhere'], target).map((t) => t.key);
    expect(truth).toEqual(['pkg.util:is_text', 'pkg.errors:BadInput', 'pkg.util:Box', '?:nowhere']);
  });

  it('restricts the task-view pool to the module view when a task has no view folder', async () => {
    const target = truthTarget(store, repoId, { file: 'pkg/core.py', qualname: 'clip' });
    expect([...moduleView(store, repoId, target)].sort()).toEqual(['pkg.core', 'pkg.errors', 'pkg.util']);
    const task = {
      id: 't/clip',
      benchmark: 'hand',
      requirement: 'Add two numbers a and b with unrelated_helper.',
      signature: 'def clip(s):',
      file: 'pkg/core.py',
      qualname: 'clip',
      reference: REFERENCE,
    };
    const tv = await evaluateTaskApis({ store, encoder: fakeEncoder(), repoId, task, protocol: 'task-view', config: makeConfig(), moduleViewOnly: true });
    expect(tv.trace.evidence.filter((e) => e.source === 'api').some((e) => e.module === 'pkg.other')).toBe(false);
    const repo = await evaluateTaskApis({ store, encoder: fakeEncoder(), repoId, task, protocol: 'repository', config: makeConfig() });
    expect(repo.trace.evidence.filter((e) => e.source === 'api').some((e) => e.module === 'pkg.other')).toBe(true);
    // Every scope is scored, against the same truth.
    expect(Object.keys(tv.byScope).sort()).toEqual(['fused', 'kept', 'retrieved']);
    expect(tv.byScope.kept.truth).toEqual(tv.byScope.retrieved.truth);
  });
});

describe('prediction scopes', () => {
  const ev = (module: string, qualname: string, u: number, extra: Partial<Evidence> = {}) =>
    ({ source: 'api', module, qualname, u, kept: true, reason: 'kept: fused rank 1', title: `${module}.${qualname}`, ...extra }) as Evidence;
  const trace = {
    evidence: [
      ev('m', 'a', 0.1),
      ev('m', 'b', 0.5, { kept: false, droppedAt: 'topk', reason: 'outside the fused top 10' }),
      ev('m', 'C.__init__', 0.2, { kept: false, droppedAt: 'dedup', reason: 'duplicate of …' }),
      ev('m', 'C', 0.3),
      ev('m', 'd', 0.4, { kept: false, droppedAt: 'keep', reason: 'below the top 70 %' }),
      ev('m', 'e', 0.4, { kept: false, droppedAt: 'selection', reason: 'API selection: not needed' }),
      ev('m', 'x', 0.9, { kept: false, droppedAt: 'refinement', reason: 'API refinement: the target itself' }),
    ],
    fused: [ev('m', 'a', 0.1)],
  } as unknown as RetrievalTrace;

  it('kept = after the keep rule and refinement, united over steps; retrieved = all the rules left; fused = the top K', () => {
    expect(
      predictedApis(trace, 'kept')
        .map((p) => p.key)
        .sort(),
    ).toEqual(['m:C', 'm:a', 'm:b']);
    expect(
      predictedApis(trace, 'retrieved')
        .map((p) => p.key)
        .sort(),
    ).toEqual(['m:C', 'm:a', 'm:b', 'm:d', 'm:e']);
    expect(predictedApis(trace, 'fused').map((p) => p.key)).toEqual(['m:a']);
    // Constructors collapse onto their class; the lowest u is kept.
    expect(predictedApis(trace, 'kept').find((p) => p.key === 'm:C')?.u).toBe(0.2);
    expect(canonicalKey('m', 'C.constructor')).toBe('m:C');
  });
});

describe('matching and protocol rules', () => {
  const t = (key: string) => ({ key, title: key });
  const p = (key: string, u = 0.5) => ({ key, title: key, u });

  it('strict matching compares module:qualname keys; bare matching the last name, case-insensitively', () => {
    const r = scoreTask('x', [t('pkg.util:is_text'), t('pkg.errors:BadInput')], [p('view:IS_TEXT'), p('pkg.errors:BadInput'), p('m:extra')]);
    expect(r.strict).toMatchObject({ precision: 1 / 3, recall: 1 / 2, exact: false, count: 'over' });
    expect(r.bare).toMatchObject({ precision: 2 / 3, recall: 1, exact: false, count: 'over' });
  });

  it('repository excludes empty truths from the macro; task-view includes them (empty for empty is exact)', () => {
    const rs = [scoreTask('a', [t('m:f')], [p('m:f')]), scoreTask('b', [], []), scoreTask('c', [], [p('m:g')])];
    const repo = summarise(rs, 'repository');
    expect(repo).toMatchObject({ tasks: 1, allTasks: 3, tasksWithTruth: 1, f1: 1, exactMatch: 1, matching: 'strict' });
    const tv = summarise(rs, 'task-view');
    expect(tv).toMatchObject({ tasks: 3, matching: 'bare', count: { over: 1, exact: 2, under: 0 } });
    expect(tv.f1).toBeCloseTo(2 / 3, 12);
    expect(tv.exactMatch).toBeCloseTo(2 / 3, 12);
  });

  it('reports the macro per benchmark and the mean over benchmarks', () => {
    const rs = [
      scoreTask('a', [t('m:f')], [p('m:f')], { benchmark: 'one' }),
      scoreTask('b', [t('m:f')], [p('m:f')], { benchmark: 'one' }),
      scoreTask('c', [t('m:f')], [p('m:g')], { benchmark: 'two' }),
    ];
    const r = protocolReport(rs, 'repository', 'kept');
    expect(Object.keys(r.benchmarks)).toEqual(['one', 'two']);
    expect(r.benchmarks.one!.f1).toBe(1);
    expect(r.benchmarks.two!.f1).toBe(0);
    expect(r.meanOverBenchmarks).toEqual({ f1: 0.5, exactMatch: 0.5, benchmarks: 2 });
    expect(r.summary.f1).toBeCloseTo(2 / 3, 12);
    expect(protocolReport(rs.slice(0, 2), 'repository', 'kept').meanOverBenchmarks).toBeNull();
  });

  it('scores uncertainty on the held-out half over the retrieved pool and flags a degenerate one', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `T/${i}`);
    const rs = ids.map((id) => scoreTask(id, [t('m:right')], [p('m:right', 0.1)], { pool: [p('m:right', 0.1), p('m:wrong', 0.9)] }));
    const s = summarise(rs, 'repository');
    expect(s.uncertainty.auroc).toBe(1);
    expect(s.uncertainty.items).toBe(2 * rs.filter((r) => isHeldOut(r.taskId)).length);
    expect(s.uncertainty.degenerate).toBeNull();
    const allRight = summarise(
      ids.map((id) => scoreTask(id, [t('m:right')], [p('m:right')])),
      'repository',
    );
    expect(allRight.uncertainty.degenerate).toMatch(/no false positives/);
    const split = Array.from({ length: 200 }, (_, i) => isHeldOut(`T/${i}`)).filter(Boolean).length;
    expect(split).toBeGreaterThan(70);
    expect(split).toBeLessThan(130);
  });
});

describe('selector features', () => {
  const api = (qualname: string, extra: Partial<Evidence> = {}) =>
    ({
      source: 'api',
      key: `api:${qualname}`,
      module: 'pkg.mod',
      qualname,
      title: qualname,
      r: 0.5,
      w: 0.4,
      u: 0.3,
      rank: 0,
      step: 0,
      text: `def ${qualname}(): ...`,
      subkind: 'function',
      kept: true,
      ...extra,
    }) as Evidence;
  const ctx = {
    requirement: 'Clip the text with the helper.',
    signature: 'def clip(text: T) -> T:',
    targetModule: 'pkg.mod',
    targetImports: ['.util.helper', '.util.shared'],
    siblingCalls: [['shared', 'len']],
    similarCalls: [],
    similarKeys: new Set<string>(),
    steps: 1,
    alpha: 0.5,
  };
  const feat = (cands: ReturnType<typeof candidateFeatures>, name: string, f: string) =>
    cands.find((c) => c.name === name)!.features[SELECTOR_FEATURES.indexOf(f as never)];

  it('tell a type given in the signature, an import made for the target and a type alias apart', () => {
    const cands = candidateFeatures(
      [
        api('T', { subkind: 'constant', text: "T = TypeVar('T')" }),
        api('LIMIT', { subkind: 'constant', text: 'LIMIT = 10' }),
        api('helper', { module: 'pkg.util' }),
        api('shared', { module: 'pkg.util' }),
      ],
      ctx,
    );
    expect(feat(cands, 'T', 'in_signature')).toBe(1);
    expect(feat(cands, 'T', 'name_in_text')).toBe(0);
    expect(feat(cands, 'helper', 'name_in_text')).toBe(1);
    expect(feat(cands, 'T', 'type_alias')).toBe(1);
    expect(feat(cands, 'LIMIT', 'type_alias')).toBe(0);
    // helper is imported and no sibling uses it: the import is there for the target; shared is used elsewhere.
    expect(feat(cands, 'helper', 'import_unused')).toBe(1);
    expect(feat(cands, 'shared', 'imported')).toBe(1);
    expect(feat(cands, 'shared', 'import_unused')).toBe(0);
    expect(feat(cands, 'LIMIT', 'defined_here')).toBe(1);
  });
});

describe('the selector fit', () => {
  it('is deterministic and learns the direction of an informative feature', () => {
    const xs = Array.from({ length: 60 }, (_, i) => [i % 2, (i * 7) % 5, i % 3 === 0 ? 1 : 0]);
    const ys = xs.map((x, i) => x[0] === 1 && i % 7 !== 0);
    const a = fitLogistic(xs, ys);
    const b = fitLogistic(xs, ys);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.weights[0]).toBeGreaterThan(1);
    expect(Math.abs(a.weights[1]!)).toBeLessThan(a.weights[0]!);
  });

  it('picks the threshold by the mean of both protocols’ macro F1, with each protocol’s task set', () => {
    const byTask = new Map([
      ['repository|a', { protocol: 'repository' as const, truth: 1, p: [0.9, 0.4], y: [true, false] }],
      ['repository|b', { protocol: 'repository' as const, truth: 0, p: [0.45], y: [false] }],
      ['task-view|a', { protocol: 'task-view' as const, truth: 0, p: [0.3], y: [false] }],
    ]);
    // At 0.5 both protocols are perfect (repository ignores the empty-truth task b).
    expect(thresholdScore(byTask, 0.5)).toBe(1);
    expect(thresholdScore(byTask, 0.35)).toBeLessThan(1);
  });
});
