// Style is checked with the tests, so CI fails on it: ESLint (eslint.config.js) with no errors or warnings, and
// every file Prettier formats already formatted as .prettierrc.json says. `npm run lint` runs the same two;
// `npm run format` rewrites what Prettier would change.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (pkg: string, file: string) => path.join(ROOT, 'node_modules', pkg, file);

function run(what: string, args: string[]): void {
  try {
    execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`${what} found problems:\n${((e.stdout ?? '') + (e.stderr ?? '')).slice(0, 20_000)}`, { cause: err });
  }
}

describe('style', () => {
  it('ESLint passes with no warnings', () => {
    run('eslint', [bin('eslint', 'bin/eslint.js'), '.', '--max-warnings', '0']);
  }, 300_000);

  it('Prettier finds every file formatted', () => {
    run('prettier --check', [bin('prettier', 'bin/prettier.cjs'), '--check', '--log-level', 'warn', '.']);
  }, 300_000);
});
