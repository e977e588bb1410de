import crypto from 'node:crypto';
import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default (one worker per core, less one) leaves a 2-core machine running one file at a time, while
    // most files spend their time waiting on Python sandboxes, child processes, time limits or the browser.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // One scratch folder per run for fixtures the test files share (test/helpers/indexed-sample.ts).
    globalSetup: ['test/helpers/global-setup.ts'],
    // The default output, then the skips counted by reason; a skip for a missing system package fails the run
    // under CI or as root (test/helpers/skip-reporter.ts).
    reporters: ['default', './test/helpers/skip-reporter.ts'],
    // Every answer a test gets from the engine service is checked against the contract's output schema.
    // A queue secret of this run's own (experiment/queue/seal.ts): coordinators and workers the tests start share it,
    // and nothing is written to the user's ~/.config. Tests of the secret file pass their own environment.
    env: { OPENCODER_CHECK_OUTPUTS: '1', OPENCODER_QUEUE_SECRET: crypto.randomBytes(32).toString('hex') },
  },
});
