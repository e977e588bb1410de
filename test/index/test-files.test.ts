import { describe, expect, it } from 'vitest';
import { isTestFile } from '../../main/index/test-files.ts';

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
