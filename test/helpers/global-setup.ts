// Vitest global setup: one scratch folder per test run for fixtures that every test file may share (the indexed
// sample repository of indexed-sample.ts is built there at most once per run, by the first file that asks).
// Its path reaches the test files through provide/inject; the folder is removed when the run ends.
// It also builds the CLI bundle (bin/cli-build.ts) once, when it is missing or stale, so the many tests that
// spawn `node bin/opencoder.js` in parallel neither race to build it nor each pay for the build.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureCliBundle } from '../../bin/cli-build.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's shared fixture folder (see test/helpers/indexed-sample.ts). */
    fixtureDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  try {
    await ensureCliBundle();
  } catch (err) {
    throw new Error(`global setup: building the CLI bundle failed (bin/cli-build.ts): ${(err as Error).message}`, { cause: err });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-fixtures-'));
  project.provide('fixtureDir', dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
