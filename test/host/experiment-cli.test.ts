// opencoder run / ablate / report / compare / runs on the bundled sample repository with the offline backend.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLE = path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl');
const dir = tmpDir('oc-experiment-cli-');
const db = path.join(dir, 'w.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('experiment commands', () => {
  let ablateId: string;
  let runId: string;

  beforeAll(async () => {
    // The sample repository already indexed, as the first command here would leave it.
    await copyIndexedSample(db);
    const a = await cli(['ablate', '--manifest', SAMPLE, '--limit', '2', '--db', db, '--json']);
    expect(a.code, a.err.join('\n')).toBe(0);
    ablateId = a.json().runId;
    const r = await cli([
      'run',
      '--manifest',
      SAMPLE,
      '--ids',
      'inventory/add_tax,inventory/apply_discount',
      '--method',
      'baseline-rag,opencoder',
      '--db',
      db,
      '--json',
    ]);
    expect(r.code, r.err.join('\n')).toBe(0);
    runId = r.json().runId;
  }, 240_000);

  it('ablate runs the eight cells and prints its id, progress, an estimate and effects', async () => {
    const a = await cli(['runs', '--db', db, '--json']);
    const listed = a.json().runs.find((r: { id: string }) => r.id === ablateId);
    expect(listed).toMatchObject({ state: 'done', kind: 'ablate', results: 16, errors: 0 });
    expect(listed.conditions).toHaveLength(8);
    const again = await cli(['ablate', '--manifest', SAMPLE, '--limit', '1', '--db', db]);
    const err = again.err.join('\n');
    expect(err).toMatch(/^Run ablate-\S+: 1 tasks × 8 conditions/m);
    expect(err).toMatch(/Estimate before the run: .*cost ≈ \$0 \(at most \$0\)/);
    expect(err).toMatch(/\[run ablate-\S+\] 8\/8; ETA/);
    expect(again.out.join('\n')).toMatch(/Factorial \(1 paired task, t-test\)/);
  }, 120_000);

  it('report writes HTML with every chart, Markdown, JSON and CSV from the store', async () => {
    const html = path.join(dir, 'r.html');
    const r = await cli(['report', ablateId, runId, '--format', 'html', '--out', html, '--db', db, '--json']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const text = fs.readFileSync(html, 'utf8');
    for (const chart of ['factorial-effects', 'pass-at-k', 'uncertainty-vs-correctness', 'api-f1']) expect(text).toContain(`data-chart="${chart}"`);
    expect(text).toContain(ablateId);
    expect(text).toContain(runId);

    const json = path.join(dir, 'r.json');
    expect((await cli(['report', ablateId, '--format', 'json', '--out', json, '--db', db])).code).toBe(0);
    const model = JSON.parse(fs.readFileSync(json, 'utf8'));
    expect(model.runs[0].manifest.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(model.runs[0].app.name).toBe('opencoder');
    expect(model.factorial[0].outcomes.map((o: { outcome: string }) => o.outcome)).toEqual(['pass@1', 'uncertainty']);
    expect(model.tasks).toHaveLength(16);
    expect(model.candidates).toHaveLength(16 * 5);

    const csv = path.join(dir, 'r.csv');
    const c = await cli(['report', runId, '--format', 'csv', '--out', csv, '--db', db, '--json']);
    expect(c.json().files.map((f: string) => path.basename(f))).toContain('r.runs.csv');
    expect(fs.readFileSync(csv, 'utf8').trim().split('\n')).toHaveLength(1 + 4);

    const md = path.join(dir, 'r.md');
    expect((await cli(['report', runId, '--format', 'md', '--out', md, '--db', db])).code).toBe(0);
    expect(fs.readFileSync(md, 'utf8')).toMatch(/\| *OpenCoder *\|/);
  });

  it('compare pairs two runs by condition', async () => {
    const r = await cli(['compare', runId, runId, '--db', db, '--json']);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc.comparisons.map((c: { a: { condition: string } }) => c.a.condition)).toEqual(['baseline-rag', 'opencoder']);
    for (const c of doc.comparisons) expect([c.wins, c.losses, c.ties]).toEqual([0, 0, 2]);
    // compare and report of the same runs adjust over the same Holm family (one backend: the within-run pair too).
    const json = path.join(dir, 'cmp.json');
    expect((await cli(['report', runId, runId, '--format', 'json', '--out', json, '--db', db])).code).toBe(0);
    const reported = JSON.parse(fs.readFileSync(json, 'utf8')).comparisons as {
      a: { condition: string };
      b: { condition: string };
      holmFamily: { key: string; size: number };
      mcnemarPHolm: number;
    }[];
    for (const c of doc.comparisons) {
      const same = reported.find((x) => x.a.condition === c.a.condition && x.b.condition === c.b.condition && x.a.condition === x.b.condition)!;
      expect(c.holmFamily).toEqual(same.holmFamily);
      expect(c.mcnemarPHolm).toBe(same.mcnemarPHolm);
      expect(c.holmFamily).toMatchObject({ key: 'offline', size: 3 });
      expect(c.passAtKDiff[0].test).toMatchObject({ p: 1, informative: 0, method: 'exact' });
    }
    const bad = await cli(['compare', runId, ablateId, '--db', db, '--json']);
    expect(bad.code).not.toBe(0);
    expect(bad.json().error.message).toMatch(/share no condition/);
  });

  it('refuses bad input with the culprit named', async () => {
    const typo = await cli(['run', '--manifest', SAMPLE, '--method', 'opencodr', '--db', db, '--json']);
    expect(typo.code).toBe(2);
    expect(typo.json().error.message).toMatch(/unknown method "opencodr"/);
    const missing = await cli(['run', '--resume', 'run-nope', '--db', db, '--json']);
    expect(missing.code).toBe(1);
    expect(missing.json().error.message).toMatch(/No experiment run run-nope/);
    const noTask = await cli(['run', '--manifest', SAMPLE, '--ids', 'inventory/nope', '--db', db, '--json']);
    expect(noTask.json().error.message).toMatch(/has no task inventory\/nope/);
    const report = await cli(['report', 'run-nope', '--out', path.join(dir, 'x.html'), '--db', db, '--json']);
    expect(report.json().error.message).toMatch(/No experiment run run-nope/);
  });

  it('a task whose reference fails its own tests is refused before any model call, and nothing is stored', async () => {
    const copy = path.join(dir, 'broken-ref');
    fs.cpSync(path.dirname(SAMPLE), copy, { recursive: true });
    const manifest = path.join(copy, 'tasks.jsonl');
    const lines = fs
      .readFileSync(manifest, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const t = lines.find((x) => x.id === 'inventory/add_tax');
    t.reference = 'def add_tax(amount, tax_class="standard"):\n    return amount\n';
    fs.writeFileSync(manifest, lines.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const before = (await cli(['runs', '--db', db, '--json'])).json().runs.length;
    const r = await cli([
      'run',
      '--manifest',
      manifest,
      '--ids',
      'inventory/add_tax,inventory/apply_discount',
      '--method',
      'baseline-rag',
      '--db',
      db,
      '--json',
    ]);
    expect(r.code).toBe(1);
    expect(r.json().error.message).toMatch(/1 of 2 task\(s\) have a reference that does not pass its own tests[\s\S]*inventory\/add_tax: failed: /);
    expect((await cli(['runs', '--db', db, '--json'])).json().runs.length).toBe(before);
  }, 60_000);

  it('--candidates and --temperature set the sampling of every condition; bad values and a resume that changes them are refused', async () => {
    const r = await cli([
      'run',
      '--manifest',
      SAMPLE,
      '--limit',
      '1',
      '--method',
      'baseline-rag,opencoder',
      '--candidates',
      '3',
      '--temperature',
      '0.2',
      '--db',
      db,
      '--json',
    ]);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc.conditions.map((c: { samples: number }) => c.samples)).toEqual([3, 3]);
    const bad = await cli(['run', '--manifest', SAMPLE, '--temperature', '3', '--db', db, '--json']);
    expect(bad.code).toBe(2);
    expect(bad.json().error.message).toMatch(/temperature must be from 0 to 2 \(got 3\)/);
    const preset = await cli(['run', '--manifest', SAMPLE, '--preset', 'nope', '--db', db, '--json']);
    expect(preset.json().error.message).toMatch(/unknown generation preset nope \(one of paper-rq12, paper-rq34, bench-n10\)/);
    const resumed = await cli(['run', '--resume', doc.runId, '--candidates', '5', '--db', db, '--json']);
    expect(resumed.code).toBe(2);
    expect(resumed.json().error.message).toMatch(/does not take --candidates/);
  }, 120_000);

  it('two identical runs with parallel workers give the same JSON report, apart from timestamps and measured durations', async () => {
    const reports: unknown[] = [];
    for (const i of [1, 2]) {
      const r = await cli(['run', '--manifest', SAMPLE, '--limit', '4', '--method', 'baseline-rag,opencoder', '--parallel', '3', '--db', db, '--json']);
      expect(r.code, r.err.join('\n')).toBe(0);
      const id = r.json().runId as string;
      const out = path.join(dir, `det-${i}.json`);
      expect((await cli(['report', id, '--format', 'json', '--out', out, '--db', db])).code).toBe(0);
      const text = fs.readFileSync(out, 'utf8').split(id).join('RUN');
      reports.push(JSON.parse(text, (k, v) => (['durationMs', 'generatedAt', 'createdAt', 'finishedAt'].includes(k) ? null : v)));
    }
    expect(reports[1]).toEqual(reports[0]);
  }, 180_000);

  it('a changed manifest is refused on resume: results would no longer be paired', async () => {
    const copy = path.join(dir, 'copy');
    fs.cpSync(path.dirname(SAMPLE), copy, { recursive: true });
    const manifest = path.join(copy, 'tasks.jsonl');
    const est = await cli(['run', '--manifest', manifest, '--estimate-only', '--db', db, '--json']);
    expect(est.json().estimate.calls).toBeGreaterThan(0);
    const r = await cli(['run', '--manifest', manifest, '--limit', '1', '--method', 'baseline-rag', '--db', db, '--json']);
    const id = r.json().runId;
    fs.appendFileSync(manifest, '\n');
    const resumed = await cli(['run', '--resume', id, '--db', db, '--json']);
    expect(resumed.code).toBe(1);
    expect(resumed.json().error.message).toMatch(/has changed since run .* froze it/);
  }, 60_000);

  it('a metered backend over --max-usd is refused before anything is sent', async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-test-not-a-real-key';
    const r = await cli([
      'run',
      '--manifest',
      SAMPLE,
      '--backend',
      'openai',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--max-usd',
      '0.000001',
      '--db',
      db,
      '--json',
    ]).finally(() => {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    });
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/over --max-usd 0\.000001; nothing was sent/);
    const runs = (await cli(['runs', '--db', db, '--json'])).json().runs;
    expect(runs.every((x: { backend: { kind: string } }) => x.backend.kind === 'offline')).toBe(true);
  });

  it('a run whose pairs failed exits 3 and says by kind what failed, instead of exiting 0', async () => {
    // Nothing listens on port 9: every generation call fails with a network error (no retries).
    const args = ['run', '--manifest', SAMPLE, '--limit', '2', '--method', 'opencoder', '--backend', 'openai', '--base-url', 'http://127.0.0.1:9/v1'];
    const prev = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-test-no-server-listens-here';
    try {
      const r = await cli([...args, '--retries', '0', '--db', db]);
      expect(r.code, r.err.join('\n')).toBe(3);
      expect(r.out.join('\n')).toMatch(/^Failed: 2 of 2 \(task, condition\) pairs — generate\/network 2; /m);
      const j = await cli([...args, '--retries', '0', '--db', db, '--json']);
      expect(j.code).toBe(3);
      expect(j.json()).toMatchObject({ ok: false, outcome: { failed: 2, failures: { 'generate/network': 2 } } });
    } finally {
      if (prev === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = prev;
    }
  });
});
