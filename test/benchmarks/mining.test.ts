// Mining a repository into a checked, frozen benchmark: each reason a candidate is dropped, what a kept task holds,
// determinism, resume after a cancel, and bad input (no tests, a suite that fails, one that hangs).

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mineRepository, staticDrop, type MineServices } from '../../main/benchmarks/mining/mine.ts';
import { checkTask, stubOf } from '../../main/benchmarks/mining/check.ts';
import type { Decision, MineCandidate, MineEvent, MineSummary } from '../../main/benchmarks/mining/types.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { Task } from '../../main/model/task.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { needs } from '../helpers/system.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';
import { miningRepo } from './mining-fixture.ts';

const sys = needs('bubblewrap');

/** A fake leak audit: suspects for the ids given, none for the rest. */
function fakeAudit(leaky: string[]): NonNullable<MineServices['auditLeaks']> {
  return async (tasks) => new Map(tasks.map((t) => [t.id, leaky.includes(t.id) ? { suspects: 1, detail: 'planted suspect' } : { suspects: 0, detail: '' }]));
}

function decisions(out: string): Map<string, Decision> {
  const lines = fs
    .readFileSync(path.join(out, '.mine', 'decisions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(1);
  const m = new Map<string, Decision>();
  for (const l of lines) {
    const d = JSON.parse(l) as Decision;
    m.set(d.id, d);
  }
  return m;
}

describe(`mining a repository${sys.note}`, () => {
  let validator: Validator;
  let repo: string;
  let out: string;
  let summary: MineSummary;
  const events: MineEvent[] = [];

  beforeAll(async () => {
    validator = await createValidator();
    repo = miningRepo();
    out = tmpDir('oc-mined-');
    summary = await mineRepository({ folder: repo, out }, { validator, auditLeaks: fakeAudit(['pkg.core.greet']) }, (e) => events.push(e));
  }, 240_000);
  afterAll(() => {
    validator?.close();
    for (const dir of [repo, out]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(sys.skip)('keeps the documented, tested functions whose tests tell the reference from its stub and mutants', () => {
    const m = readManifest(summary.out);
    expect(m.tasks.map((t) => t.id).sort()).toEqual(['pkg.core.Counter.bump', 'pkg.core.add', 'pkg.core.clamp']);
    const add = m.tasks.find((t) => t.id === 'pkg.core.add')!;
    expect(add.signature).toBe('def add(a, b):');
    expect(add.requirement).toBe('Return the sum of a and b, two numbers.');
    expect(add.tests).toEqual(['tests.test_core.AddTests.test_add']);
    expect(add.test_command).toBe('python3 -m unittest tests.test_core.AddTests.test_add');
    expect(add.repoPath).toBe(path.join(out, 'repos', path.basename(repo)));
    expect(add.repo).toBe(`repos/${path.basename(repo)}`);
    const src = add.source as {
      checks: { mutants: { made: number; killed: number; score: number }; reference: { isolation: string; runs: string[] }; stub: { status: string } };
      tests: { direct: number };
    };
    expect(src.checks.mutants.made).toBeGreaterThanOrEqual(5);
    expect(src.checks.mutants.killed).toBeGreaterThan(0);
    expect(src.checks.mutants.score).toBeCloseTo(src.checks.mutants.killed / src.checks.mutants.made, 2);
    expect(src.checks.reference).toMatchObject({ isolation: 'isolated', runs: ['passed', 'passed'] });
    expect(src.checks.stub.status).not.toBe('passed');
    expect(src.tests.direct).toBe(1);
    // The method's class and the clamp's module-level names make their context levels.
    const bump = m.tasks.find((t) => t.id === 'pkg.core.Counter.bump')!;
    expect(bump.signature).toBe('def bump(self, by=1):');
    expect((bump.source as { context: { level: string } }).context.level).toBe('class_runnable');
  });

  it.skipIf(sys.skip)('drops each other candidate with its reason', () => {
    const d = decisions(out);
    const reason = (id: string) => {
      const got = d.get(id);
      return got && !got.kept ? got.reason : got ? 'kept' : 'absent';
    };
    expect(reason('pkg.core.undocumented')).toBe('no-docstring');
    expect(reason('pkg.core.Counter.__init__')).toBe('no-docstring');
    expect(reason('pkg.core.short_doc')).toBe('short-docstring');
    expect(reason('pkg.core.trivial_pass')).toBe('trivial');
    expect(reason('pkg.core.overloaded')).toBe('duplicate');
    expect(reason('pkg.core.overloaded#2')).toBe('duplicate');
    expect(reason('pkg.other.clamp')).toBe('duplicate');
    expect(reason('pkg.core.untested_fn')).toBe('untested');
    // Its test passes after another module's test changed a global, so it fails alone: the reference fails.
    expect(reason('pkg.core.moded')).toBe('reference-fails');
    expect(reason('pkg.core.log_it')).toBe('stub-passes');
    expect(reason('pkg.core.thin_fn')).toBe('thin');
    expect(reason('pkg.core.greet')).toBe('leaks');
    expect(summary.unparsed).toEqual([{ file: 'pkg/broken.py', error: expect.stringContaining('line 1') }]);
    expect(summary).toMatchObject({ candidates: d.size, tasks: 3, isolated: 3 });
    expect(summary.dropped).toMatchObject({
      'no-docstring': 2,
      'short-docstring': 1,
      trivial: 1,
      duplicate: 3,
      untested: 1,
      'reference-fails': 1,
      'stub-passes': 1,
      thin: 1,
      leaks: 1,
    });
    const md = fs.readFileSync(path.join(out, 'MINE.md'), 'utf8');
    expect(md).toContain('pkg/broken.py');
    expect(md).toMatch(/\| thin \(its tests kill no mutant, or only by crashes and hangs\) \| 1 \|/);
    expect(md).toContain('`pkg.core.moded`');
  });

  it.skipIf(sys.skip)('reports progress by phase and each decision as it is made', () => {
    expect(events.filter((e) => e.type === 'phase').map((e) => (e as { phase: string }).phase)).toEqual(['scan', 'trace', 'checks', 'leaks', 'freeze']);
    // The traced run reports as the tests end, against the number the suite loaded.
    const traced = events.filter((e): e is Extract<MineEvent, { type: 'progress' }> => e.type === 'progress' && e.phase === 'trace');
    expect(traced.at(-1)).toMatchObject({ done: 10, total: 10 });
    const checks = events.filter((e): e is Extract<MineEvent, { type: 'decision' }> => e.type === 'decision');
    expect(checks.length).toBe(7); // add, clamp, bump, greet, moded, log_it, thin_fn
    expect(checks.at(-1)).toMatchObject({ done: 7, total: 7 });
  });

  it.skipIf(sys.skip)('never writes to the repository', () => {
    const listing = (root: string): string[] => fs.readdirSync(root, { recursive: true, withFileTypes: false }).map(String).sort();
    expect(listing(repo).some((p) => p.includes('__pycache__') || p.includes('.mine'))).toBe(false);
  });

  it.skipIf(sys.skip)(
    'is deterministic: a fresh run gives the same manifest, byte for byte, and a resumed run after a cancel too',
    async () => {
      const fresh = tmpDir('oc-mined-again-');
      await mineRepository({ folder: repo, out: fresh }, { validator: await createValidator(), auditLeaks: fakeAudit(['pkg.core.greet']) });
      expect(fs.readFileSync(path.join(fresh, 'tasks.jsonl'))).toEqual(fs.readFileSync(summary.out));

      // Cancelled after its second decision, then run again into the same folder: what was decided is not checked again.
      const resumed = tmpDir('oc-mined-resume-');
      const controller = new AbortController();
      let seen = 0;
      const v2 = await createValidator();
      await expect(
        mineRepository(
          { folder: repo, out: resumed },
          { validator: v2, auditLeaks: fakeAudit(['pkg.core.greet']) },
          (e) => {
            if (e.type === 'decision' && ++seen === 2) controller.abort();
          },
          controller.signal,
        ),
      ).rejects.toThrow();
      v2.close();
      const kept = decisions(resumed);
      expect(kept.size).toBeGreaterThanOrEqual(2 + 7); // the static drops and at least two checked
      const v3 = await createValidator();
      const again = await mineRepository({ folder: repo, out: resumed }, { validator: v3, auditLeaks: fakeAudit(['pkg.core.greet']) });
      v3.close();
      expect(again.resumed).toBe(kept.size);
      expect(fs.readFileSync(again.out)).toEqual(fs.readFileSync(summary.out));

      // The same folder mined again without the leak audit starts afresh: no drop of the audited run stays.
      const v4 = await createValidator();
      const unaudited = await mineRepository({ folder: repo, out: resumed }, { validator: v4 });
      v4.close();
      expect(unaudited).toMatchObject({ resumed: 0, leakAudit: false, tasks: 4 });
      expect(unaudited.dropped.leaks).toBeUndefined();
    },
    300_000,
  );
});

describe(`mining: layouts and sources as Python reads them${sys.note}`, () => {
  it.skipIf(sys.skip)(
    'src layout, a suite with its own file pattern, a BOM and a coding declaration',
    async () => {
      const latin = Buffer.concat([
        Buffer.from('# -*- coding: latin-1 -*-\n\n\ndef g(x):\n    """Return x with a section sign \u00a7 before it."""\n'.replace('\u00a7', ''), 'utf8'),
        Buffer.from([0x20, 0x20, 0x20, 0x20, 0x72, 0x65, 0x74, 0x75, 0x72, 0x6e, 0x20, 0x27, 0xa7, 0x27, 0x20, 0x2b, 0x20, 0x78, 0x0a]),
      ]);
      const repo = makeRepo(
        {
          'src/pkg/__init__.py': '',
          'src/pkg/bom.py': '\ufeffdef h(x):\n    """Return x tripled, in a file with a BOM."""\n    return x * 3\n',
          'src/pkg/a.py':
            'def helper(x):\n    """Return x doubled, as a helper."""\n    return x * 2\n\n\ndef f(x):\n    """Return x doubled plus one, always."""\n    return helper(x) + 1\n',
          'checks/check_a.py':
            'import unittest\nfrom pkg.a import f, helper\nfrom pkg.bom import h\nfrom pkg.lat import g\n\n\ndef expect_f(case, x, want):\n    """Assert that f of x is what we want."""\n    case.assertEqual(f(x), want)\n\n\nclass CheckA(unittest.TestCase):\n    def test_f(self):\n        """f doubles and adds one to its input."""\n        expect_f(self, 2, 5)\n        expect_f(self, 0, 1)\n        self.assertEqual(helper(3), 6)\n        self.assertEqual(h(2), 6)\n\n    def test_g(self):\n        self.assertEqual(g("x"), "\\u00a7x")\n',
        },
        'oc-mine-layout-',
      );
      fs.writeFileSync(path.join(repo, 'src/pkg/lat.py'), latin);
      const out = tmpDir('oc-mined-layout-');
      const v = await createValidator();
      try {
        const s = await mineRepository(
          { folder: repo, out, testCommand: "PYTHONPATH=src python3 -m unittest discover -s checks -p 'check_*.py'" },
          { validator: v },
        );
        expect(s.unparsed).toEqual([]);
        const tasks = readManifest(s.out).tasks;
        // Module names start where the suite's path does; the suite's own files are never targets.
        // Read as Python reads them, a file with a BOM and one with a coding declaration make tasks too: the validator
        // reads and writes a target's file in its own encoding.
        expect(tasks.map((t) => t.id).sort()).toEqual(['pkg.a.f', 'pkg.a.helper', 'pkg.bom.h', 'pkg.lat.g']);
        const d = decisions(out);
        for (const id of ['pkg.bom.h', 'pkg.lat.g']) expect(d.get(id), id).toMatchObject({ kept: true });
        const f = tasks.find((t) => t.id === 'pkg.a.f')!;
        expect(f.ground_truth_apis).toEqual(['pkg.a:helper']);
        expect((f.source as { context: { level: string; thirdParty: string[] } }).context).toMatchObject({ level: 'file_runnable', thirdParty: [] });
        expect(f.test_command).toContain('PYTHONPATH=src');
      } finally {
        v.close();
        // Its latin-1 file must not stay in the shared temp folder, where other tests walk every .py file.
        for (const dir of [repo, out]) fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});

describe(`mining: bad input${sys.note}`, () => {
  let validator: Validator;
  beforeAll(async () => {
    validator = await createValidator();
  });
  afterAll(() => validator?.close());
  const mine = (files: Record<string, string>, opts: { perTestTimeoutS?: number; suiteTimeoutS?: number } = {}) =>
    mineRepository({ folder: makeRepo(files, 'oc-mine-bad-'), out: tmpDir('oc-mined-bad-'), ...opts }, { validator });
  const LIB = { 'lib/__init__.py': '', 'lib/m.py': 'def f(x):\n    """Return x plus one, always."""\n    return x + 1\n' };

  it('a folder without tests is refused, naming it', async () => {
    await expect(mine(LIB)).rejects.toThrow(/has no test files .*--test-command/);
  });

  it('an output folder that is the repository itself, or lies inside it, is refused', async () => {
    const repo = makeRepo(LIB, 'oc-mine-bad-');
    await expect(mineRepository({ folder: repo, out: repo }, { validator })).rejects.toThrow(/is the repository itself/);
    await expect(mineRepository({ folder: repo, out: path.join(repo, 'mined') }, { validator })).rejects.toThrow(
      /lies inside the repository .*answers included/,
    );
    expect(fs.existsSync(path.join(repo, 'mined'))).toBe(false);
  });

  it('an output folder that holds other files and no earlier mining is refused, and left as it was', async () => {
    const out = tmpDir('oc-mined-bad-');
    fs.mkdirSync(path.join(out, 'repos'));
    fs.writeFileSync(path.join(out, 'repos', 'mine.txt'), 'not a mining output\n');
    await expect(mineRepository({ folder: makeRepo(LIB, 'oc-mine-bad-'), out }, { validator })).rejects.toThrow(/is not empty and holds no earlier mining/);
    expect(fs.readFileSync(path.join(out, 'repos', 'mine.txt'), 'utf8')).toBe('not a mining output\n');
  });

  it('an output reached through a link into the repository is refused as inside it', async () => {
    const repo = makeRepo(LIB, 'oc-mine-bad-');
    const link = path.join(tmpDir('oc-mine-link-'), 'to-repo');
    fs.symlinkSync(repo, link);
    await expect(mineRepository({ folder: repo, out: path.join(link, 'mined') }, { validator })).rejects.toThrow(/lies inside the repository/);
    expect(fs.existsSync(path.join(repo, 'mined'))).toBe(false);
  });

  it('mining the frozen copy of an earlier run into the same folder is refused (the copy is remade, which would delete it)', async () => {
    const out = tmpDir('oc-mined-bad-');
    const inside = path.join(out, 'repos');
    fs.mkdirSync(inside);
    fs.writeFileSync(path.join(inside, 'keep.py'), 'x = 1\n');
    fs.writeFileSync(path.join(out, 'MINE.md'), '# an earlier mining\n');
    await expect(mineRepository({ folder: inside, out }, { validator })).rejects.toThrow(/lies inside .*the frozen copy/);
    expect(fs.existsSync(path.join(inside, 'keep.py'))).toBe(true);
  });

  it.skipIf(sys.skip)(
    'a suite in which no test passes is refused with the first failure',
    async () => {
      await expect(
        mine({
          ...LIB,
          'tests/__init__.py': '',
          'tests/test_m.py': 'import unittest\nfrom lib.m import f\n\nclass T(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(f(1), 3)\n',
        }),
      ).rejects.toThrow(/ran 1 tests and none passed/);
    },
    60_000,
  );

  it.skipIf(sys.skip)(
    'a test module that needs a missing package is named, and the rest is mined',
    async () => {
      const s = await mine({
        ...LIB,
        'tests/__init__.py': '',
        'tests/test_m.py':
          'import unittest\nfrom lib.m import f\n\nclass T(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(f(1), 2)\n        self.assertEqual(f(5), 6)\n',
        'tests/test_needs.py': 'import unittest\nimport not_installed_anywhere_pkg\n',
      });
      expect(s.tasks).toBe(1);
      expect(s.suite.tests).toBe(2); // unittest reports the module that failed to import as a failed test
      expect(JSON.stringify(s.suite)).toContain('not_installed_anywhere_pkg');
    },
    120_000,
  );

  it.skipIf(sys.skip)(
    'a test that hangs is stopped at its time limit and the others are mined',
    async () => {
      const s = await mine(
        {
          ...LIB,
          'tests/__init__.py': '',
          'tests/test_m.py':
            'import time, unittest\nfrom lib.m import f\n\nclass T(unittest.TestCase):\n    def test_f(self):\n        self.assertEqual(f(1), 2)\n        self.assertEqual(f(5), 6)\n\n    def test_hangs(self):\n        time.sleep(3600)\n',
        },
        { perTestTimeoutS: 2 },
      );
      expect(s.tasks).toBe(1);
      expect(s.suite).toMatchObject({ tests: 2, passed: 1 });
    },
    120_000,
  );

  it.skipIf(sys.skip)(
    'a suite that runs past its time is refused, naming the test it was running',
    async () => {
      await expect(
        mine(
          {
            ...LIB,
            'tests/__init__.py': '',
            'tests/test_m.py': 'import time, unittest\n\nclass T(unittest.TestCase):\n    def test_hangs(self):\n        time.sleep(3600)\n',
          },
          { perTestTimeoutS: 600, suiteTimeoutS: 3 },
        ),
      ).rejects.toThrow(/did not finish within 3 s \(it was running tests\.test_m\.T\.test_hangs\)/);
    },
    60_000,
  );
});

/** A validator double: the outcomes checkTask sees, in order, without running anything. */
function scripted(reference: { passes: boolean }, runs: Verdict['status'][]): Validator {
  const queue = [...runs];
  // 'failed': a test failed its assertion; 'error': it crashed (a name left unbound, say).
  const verdict = (status: Verdict['status']) =>
    ({
      status,
      reason: status,
      durationMs: 100,
      timeoutMs: 10_000,
      infrastructure: null,
      tests: [{ outcome: status === 'failed' ? 'failed' : status === 'passed' ? 'passed' : 'error' }],
    }) as unknown as Verdict;
  return {
    referenceCheck: async () => ({
      passes: reference.passes,
      tests: [],
      reason: reference.passes ? 'passes' : 'fails test_x',
      key: 'k',
      isolation: 'isolated',
      isolationReason: 'r',
    }),
    validateReference: async () => verdict(queue.shift()!),
    validate: async () => verdict(queue.shift()!),
  } as unknown as Validator;
}

describe('mining: the checks decide in order', () => {
  const task = { id: 't', signature: 'def f(x):', reference: 'def f(x):\n    return x\n' } as unknown as Task;
  const mutants = [1, 2, 3, 4, 5].map((i) => ({ kind: 'constant off by one', line: i, code: `m${i}` }));

  it('a reference whose second run fails is flaky', async () => {
    expect(await checkTask(scripted({ passes: true }, ['failed']), task, mutants)).toMatchObject({ kept: false, reason: 'flaky' });
  });
  it('a reference that fails is dropped before anything else runs', async () => {
    expect(await checkTask(scripted({ passes: false }, []), task, mutants)).toMatchObject({ kept: false, reason: 'reference-fails', detail: 'fails test_x' });
  });
  it('a stub that passes is dropped', async () => {
    expect(await checkTask(scripted({ passes: true }, ['passed', 'passed']), task, mutants)).toMatchObject({ kept: false, reason: 'stub-passes' });
  });
  it('tests that kill no mutant are thin; one kill keeps the task with its score', async () => {
    expect(await checkTask(scripted({ passes: true }, ['passed', 'failed', 'passed', 'passed', 'passed', 'passed', 'passed']), task, mutants)).toMatchObject({
      kept: false,
      reason: 'thin',
    });
    const kept = await checkTask(scripted({ passes: true }, ['passed', 'failed', 'timeout', 'passed', 'failed', 'passed', 'passed']), task, mutants);
    expect(kept).toMatchObject({ kept: true, checks: { mutants: { made: 5, killed: 2, score: 0.4, timeouts: 1 } } });
  });
  it('tests that notice mutants only by crashes and hangs are thin', async () => {
    expect(await checkTask(scripted({ passes: true }, ['passed', 'failed', 'error', 'timeout', 'passed', 'passed', 'passed']), task, mutants)).toMatchObject({
      kept: false,
      reason: 'thin',
      detail: expect.stringContaining('only by a crash or a hang'),
    });
  });
  it('the stub is the signature with a body that raises NotImplementedError', () => {
    expect(stubOf('@property\ndef f(self):')).toBe('@property\ndef f(self):\n    raise NotImplementedError\n');
  });
});

describe('mining: the drops made before anything runs', () => {
  const base = {
    id: 'm.f',
    file: 'm.py',
    qualname: 'f',
    line: 1,
    signature: 'def f(x):',
    reference: 'def f(x):\n    """Return x plus one."""\n    return x + 1\n',
    doc: 'Return x plus one.',
    trivial: null,
    sameName: 1,
  } as unknown as MineCandidate;
  const first = new Map<string, string>();

  it('a candidate whose header cannot be cut out up to its colon is unparsable; a good one is not dropped', () => {
    expect(staticDrop({ ...base, signature: null }, 3, first)).toMatchObject({ reason: 'unparsable' });
    expect(staticDrop(base, 3, first)).toBeNull();
  });
  it('reasons come in order: no docstring before a short one, before trivial, before duplicate', () => {
    expect(staticDrop({ ...base, doc: null, trivial: 'only pass or ...' }, 3, first)).toMatchObject({ reason: 'no-docstring' });
    expect(staticDrop({ ...base, doc: 'Hi.' }, 3, first)).toMatchObject({ reason: 'short-docstring', detail: expect.stringContaining('1 words') });
    expect(staticDrop({ ...base, trivial: 'only pass or ...', sameName: 2 }, 3, first)).toMatchObject({ reason: 'trivial' });
    expect(staticDrop({ ...base, sameName: 2 }, 3, first)).toMatchObject({ reason: 'duplicate' });
  });
});
