// `npm run check`: everything that reads the code without running it, in order, stopping at the first step that
// fails (its output stays above the closing line, which names the step and the command to rerun it alone).
// `npm test` runs the tests; CI (.ci/run) runs both.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (file) => path.join(ROOT, 'node_modules', file);

/** [name, node script and its arguments, the npm script that runs the step alone] */
const STEPS = [
  ['types (engine, app, tests, scripts)', [bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], 'npm run typecheck'],
  ['types (renderer)', [bin('typescript/bin/tsc'), '-p', 'renderer/tsconfig.json', '--noEmit'], 'npm run typecheck'],
  ['ESLint', [bin('eslint/bin/eslint.js'), '.', '--max-warnings', '0'], 'npm run lint'],
  ['size exceptions still needed', ['scripts/check-size-exceptions.mjs'], 'npm run check:sizes'],
  ['import cycles', ['scripts/check-cycles.mjs'], 'npm run check:cycles'],
  ['Prettier', [bin('prettier/bin/prettier.cjs'), '--check', '--log-level', 'warn', '.'], 'npm run format:check'],
  ['Ruff (main/validate/py, main/benchmarks/mining/py)', ['scripts/check-python.mjs'], 'npm run check:python'],
];

const started = performance.now();
for (const [i, [name, args, alone]] of STEPS.entries()) {
  const t0 = performance.now();
  console.log(`check ${i + 1}/${STEPS.length}: ${name}`);
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) {
    const how = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit code ${r.status}`;
    console.error(`\ncheck FAILED at step ${i + 1}/${STEPS.length}, ${name} (${how}, ${secs} s); later steps did not run. Rerun it alone: ${alone}`);
    process.exit(1);
  }
  console.log(`check ${i + 1}/${STEPS.length}: ${name} passed (${secs} s)`);
}
console.log(`check: all ${STEPS.length} steps passed in ${((performance.now() - started) / 1000).toFixed(0)} s`);
