// Through the CLI (`node bin/opencoder.js`), against a scripted OpenAI-compatible mock: a task whose replies are
// an empty string and prose without code gets those candidates named (failed samples, counted by kind in every
// report format), and a task whose every request fails with HTTP 500 (no retries left) is unscored with its cause:
// left out of Pass@k's n, counted beside it in the run summary and in the Markdown, JSON and HTML reports.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { Task } from '../../main/model/task.ts';
import type { ReportModel } from '../../main/model/report.ts';
import { startMock, type MockServer } from '../generate/mock-http.ts';
import { GOOD_OPENAI_KEY, openAiError, openAiHandler } from '../generate/wire.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { REPO_ROOT, SAMPLE_REPO } from '../validate/helpers.ts';

const BIN = path.join(REPO_ROOT, 'bin', 'opencoder.js');
const MANIFEST = path.join(SAMPLE_REPO, 'tasks.jsonl');
const SCORED = 'inventory/apply_discount';
const FAILING = 'inventory/add_tax';
const PROSE = 'I would need to see more of the code base before I could write this function safely.';

function opencoder(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('opencoder run / report: replies without code are named, infrastructure failures are unscored', () => {
  const dir = tmpDir('oc-unscored-cli-');
  const db = path.join(dir, 'w.db');
  const tasks = readManifest(MANIFEST).tasks;
  let mock: MockServer;
  let run: Awaited<ReturnType<typeof opencoder>>;
  let runId: string;

  beforeAll(async () => {
    await copyIndexedSample(db);
    const taskOf = (text: string): Task | undefined => {
      const m = /## Target\nFile: (\S+)\nQualified name: (\S+)/.exec(text);
      return m ? tasks.find((t) => t.file === m[1] && t.qualname === m[2]) : undefined;
    };
    const prompt = (body: unknown) => ((body as { messages: { content: string }[] }).messages ?? []).map((m) => m.content).join('\n');
    // Sample 1 is the reference, sample 2 an empty reply, sample 3 prose without any code.
    const vendor = openAiHandler({
      key: GOOD_OPENAI_KEY,
      text: (i, req) => (i === 0 ? '```python\n' + taskOf(prompt(req.body))!.reference! + '```\n' : i === 1 ? '' : PROSE),
    });
    mock = await startMock((req, r) =>
      taskOf(prompt(req.body))?.id === FAILING
        ? openAiError(500, 'The server had an error while processing your request.', 'server_error', null)
        : vendor(req, r),
    );
    // One sandboxed run at a time, three samples each, no retries: the failing task's first 500 is final.
    const flags = `--method opencoder --backend openai --model gpt-4o-mini --decompose fallback --retries 0 --candidates 3 --parallel 1 --quiet`;
    const args = ['run', '--manifest', MANIFEST, '--ids', `${SCORED},${FAILING}`, '--base-url', `${mock.origin}/v1`, '--db', db, ...flags.split(' ')];
    run = await opencoder(args, { OPENAI_API_KEY: GOOD_OPENAI_KEY });
    runId = /^Run (\S+): done;/m.exec(run.stdout)?.[1] ?? '';
  }, 300_000);

  afterAll(async () => {
    await mock?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the run exits 3, says the failed pair is unscored by cause, and states the n its Pass@1 is over', () => {
    expect(run.code, run.stderr).toBe(3);
    expect(runId).not.toBe('');
    expect(run.stdout).toMatch(
      /^Failed: 1 of 2 \(task, condition\) pairs — generate\/server 1; these pairs are unscored \(server 1\): excluded from Pass@k and selected-correct/m,
    );
    expect(run.stdout).toMatch(/^OpenCoder: Pass@1 0\.333 over 1 scored task; 1 unscored \(server 1\)/m);
    expect(run.stdout).toContain('2 of 3 raw candidates had no code: 1 empty, 1 prose without code, 0 refused');
  });

  it('the JSON report counts the unscored pair beside the figures and names each reply', async () => {
    const out = path.join(dir, 'r.json');
    expect((await opencoder(['report', runId, '--format', 'json', '--out', out, '--db', db])).code).toBe(0);
    const model = JSON.parse(fs.readFileSync(out, 'utf8')) as ReportModel;
    const [c] = model.conditions;
    expect(c).toMatchObject({ tasks: 1, samples: 3, unscored: { total: 1, byCause: { server: 1 } } });
    expect(c!.replies).toEqual({ candidates: 3, code: 1, empty: 1, noCode: 1, refused: 0, unknown: 0 });
    expect(c!.passAtK[0]!.value.estimate).toBeCloseTo(1 / 3, 12);
    expect(model.candidates.filter((x) => x.taskId === SCORED).map((x) => [x.reply, x.passed])).toEqual([
      ['code', true],
      ['empty', false],
      ['no-code', false],
    ]);
    const rows = new Map(model.tasks.map((t) => [t.taskId, t]));
    expect(rows.get(FAILING)).toMatchObject({ unscored: 'server', emptyReplies: null });
    expect(rows.get(FAILING)!.error).toMatch(/HTTP 500|server/i);
    expect(rows.get(SCORED)).toMatchObject({ unscored: null, error: null, emptyReplies: 1, noCodeReplies: 1, refusedReplies: 0 });
  });

  it('the Markdown and HTML reports show the counts', async () => {
    const md = path.join(dir, 'r.md');
    const html = path.join(dir, 'r.html');
    expect((await opencoder(['report', runId, '--format', 'md', '--out', md, '--db', db])).code).toBe(0);
    expect((await opencoder(['report', runId, '--format', 'html', '--out', html, '--db', db])).code).toBe(0);
    const text = fs.readFileSync(md, 'utf8');
    expect(text).toContain(
      '| OpenCoder (`opencoder`) | Pass@1 0.333 over 1 scored task; 1 unscored (server 1) | 2 of 3 raw candidates had no code: 1 empty, 1 prose without code, 0 refused |',
    );
    expect(text).toMatch(/\| `inventory\/add_tax` \|.*\| server \| generate: /);
    const page = fs.readFileSync(html, 'utf8');
    const list = (name: string) => new RegExp(`<ul data-list="${name}">([\\s\\S]*?)</ul>`).exec(page)?.[1] ?? '';
    expect(list('unscored')).toContain('Pass@1 0.333 over 1 scored task; 1 unscored (server 1)');
    expect(list('replies')).toContain('2 of 3 raw candidates had no code: 1 empty, 1 prose without code, 0 refused');
    expect(page).toMatch(/<td data-col="unscored" class="fail">server<\/td>/);
  });
});
