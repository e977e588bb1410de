// Which files are test code. Tests are indexed as units and chunks like any code, but they are not
// project APIs: nothing the target function would call lives there, and their thousands of test_*
// methods would crowd real APIs out of API-knowledge retrieval.

const TEST_DIRS = new Set(['test', 'tests', 'testing', '__tests__', 'spec', 'specs']);
const TEST_FILE = /^(test_.*\.pyi?|.*_test\.pyi?|conftest\.py|.*\.(test|spec)\.[cm]?[jt]sx?)$/;

export function isTestFile(relPath: string): boolean {
  const parts = relPath.split('/');
  const file = parts.pop() ?? '';
  return TEST_FILE.test(file) || parts.some((p) => TEST_DIRS.has(p));
}

/** What the index holds of a file's units, enough to tell test code by what it is. */
export interface UnitFacts {
  kind: string;
  name: string;
  parent_qualname: string | null;
  signature: string;
  /** The module unit's imports (JSON list of dotted names), '[]' for the others. */
  imports: string;
}

/**
 * Why a Python file is test code by what it holds, or null: a class deriving from a `…TestCase` (unittest, Django,
 * IsolatedAsyncioTestCase), or a file importing pytest with test functions or `Test…` classes that pytest would
 * collect. Library code that merely has `test_*` names (jinja2's tests.py: Jinja's template tests) is not.
 */
export function testReasonOfUnits(units: readonly UnitFacts[]): 'unittest' | 'pytest' | null {
  if (units.some((u) => u.kind === 'class' && /\([^)]*\b\w*TestCase\b/.test(u.signature))) return 'unittest';
  const module = units.find((u) => u.kind === 'module');
  let imports: string[];
  try {
    imports = module ? (JSON.parse(module.imports) as string[]) : [];
  } catch {
    imports = []; // an unreadable import list: no pytest evidence
  }
  const pytest = imports.some((i) => i === 'pytest' || i.startsWith('pytest.') || i.startsWith('_pytest'));
  if (!pytest) return null;
  const collected = units.some(
    (u) =>
      (u.kind === 'function' && u.parent_qualname === null && u.name.startsWith('test')) ||
      (u.kind === 'method' && u.name.startsWith('test') && /^Test/.test(u.parent_qualname ?? '')),
  );
  return collected ? 'pytest' : null;
}

/**
 * Which repository paths a task's test command names (`python3 -m unittest inventory.checks_discount`,
 * `pytest tests/test_x.py::T`), as a test on a path: the module's file and package folder, or the path itself.
 * A word that names nothing in the repository masks nothing.
 */
export function namedByTestCommand(command: string | undefined): (relPath: string) => boolean {
  if (!command) return () => false;
  const words = command.split(/\s+/).filter(Boolean);
  const runner = words.findIndex((w) => w === 'unittest' || w === 'pytest' || w.endsWith('/pytest') || w === 'py.test');
  const files = new Set<string>();
  const dirs: string[] = [];
  for (const w of words.slice(runner + 1)) {
    if (w.startsWith('-') || w.includes('=')) continue;
    const p = w
      .split('::')[0]!
      .replace(/^["']|["']$/g, '')
      .replace(/^\.\//, '')
      .replace(/\/$/, '');
    if (!p) continue;
    if (p.endsWith('.py')) files.add(p);
    else if (/^[\w.]+$/.test(p)) {
      // A dotted name: a module (a.b → a/b.py), a package, or a module's class or test (a.b.C.test_x → a/b.py).
      const parts = p.split('.');
      for (let n = parts.length; n >= Math.min(2, parts.length); n--) files.add(`${parts.slice(0, n).join('/')}.py`);
      dirs.push(parts.join('/'));
    } else dirs.push(p);
  }
  return (relPath) => files.has(relPath) || dirs.some((d) => relPath === d || relPath.startsWith(`${d}/`));
}

/** Why a file is test code, as the Repository view and retrieval's mask say it. */
export type TestFileReason = 'named as a test' | 'TestCase subclass' | 'pytest tests';

/**
 * Every test file of a repository with its reason: by name (isTestFile), else by what it holds (testReasonOfUnits,
 * given the test-shaped units per path). The one definition retrieval masks by and the Repository view counts.
 */
export function testFilesOf(paths: Iterable<string>, shaped: ReadonlyMap<string, readonly UnitFacts[]>): Map<string, TestFileReason> {
  const out = new Map<string, TestFileReason>();
  for (const p of paths) {
    if (isTestFile(p)) out.set(p, 'named as a test');
    else {
      const r = shaped.has(p) ? testReasonOfUnits(shaped.get(p)!) : null;
      if (r) out.set(p, r === 'unittest' ? 'TestCase subclass' : 'pytest tests');
    }
  }
  return out;
}
