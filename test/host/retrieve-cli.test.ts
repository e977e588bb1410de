import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { NO_BENCH } from '../helpers/system.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SAMPLE = path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl');
const BENCH = process.env.OPENCODER_BENCH_DIR ?? path.resolve(ROOT, '..', 'shared', 'bench');
const hasBench = fs.existsSync(path.join(BENCH, 'repoexec', 'repoexec_inline.jsonl'));
const dir = tmpDir('oc-retrieve-cli-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('opencoder retrieve / eval-api', () => {
  it('retrieve indexes the task repository on a fresh database and prints r, w, u, γ and reasons', async () => {
    const db = path.join(dir, 'a.db');
    const text = await cli(['retrieve', '--manifest', SAMPLE, '--id', 'inventory/add_tax', '--db', db, '--quiet']);
    expect(text.code).toBe(0);
    const joined = text.out.join('\n');
    expect(joined).toMatch(/Fused evidence \(top \d+\):/);
    expect(joined).toMatch(/r \d\.\d{3}\s+w \d\.\d{3}\s+u \d\.\d{3}\s+γ \d\.\d{3}/);
    expect(joined).toMatch(/— (below the top 70 %|duplicate of|outside the fused|API refinement)/);
    const json = await cli(['retrieve', '--manifest', SAMPLE, '--id', 'inventory/add_tax', '--db', db, '--quiet', '--json']);
    const doc = json.json();
    expect(doc.ok).toBe(true);
    expect(doc.trace.fused.length).toBeGreaterThan(0);
    expect(doc.trace.fused.length).toBeLessThanOrEqual(10);
  });

  it('reports a missing task id with the manifest named', async () => {
    const r = await cli(['retrieve', '--manifest', SAMPLE, '--id', 'nope', '--db', path.join(dir, 'b.db'), '--json']);
    expect(r.code).toBe(1);
    expect(r.json().error.message).toMatch(/No task nope in .*tasks\.jsonl/);
  });

  it('eval-api reports precision / recall / F1 / count reliability with and without refinement', async () => {
    // The sample repository already indexed (the first test indexes a fresh database for real).
    const db = await copyIndexedSample(path.join(dir, 'c.db'));
    const on = (await cli(['eval-api', '--manifest', SAMPLE, '--db', db, '--quiet', '--json'])).json();
    const off = (await cli(['eval-api', '--manifest', SAMPLE, '--db', db, '--quiet', '--json', '--no-refine'])).json();
    expect(on.refine).toBe(true);
    expect(off.refine).toBe(false);
    // The headline is the repository protocol: strict keys, macro over the tasks with a non-empty truth.
    expect(on.protocol).toBe('repository');
    expect(on.summary.allTasks).toBe(11);
    expect(on.summary.tasksWithTruth).toBeGreaterThan(3);
    expect(on.summary.tasks).toBe(on.summary.tasksWithTruth);
    expect(on.summary.matching).toBe('strict');
    for (const k of ['precision', 'recall', 'f1']) expect(on.summary[k]).toBeGreaterThanOrEqual(0);
    expect(on.summary.count.over + on.summary.count.exact + on.summary.count.under).toBe(on.summary.tasksWithTruth);
    // Both protocols, every scope, in every report; task-view counts every task, empty truths included.
    const tv = on.protocols['task-view'].kept.summary;
    expect(tv.matching).toBe('bare');
    expect(tv.tasks).toBe(11);
    expect(Object.keys(on.protocols.repository).sort()).toEqual(['fused', 'kept', 'retrieved']);
    const headline = (await cli(['eval-api', '--manifest', SAMPLE, '--db', db, '--quiet', '--json', '--protocol', 'task-view', '--scope', 'retrieved'])).json();
    expect(headline.summary.protocol).toBe('task-view');
    expect(headline.summary.scope).toBe('retrieved');
    expect((await cli(['eval-api', '--manifest', SAMPLE, '--db', db, '--quiet', '--protocol', 'paper'])).code).not.toBe(0);
    // Refinement only removes items: never more predicted APIs than without it.
    const size = (doc: { tasks: { predicted: unknown[] }[] }) => doc.tasks.reduce((n, t) => n + t.predicted.length, 0);
    expect(size(on)).toBeLessThanOrEqual(size(off));
  });

  it.skipIf(!hasBench)(`on an imported RepoExec task the reference body appears in no source${!hasBench ? NO_BENCH : ''}`, async () => {
    const out = path.join(dir, 'rx');
    expect((await cli(['import', 'repoexec', path.join(BENCH, 'repoexec'), '--out', out, '--subset', 'python_string_utils_inline', '--quiet'])).code).toBe(0);
    const manifest = path.join(out, 'tasks.jsonl');
    const task = JSON.parse(fs.readFileSync(manifest, 'utf8').split('\n')[0]!);
    const doc = (await cli(['retrieve', '--manifest', manifest, '--id', task.id, '--db', path.join(dir, 'rx.db'), '--quiet', '--json'])).json();
    const squash = (s: string) => s.replace(/\s+/g, '');
    expect(doc.trace.masked.length).toBeGreaterThan(0);
    for (const e of doc.trace.evidence) expect(squash(e.text).includes(squash(task.reference))).toBe(false);
    // The offline backend runs retrieval and generation on the same task with no model.
    const gen = await cli(['generate', '--manifest', manifest, '--id', task.id, '--backend', 'offline', '--db', path.join(dir, 'rx.db'), '--quiet', '--json']);
    expect(gen.code, gen.err.join('\n')).toBe(0);
    const set = gen.json();
    expect(JSON.stringify(set)).toMatch(/offline/);
    expect(gen.out.join('\n')).toContain(`def ${task.qualname.split('.').pop()}`);
  });
  if (!hasBench) console.warn(`../shared/bench not found at ${BENCH}: the RepoExec retrieval check is skipped`);

  it("masks what the target's body defines: nested functions and classes never come back as evidence", async () => {
    const repo = path.join(dir, 'nested');
    fs.mkdirSync(path.join(repo, 'pkg'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'pkg', '__init__.py'), '');
    fs.writeFileSync(
      path.join(repo, 'pkg', 'sniff.py'),
      [
        'def sniff(sample):',
        '    """Guess the delimiter of a CSV sample."""',
        '    class Dialect:',
        '        """The guessed dialect."""',
        '        delimiter = ","',
        '    def guess_delimiter(line):',
        '        """Count candidate delimiters in a line and take the commonest."""',
        '        counts = {c: line.count(c) for c in ",;|\\t"}',
        '        return max(counts, key=counts.get)',
        '    d = Dialect()',
        '    d.delimiter = guess_delimiter(sample.splitlines()[0])',
        '    return d',
        '',
        'def other(x):',
        '    """Something else entirely."""',
        '    return x',
        '',
      ].join('\n'),
    );
    const manifest = path.join(repo, 'tasks.jsonl');
    const task = {
      id: 'nested/sniff',
      repo: '.',
      file: 'pkg/sniff.py',
      qualname: 'sniff',
      requirement: 'Guess the delimiter of a CSV sample: count the candidate delimiters of the first line and return a dialect with the commonest.',
      signature: 'def sniff(sample):',
      test_command: 'python -m pytest -q',
    };
    fs.writeFileSync(manifest, JSON.stringify(task) + '\n');
    const r = await cli(['retrieve', '--manifest', manifest, '--id', 'nested/sniff', '--db', path.join(dir, 'nested.db'), '--quiet', '--json']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const trace = r.json().trace as { masked: string[]; evidence: { title: string; text: string }[] };
    expect(trace.masked).toEqual(
      expect.arrayContaining([expect.stringMatching(/sniff\.<locals>\.guess_delimiter$/), expect.stringMatching(/sniff\.<locals>\.Dialect$/)]),
    );
    for (const e of trace.evidence) {
      expect(e.title, 'a nested definition of the target came back as evidence').not.toMatch(/guess_delimiter|Dialect/);
      expect(e.text).not.toMatch(/def guess_delimiter/);
    }
  });

  it('refuses a manifest whose repo points outside its folder (../../etc), naming the line, unless --allow grants the folder', async () => {
    const mdir = path.join(dir, 'hostile');
    fs.mkdirSync(mdir, { recursive: true });
    const task = {
      id: 'x/etc',
      repo: '../../../../../../etc',
      file: 'a.py',
      qualname: 'f',
      requirement: 'r',
      signature: 'def f():',
      test_command: 'python -m pytest -q',
    };
    const manifest = path.join(mdir, 'tasks.jsonl');
    fs.writeFileSync(manifest, JSON.stringify({ ...task, id: 'ok/1', repo: '.' }) + '\n' + JSON.stringify(task) + '\n');
    const r = await cli(['retrieve', '--manifest', manifest, '--id', 'ok/1', '--db', path.join(dir, 'hostile.db'), '--json']);
    expect(r.code).toBe(1);
    expect(r.json().error.message).toMatch(/tasks\.jsonl:2 \(task x\/etc\): repo \.\.\/.*etc resolves to \/etc, inside \/etc, which no task may read/);
    expect(r.json().error.code).toBe('forbidden-path');
    // Allowing / does not open /etc either.
    const allowedRoot = await cli(['retrieve', '--manifest', manifest, '--id', 'ok/1', '--allow', '/', '--db', path.join(dir, 'hostile.db'), '--json']);
    expect(allowedRoot.code).toBe(1);

    // A repository beside the manifest's folder is refused until --allow names its folder.
    const beside = path.join(dir, 'beside-repo');
    fs.mkdirSync(beside, { recursive: true });
    fs.writeFileSync(path.join(beside, 'a.py'), 'def f():\n    return 1\n');
    fs.writeFileSync(manifest, JSON.stringify({ ...task, id: 'b/1', repo: '../beside-repo' }) + '\n');
    const refused = await cli(['retrieve', '--manifest', manifest, '--id', 'b/1', '--db', path.join(dir, 'hostile.db'), '--json', '--quiet']);
    expect(refused.code).toBe(1);
    expect(refused.json().error.message).toMatch(
      /tasks\.jsonl:1 \(task b\/1\): repo \.\.\/beside-repo resolves to .*beside-repo, outside the manifest's folder .*; pass --allow DIR/,
    );
    const allowed = await cli([
      'retrieve',
      '--manifest',
      manifest,
      '--id',
      'b/1',
      '--allow',
      beside,
      '--db',
      path.join(dir, 'hostile.db'),
      '--json',
      '--quiet',
    ]);
    expect(allowed.code, allowed.err.join('\n')).toBe(0);
  });
});
