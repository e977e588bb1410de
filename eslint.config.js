// ESLint for the whole checkout (`npm run lint`; `npm run check` runs it with the type checks, the import-cycle
// check, Prettier and Ruff). What it checks:
//   - the recommended JavaScript and typescript-eslint rules, and React's hook rules in the renderer;
//   - the floor plan: FLOOR_PLAN below says which folder may import which (rule floor-plan/floor-plan,
//     scripts/lint/floor-plan.js); a wrong import fails with "Bad layering: …";
//   - size: files at most 500 lines and functions at most 80 (blank lines and comments not counted) in the shipped
//     code, with each file that is allowed more named in LONG_FILES / LONG_FUNCTIONS, its reason beside it
//     (scripts/check-size-exceptions.mjs fails when a listed file no longer needs its exception);
//   - type-aware rules (TYPE_AWARE_RULES) over the files of the two TypeScript projects: promises that are
//     neither awaited nor handled, assertions that change nothing, and the like.
// Import cycles between files (scripts/check-cycles.mjs) and Ruff on the Python harness (ruff.toml,
// scripts/check-python.mjs) are checked beside ESLint by `npm run check` (scripts/check-all.mjs).
// Nothing about layout: Prettier owns that (eslint-config-prettier turns those rules off).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { floorPlanPlugin } from './scripts/lint/floor-plan.js';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/**
 * The floor plan: which folder may import which, besides its own files and npm packages. Imports run one way,
 * down: plain types (main/model) and the statistics maths (main/stats) at the bottom, storage above them, the
 * stages (embed, index, retrieve, generate, validate) above storage, then the pipeline, the experiments and the
 * host on top. The contract sits beside the engine and reads only main/model; the renderer reads the contract
 * and main/model (its plain formatters and labels); the Electron shell (app/) starts the host (main/host) and
 * speaks the contract. Type-only imports count like any other.
 */
export const FLOOR_PLAN = {
  'main/model': [],
  'main/stats': [],
  'main/util': ['main/model'],
  'main/store': ['main/model', 'main/util'],
  'main/embed': ['main/model', 'main/util'],
  'main/index': ['main/model', 'main/store', 'main/util', 'main/embed'],
  'main/validate': ['main/model', 'main/util'],
  'main/retrieve': ['main/model', 'main/stats', 'main/store', 'main/index', 'main/embed', 'main/util'],
  'main/generate': ['main/model', 'main/stats', 'main/store', 'main/retrieve', 'main/embed', 'main/util'],
  'main/benchmarks': ['main/model', 'main/stats', 'main/index', 'main/validate', 'main/util'],
  'main/pipeline': ['main/model', 'main/stats', 'main/store', 'main/index', 'main/embed', 'main/retrieve', 'main/generate', 'main/validate', 'main/util'],
  'main/experiment': [
    ...['main/model', 'main/stats', 'main/store', 'main/index', 'main/embed', 'main/retrieve', 'main/generate', 'main/validate'],
    ...['main/benchmarks', 'main/pipeline', 'main/util'],
  ],
  'main/host': [
    ...['main/model', 'main/stats', 'main/store', 'main/index', 'main/embed', 'main/retrieve', 'main/generate', 'main/validate'],
    ...['main/benchmarks', 'main/pipeline', 'main/experiment', 'main/util', 'contract'],
  ],
  contract: ['main/model'],
  renderer: ['contract', 'main/model'],
  app: ['contract', 'main/host'],
};
/** Folders a folder may import from only with `import type`: the statistics read model's result shapes, no code. */
const FLOOR_PLAN_TYPES_ONLY = { 'main/stats': ['main/model'] };
/** Folders of shipped data files that any folder may read. */
const FLOOR_PLAN_DATA = ['resources'];

/** The shipped code the size rules cover (tests are not: a test file is as long as the cases it lists). */
export const SIZED = ['main', 'renderer/src', 'contract', 'bin', 'scripts', 'bench'].map((d) => `${d}/**/*.{ts,tsx,js,mjs,cjs}`);
/** Blank lines and comments do not count; an immediately invoked function counts as a function. */
export const SIZE_RULES = {
  'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
  'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
};

/**
 * Files allowed over 500 lines (blank lines and comments not counted), each with why it stays one file. An entry
 * whose file is short enough again fails `npm run check` (scripts/check-size-exceptions.mjs): remove it then.
 */
export const LONG_FILES = [
  { file: 'main/validate/sandbox.ts', reason: 'the sandbox: bwrap, setpriv and prlimit arguments, launch and teardown, audited as one unit' },
  { file: 'main/validate/validator.ts', reason: 'the verdict side of the trust boundary: the Validator and the verdict it builds from the harness report' },
];

/** Files with a function over 80 lines, each with why that function stays one piece. */
export const LONG_FUNCTIONS = [
  { file: 'bench/queue.ts', reason: 'benchQueue: one scripted measurement (start Redis and workers, run, read CPU times) read top to bottom' },
  { file: 'bench/ui-connect.ts', reason: 'benchUiConnect: one scripted browser session, step by step' },
  { file: 'bench/validate.ts', reason: 'benchValidate: one scripted measurement over the sample tasks, step by step' },
  { file: 'main/experiment/queue/coordinator.ts', reason: 'executeQueued: enqueue, watch and collect one run; its handlers share the run state' },
  { file: 'main/experiment/queue/worker.ts', reason: "startQueueWorker: the worker's job handler closes over its connection, store copy and cache" },
  { file: 'main/experiment/report/csv.ts', reason: 'renderCsv: one column list per CSV table, declared side by side' },
  { file: 'main/experiment/svg-charts.ts', reason: 'reliabilityDiagram: one SVG drawn in order (frame, bins, points, legend)' },
  { file: 'main/host/calls/imports.ts', reason: 'importCalls: the four import handlers share the table of finished import jobs' },
  { file: 'main/host/cli/commands/generate-commands.ts', reason: 'generateTask: retrieval, estimate and candidates of one task, printed as they come' },
  { file: 'main/retrieve/engine.ts', reason: 'retrieveForTask: the retrieval stages in order, each timed into one trace' },
  { file: 'renderer/src/views/ExperimentView.tsx', reason: 'StartExperiment: the start form, one field per run setting' },
  { file: 'renderer/src/views/RepositoryView.tsx', reason: 'RepoDetail: the repository panel, one block per index fact' },
  { file: 'renderer/src/views/experiment/Analysis.tsx', reason: 'ConditionsTable: one table, one column per metric' },
  { file: 'renderer/src/views/experiment/SampleSets.tsx', reason: 'SampleSets: the Pass@k view, its form and its result table share the picked sample set' },
  { file: 'scripts/fit-api-selector.ts', reason: 'main: one fitting script (read, grid search, write), read top to bottom' },
];

/** The files of the two TypeScript projects (tsconfig.json, renderer/tsconfig.json): the type-aware rules need them. */
const TYPED = ['main', 'contract', 'app', 'test', 'bench', 'scripts', 'renderer/src'].map((d) => `${d}/**/*.{ts,tsx,mts}`);

/**
 * Type-aware rules: each finds a bug the type checker lets through (a promise nobody awaits or catches, an async
 * callback where a plain one is expected, an assertion that changes nothing). Left out for their volume of
 * findings that are not bugs (measured on this code): the no-unsafe-* family (~570, nearly all reads of parsed
 * JSON), no-unnecessary-condition (~140, mostly index reads that noUncheckedIndexedAccess types as possibly
 * undefined), require-await (~120, async methods that implement an async interface), unbound-method (~65),
 * restrict-template-expressions and no-base-to-string (String() of unknown input is the intent there).
 */
const TYPE_AWARE_RULES = {
  '@typescript-eslint/await-thenable': 'error',
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
  '@typescript-eslint/no-for-in-array': 'error',
  '@typescript-eslint/no-unnecessary-type-assertion': 'error',
  '@typescript-eslint/restrict-plus-operands': 'error',
  '@typescript-eslint/no-array-delete': 'error',
  '@typescript-eslint/no-implied-eval': 'error',
  // A value caught or an abort reason is thrown on as it came (unknown or any); a literal string is not.
  '@typescript-eslint/only-throw-error': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
  '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
  '@typescript-eslint/no-duplicate-type-constituents': 'error',
  '@typescript-eslint/no-redundant-type-constituents': 'error',
  '@typescript-eslint/no-unsafe-enum-comparison': 'error',
  '@typescript-eslint/no-unsafe-unary-minus': 'error',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'data/', 'scratch/', 'resources/', 'test/e2e/artifacts/', 'test/fixtures/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    plugins: { 'floor-plan': floorPlanPlugin({ root: ROOT, mayImport: FLOOR_PLAN, typesOnly: FLOOR_PLAN_TYPES_ONLY, data: FLOOR_PLAN_DATA }) },
    rules: {
      'floor-plan/floor-plan': 'error',
      // `_`-prefixed names are deliberately unused (placeholders in destructuring and callbacks).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: TYPED,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    rules: TYPE_AWARE_RULES,
  },
  // The renderer's tests belong to renderer/tsconfig.json, which the project service would not find from their folder.
  { files: ['test/renderer/**/*.{ts,tsx}'], languageOptions: { parserOptions: { projectService: false, project: './renderer/tsconfig.json' } } },
  { files: SIZED, rules: SIZE_RULES },
  ...(LONG_FILES.length ? [{ files: LONG_FILES.map((e) => e.file), rules: { 'max-lines': 'off' } }] : []),
  ...(LONG_FUNCTIONS.length ? [{ files: LONG_FUNCTIONS.map((e) => e.file), rules: { 'max-lines-per-function': 'off' } }] : []),
  // Tests read whatever JSON the code under test wrote; typing every such read would only restate it.
  { files: ['test/**/*.{ts,tsx}'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    files: ['renderer/**/*.{ts,tsx}', 'test/renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  { files: ['**/*.{js,mjs,cjs}'], languageOptions: { globals: globals.node } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  prettier,
);
