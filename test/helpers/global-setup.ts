// Vitest global setup: one scratch folder per test run for fixtures that every test file may share (the indexed
// sample repository of indexed-sample.ts is built there at most once per run, by the first file that asks).
// Its path reaches the test files through provide/inject; the folder is removed when the run ends.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's shared fixture folder (see test/helpers/indexed-sample.ts). */
    fixtureDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-fixtures-'));
  project.provide('fixtureDir', dir);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
