import { describe, expect, it } from 'vitest';
import { isTestFile, namedByTestCommand, testFilesOf, testReasonOfUnits } from '../../main/index/test-files.ts';

describe('isTestFile', () => {
  it.each([
    'tests/test_pricing.py',
    'pkg/tests/helpers.py',
    'test/support/__init__.py',
    'lib/test_money.py',
    'lib/money_test.py',
    'conftest.py',
    'src/app.test.ts',
    'src/app.spec.js',
    'src/__tests__/x.tsx',
  ])('%s is test code', (p) => expect(isTestFile(p)).toBe(true));

  it.each(['inventory/pricing.py', 'src/contest.py', 'lib/testing_utils_not.py', 'src/latest/app.ts', 'attestation.py'])('%s is not', (p) =>
    expect(isTestFile(p)).toBe(false),
  );
});

describe('test code by what it holds', () => {
  const mod = (imports: string[]) => ({ kind: 'module', name: 'm', parent_qualname: null, signature: 'module m', imports: JSON.stringify(imports) });
  const unit = (kind: string, name: string, parent: string | null = null, signature = `def ${name}()`) => ({
    kind,
    name,
    parent_qualname: parent,
    signature,
    imports: '[]',
  });

  it('a TestCase subclass (unittest, Django) or pytest-collected tests make a file test code', () => {
    expect(testReasonOfUnits([mod(['django.test.TestCase']), unit('class', 'OrderTests', null, 'class OrderTests(TestCase)')])).toBe('unittest');
    expect(testReasonOfUnits([mod(['unittest']), unit('class', 'T', null, 'class T(unittest.IsolatedAsyncioTestCase)')])).toBe('unittest');
    expect(testReasonOfUnits([mod(['pytest', 'app']), unit('function', 'test_total')])).toBe('pytest');
    expect(testReasonOfUnits([mod(['pytest']), unit('class', 'TestCart', null, 'class TestCart'), unit('method', 'test_add', 'TestCart')])).toBe('pytest');
  });

  it("library code with test_* names stays code (jinja2's tests.py), and so does pytest without tests", () => {
    expect(testReasonOfUnits([mod(['operator', 'typing']), unit('function', 'test_odd'), unit('function', 'test_even')])).toBeNull();
    expect(testReasonOfUnits([mod(['pytest']), unit('function', 'make_fixture')])).toBeNull();
    expect(testReasonOfUnits([mod([]), unit('class', 'TestCaseBuilder', null, 'class TestCaseBuilder(object)')])).toBeNull();
  });

  it("the test command's modules and paths are the task's tests; other words name nothing", () => {
    const unittest = namedByTestCommand('python3 -m unittest inventory.checks_discount');
    expect(unittest('inventory/checks_discount.py')).toBe(true);
    expect(unittest('inventory/pricing.py')).toBe(false);
    expect(unittest('inventory.py')).toBe(false);
    const pytest = namedByTestCommand('PYTHONPATH=src pytest -q checks/discount_checks.py::TestX qa');
    expect(pytest('checks/discount_checks.py')).toBe(true);
    expect(pytest('qa/more.py')).toBe(true);
    expect(pytest('src/app.py')).toBe(false);
    expect(namedByTestCommand(undefined)('a.py')).toBe(false);
  });
});

describe('a repository’s test files with their reasons', () => {
  it('by name first, then by what they hold; library code with test_* names is not one', () => {
    const unit = (kind: string, name: string, parent: string | null, signature: string, imports = '[]') => ({
      kind,
      name,
      parent_qualname: parent,
      signature,
      imports,
    });
    const shaped = new Map([
      ['app/tests.py', [unit('module', 'app.tests', null, 'module app.tests', '["django.test.TestCase"]'), unit('class', 'T', null, 'class T(TestCase)')]],
      ['pkg/checks.py', [unit('module', 'pkg.checks', null, 'module pkg.checks', '["pytest"]'), unit('function', 'test_x', null, 'def test_x()')]],
      [
        'jinja2/tests.py',
        [unit('module', 'jinja2.tests', null, 'module jinja2.tests', '["operator"]'), unit('function', 'test_odd', null, 'def test_odd(value)')],
      ],
    ]);
    const out = testFilesOf(['tests/test_a.py', 'app/tests.py', 'pkg/checks.py', 'jinja2/tests.py', 'app/models.py'], shaped);
    expect(Object.fromEntries(out)).toEqual({ 'tests/test_a.py': 'named as a test', 'app/tests.py': 'TestCase subclass', 'pkg/checks.py': 'pytest tests' });
  });
});
