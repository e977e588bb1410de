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
