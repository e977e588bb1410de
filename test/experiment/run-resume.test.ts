// The end-to-end comparison of Baseline RAG, RAG + Verify/Repair and OpenCoder on the python_string_utils
// RepoExec-inline tasks, through the CLI, with the offline backend: killed (SIGKILL) halfway and resumed, it must
// give exactly the results of an uninterrupted run. The same with a scripted model: run-resume-mock.test.ts.

import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../main/model/task.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { CONDITIONS, importStringUtils, killAndResume, present } from './run-resume-helpers.ts';
import { NO_BENCH } from '../helpers/system.ts';

/** Tasks of the offline comparison: enough that half of the (task, condition) pairs are a real interruption. */
const OFFLINE_TASKS = 12;

describe.skipIf(!present)(`three methods on python_string_utils with the offline backend, killed halfway and resumed${!present ? NO_BENCH : ''}`, () => {
  let dir: string;
  let manifest: string;
  let tasks: Task[];

  beforeAll(async () => {
    dir = tmpDir('opencoder-e2e-');
    ({ manifest, tasks } = await importStringUtils(dir));
  }, 120_000);

  it('offline backend: resumed results equal an uninterrupted run', async () => {
    expect(tasks.length).toBe(29);
    const db = path.join(dir, 'offline.db');
    await killAndResume(manifest, db, ['--backend', 'offline', '--limit', String(OFFLINE_TASKS)], {}, OFFLINE_TASKS * CONDITIONS);
  }, 600_000); // two runs of every pair, each candidate validated isolated (two sandboxes)
});
