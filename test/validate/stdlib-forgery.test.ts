// No false forgery (issue 44, item 8): thirty functions of CPython's standard library, each with a class of
// CPython's own unittest suite, the library copy shadowing the installed one (`PYTHONPATH=.`). Every reference
// passes, every `raise NotImplementedError` stub fails, and no reference is refused by the in-process defences:
// what the repository defines or re-imports (a copy of the standard library shadows importlib, unittest, copy …)
// is the repository's, not the candidate's.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { Task } from '../../main/model/task.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { copyStdlib, sourceOf, stub } from '../helpers/stdlib-copy.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { needs } from '../helpers/system.ts';
import { cpythonTestSuite } from '../../scripts/system-packages.mjs';

const found = cpythonTestSuite();
const SUITE = needs('libpython3.11-testsuite');

// [module file, qualname, test class under test.] — none of these modules is loaded at interpreter start-up.
const TARGETS: [string, string, string][] = [
  ['glob.py', 'glob', 'test_glob.GlobTests'],
  ['shlex.py', 'split', 'test_shlex.ShlexTest'],
  ['textwrap.py', 'dedent', 'test_textwrap.DedentTestCase'],
  ['dataclasses.py', 'asdict', '-k asdict test_dataclasses.TestCase'],
  ['inspect.py', 'cleandoc', '-k cleandoc test_inspect.test_inspect.TestRetrievingSourceCode'],
  ['base64.py', 'b64encode', 'test_base64.BaseXYTestCase'],
  ['colorsys.py', 'rgb_to_hls', 'test_colorsys.ColorsysTest'],
  ['string.py', 'capwords', 'test_string.ModuleTest'],
  ['string.py', 'Template.substitute', 'test_string.TestTemplate'],
  ['html/__init__.py', 'escape', 'test_html.HtmlTests'],
  ['heapq.py', 'nlargest', 'test_heapq.TestHeapPython'],
  ['statistics.py', 'median', 'test_statistics.TestMedian'],
  ['difflib.py', 'unified_diff', 'test_difflib.TestOutputFormat'],
  ['calendar.py', 'isleap', 'test_calendar.CalendarTestCase'],
  ['calendar.py', 'monthrange', 'test_calendar.MonthRangeTestCase'],
  ['fractions.py', 'Fraction.limit_denominator', 'test_fractions.FractionTest'],
  ['csv.py', 'Sniffer.sniff', 'test_csv.TestSniffer'],
  ['configparser.py', 'RawConfigParser.read_string', 'test_configparser.ConfigParserTestCase'],
  ['html/__init__.py', 'unescape', 'test_html.HtmlTests'],
  ['copy.py', 'deepcopy', 'test_copy.TestCopy'],
  ['quopri.py', 'encodestring', 'test_quopri.QuopriTestCase'],
  ['graphlib.py', 'TopologicalSorter.static_order', 'test_graphlib.TestTopologicalSort'],
  ['mimetypes.py', 'MimeTypes.guess_type', 'test_mimetypes.MimeTypesTestCase'],
  ['getopt.py', 'getopt', 'test_getopt.GetoptTests'],
  ['plistlib.py', 'dumps', 'test_plistlib.TestPlistlib'],
  ['filecmp.py', 'cmp', 'test_filecmp.FileCompareTestCase'],
  ['secrets.py', 'token_hex', 'test_secrets.Token_Tests'],
  ['sched.py', 'scheduler.enterabs', 'test_sched.TestCase'],
  ['gzip.py', 'compress', 'test_gzip.TestGzip'],
  ['tomllib/_parser.py', 'loads', 'test_tomllib.test_misc.TestMiscellaneous'],
];
// The test modules (and the data files they read) copied under test/.
const TEST_PARTS = [
  ...new Set(
    TARGETS.map(([, , cls]) => cls.split(' ').pop()!.split('.')[0]!).map((m) =>
      ['test_tomllib', 'test_dataclasses', 'test_inspect'].includes(m) ? m : `${m}.py`,
    ),
  ),
  'mime.types',
  'configdata',
  'test_difflib_expect.html',
];

const idOf = ([file, qualname]: [string, string, string]) => `stdlib/${file.replace(/(\/__init__)?\.py$/, '').replace(/\//g, '.')}.${qualname}`;

function tampering(v: Verdict): string[] {
  return v.sandbox.events.filter((e) => e.kind === 'tampering' || e.kind === 'refused').map((e) => e.detail);
}

describe.skipIf(SUITE.skip)(`no false forgery: thirty standard-library functions with CPython’s own tests${SUITE.note}`, () => {
  let dir: string;
  let tasks: Task[];
  let validator: Validator;

  beforeAll(async () => {
    dir = tmpDir('oc-stdlib30-');
    const repo = path.join(dir, 'repo');
    copyStdlib(found!.stdlib, repo, TEST_PARTS);
    const lines = TARGETS.map((t) => {
      const reference = sourceOf(found!.python, path.join(repo, t[0]), t[1]);
      return JSON.stringify({
        id: idOf(t),
        repo: 'repo',
        file: t[0],
        qualname: t[1],
        requirement: '',
        signature: reference.split('\n')[0],
        reference,
        test_command: `PYTHONPATH=. python3 -m unittest -q ${t[2].replace(/(\S+)$/, 'test.$1')}`,
      });
    });
    // A virtualenv of that interpreter: what its site-packages' .pth files import at start-up (importlib,
    // pathlib …) would be the interpreter's copies, and the workspace's importlib is the one to run here.
    const venv = path.join(dir, 'venv');
    const made = spawnSync(found!.python, ['-I', '-m', 'venv', '--without-pip', venv], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    fs.writeFileSync(path.join(dir, 'tasks.jsonl'), [JSON.stringify({ defaults: { python: venv } }), ...lines].join('\n') + '\n');
    tasks = readManifest(path.join(dir, 'tasks.jsonl')).tasks;
    validator = await createValidator({ sandbox: { mode: 'weak', setpriv: null }, validation: { timeoutFloorMs: 60_000 }, concurrency: 2 });
  }, 120_000);

  afterAll(() => {
    validator?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every reference passes, none is refused in-process as a forgery, and every stub fails', async () => {
    const rows = await Promise.all(
      tasks.map(async (t) => {
        const [isolated, inProcess] = await Promise.all([
          validator.validateReference(t, { isolation: 'isolated' }),
          validator.validateReference(t, { isolation: 'in-process' }),
        ]);
        const check = await validator.referenceCheck(t);
        const bad = check.passes ? await validator.validate(t, stub(t.reference!)) : null;
        return { t, isolated, inProcess, check, bad };
      }),
    );
    const table = rows.map(({ t, isolated, inProcess, check, bad }) =>
      [
        t.id,
        check.passes ? 'pass' : 'FAIL',
        check.isolation,
        `isolated ${isolated.status}${isolated.status === 'passed' ? '' : ` (${isolated.reason.slice(0, 160)})`}`,
        `in-process ${inProcess.status}${inProcess.status === 'passed' ? '' : ` (${inProcess.reason.slice(0, 160)})`}`,
        `stub ${bad?.status ?? '-'}`,
      ].join(' | '),
    );
    if (process.env.OPENCODER_STDLIB_TABLE) fs.writeFileSync(process.env.OPENCODER_STDLIB_TABLE, table.join('\n') + '\n');
    for (const { t, inProcess, check, bad } of rows) {
      expect(tampering(inProcess), `${t.id}: the in-process defences refused the reference`).toEqual([]);
      expect(check.passes, `${t.id}: ${check.reason}`).toBe(true);
      expect(bad!.status, `${t.id}: ${bad!.reason}`).toBe('failed');
    }
  }, 1_500_000);
});
