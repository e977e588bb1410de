// The end-to-end comparison of Baseline RAG, RAG + Verify/Repair and OpenCoder on all 29 python_string_utils
// RepoExec-inline tasks, through the CLI, with an OpenAI-compatible mock server that replays scripted candidates:
// killed (SIGKILL) halfway and resumed, it must give exactly the results of an uninterrupted run, and the methods
// must differ as scripted. The offline backend's comparison: run-resume.test.ts.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../main/model/task.ts';
import type { TaskResult } from '../../main/model/results.ts';
import { startMock, type MockServer } from '../generate/mock-http.ts';
import { GOOD_OPENAI_KEY, openAiHandler } from '../generate/wire.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { CONDITIONS, importStringUtils, killAndResume, present, promptTask, start } from './run-resume-helpers.ts';
import { NO_BENCH } from '../helpers/system.ts';

describe.skipIf(!present)(`three methods on python_string_utils with a scripted model, killed halfway and resumed${!present ? NO_BENCH : ''}`, () => {
  let dir: string;
  let manifest: string;
  let tasks: Task[];
  let mock: MockServer;

  beforeAll(async () => {
    dir = tmpDir('opencoder-e2e-');
    ({ manifest, tasks } = await importStringUtils(dir));
    // Scripted candidates, chosen by the task the prompt names: a third of the tasks get a right first
    // candidate, a third a right later one, and a third none (their repair prompt gets the reference).
    const wrong = (t: Task) => `${t.signature.trimEnd().replace(/:$/, '')}:\n    raise NotImplementedError\n`;
    const taskOf = promptTask(tasks);
    mock = await startMock(
      openAiHandler({
        key: GOOD_OPENAI_KEY,
        models: ['gpt-4o-mini'],
        text: (i, req) => {
          const msgs = (req.body as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');
          const t = taskOf(msgs);
          if (!t) return 'I cannot tell which task this is.';
          const idx = tasks.indexOf(t);
          const ref = t.reference!;
          const repair = msgs.includes('repair round');
          const script = repair
            ? [ref]
            : [
                [ref, wrong(t), ref, wrong(t), wrong(t)],
                [wrong(t), ref, wrong(t), ref, ref],
                [wrong(t), wrong(t), wrong(t), wrong(t), wrong(t)],
              ][idx % 3]!;
          return '```python\n' + script[i % script.length] + '\n```';
        },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await mock?.close();
  });

  it('scripted mock LLM: resumed results equal an uninterrupted run, and the methods differ as scripted', async () => {
    const total = tasks.length * CONDITIONS;
    const db = path.join(dir, 'mock.db');
    const env = { OPENAI_API_KEY: GOOD_OPENAI_KEY };
    const { straightId, results } = await killAndResume(
      manifest,
      db,
      ['--backend', 'openai', '--base-url', `${mock.origin}/v1`, '--model', 'gpt-4o-mini', '--decompose', 'fallback'],
      env,
      total,
    );

    const get = (id: string, cond: string) => results.get(`${id} ${cond}`) as TaskResult;
    for (const [i, t] of tasks.entries()) {
      const base = get(t.id, 'baseline-rag');
      const vr = get(t.id, 'rag-verify-repair');
      const oc = get(t.id, 'opencoder');
      // Baseline returns its normalised-mode candidate (wrong ×3 beats right ×2 in the first script, right ×3 wins
      // in the second); verification finds the earliest right one; repair recovers the rest.
      expect(base.selected.correct, t.id).toBe(i % 3 === 1);
      expect(vr.selected.correct, t.id).toBe(true);
      expect(oc.selected.correct, t.id).toBe(true);
      expect(vr.c, t.id).toBe([2, 3, 0][i % 3]);
      expect(vr.repairRecovered, t.id).toBe(i % 3 === 2);
      expect(base.repairs).toHaveLength(0);
    }

    // The report's figures come from the store: McNemar for RAG + V/R vs Baseline is 19 wins, 0 losses.
    const report = start(['report', straightId, '--db', db, '--format', 'json', '--out', path.join(dir, 'r.json')]);
    expect((await report.done).code).toBe(0);
    const model = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8')) as {
      comparisons: { a: { condition: string }; b: { condition: string }; wins: number; losses: number; ties: number; mcnemarP: number }[];
    };
    const vrVsBase = model.comparisons.find((c) => c.a.condition === 'rag-verify-repair' && c.b.condition === 'baseline-rag')!;
    const expectedWins = tasks.filter((_, i) => i % 3 !== 1).length;
    expect([vrVsBase.wins, vrVsBase.losses, vrVsBase.ties]).toEqual([expectedWins, 0, tasks.length - expectedWins]);
    expect(vrVsBase.mcnemarP).toBeCloseTo(2 * 0.5 ** expectedWins, 12);
  }, 600_000); // two runs of every pair, each candidate validated isolated (two sandboxes)
});
