// The contract calls behind issue 17's first hour: repo.allow ("Allow this folder": refused for the root and the
// system or secrets folders, remembered across restarts), the forbidden-path message naming both ways to allow a
// folder, repo.list's other files and embedded counts (main/model/index-counts.ts), and run.rename.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AllowedFolder, AppInfo, JobInfo, RepoSummary, RunListItem } from '../../contract/index.ts';
import { embeddableTexts } from '../../main/model/index-counts.ts';
import { Store } from '../../main/store/store.ts';
import { ok, openService, settled } from '../helpers/service-calls.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const dir = tmpDir('oc-first-hour-');
const outside = tmpDir('oc-first-hour-outside-');
afterAll(() => {
  for (const d of [dir, outside]) fs.rmSync(d, { recursive: true, force: true });
});

fs.mkdirSync(path.join(outside, 'pkg'), { recursive: true });
fs.writeFileSync(path.join(outside, 'pkg', 'a.py'), 'def f(x):\n    return x + 1\n\n\nclass C:\n    def m(self):\n        return 2\n');
fs.writeFileSync(path.join(outside, 'README.md'), '# not code\n');

describe('repo.allow', () => {
  it('a refused folder names "Allow this folder" and opencoder serve --allow; allowing it lets it be indexed, and it is remembered', async () => {
    const s = await openService(dir, 'home');
    try {
      const refused = await s.call('repo.index', { path: outside });
      expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden-path' } });
      if (!refused.ok) {
        expect(refused.error.issues![0]!.message).toContain('Allow this folder');
        expect(refused.error.issues![0]!.message).toContain('opencoder serve --allow DIR');
        expect(refused.error.message).toContain(outside);
        // The refusal names the folder whose allowing lets the same call through (the UI's in-place action).
        expect(refused.error.allow).toBe(fs.realpathSync(outside));
      }
      const allowed = await ok<AllowedFolder>(s, 'repo.allow', { folder: outside });
      expect(allowed.folder).toBe(fs.realpathSync(outside));
      expect(allowed.allowedRoots).toContain(fs.realpathSync(outside));
      expect(JSON.parse(fs.readFileSync(allowed.rememberedIn, 'utf8')).folders).toEqual([fs.realpathSync(outside)]);
      const job = await ok<{ jobId: string }>(s, 'repo.index', { path: outside });
      expect((await settled(s, job.jobId)).state).toBe('done');
      const repo = (await ok<RepoSummary[]>(s, 'repo.list')).find((r) => r.root === fs.realpathSync(outside))!;
      expect(repo.files).toBe(1);
      expect(repo.otherFiles).toBe(1);
      expect(repo.embedded).toBe(embeddableTexts(repo));
      expect(repo.embedded).toBeLessThan(Object.values(repo.units).reduce((a, b) => a + b, 0) + repo.chunks + repo.apiEntries);
      const jobs = await ok<JobInfo[]>(s, 'job.list');
      const done = jobs.find((j) => j.id === job.jobId)!;
      expect(done.progress).toMatchObject({ phase: 'embed', done: repo.embedded, total: repo.embedded });
      expect(done.progress!.message).toBe(`${repo.embedded} of ${repo.embedded} texts embedded in this run (new or changed)`);
    } finally {
      await s.close();
    }
    const again = await openService(dir, 'home');
    try {
      expect((await ok<AppInfo>(again, 'app.info')).allowedRoots).toContain(fs.realpathSync(outside));
    } finally {
      await again.close();
    }
  }, 120_000);

  it('a refused file offers its folder; a path not made yet offers its nearest existing folder; a system folder offers none and says why', async () => {
    const s = await openService(dir, 'offer');
    try {
      const manifest = path.join(outside, 'pkg', 'a.py');
      const file = await s.call('tasks.list', { manifest });
      expect(file).toMatchObject({ ok: false, error: { code: 'forbidden-path', allow: fs.realpathSync(path.join(outside, 'pkg')) } });
      const fresh = await s.call('tasks.list', { manifest: path.join(outside, 'not-made-yet', 'tasks.jsonl') });
      expect(fresh).toMatchObject({ ok: false, error: { code: 'forbidden-path', allow: fs.realpathSync(outside) } });
      const etc = await s.call('tasks.list', { manifest: '/etc/passwd' });
      expect(etc).toMatchObject({ ok: false, error: { code: 'forbidden-path' } });
      if (!etc.ok) {
        expect(etc.error.allow).toBeUndefined();
        expect(etc.error.message).toContain('Its folder cannot be allowed');
        expect(etc.error.message).toContain('which no task may read');
      }
    } finally {
      await s.close();
    }
  });

  it("a manifest whose task repository lies outside the allowed folders offers that repository's folder; allowed, it loads", async () => {
    const s = await openService(dir, 'manifest-offer');
    try {
      const mdir = path.join(dir, 'manifest-offer-m');
      fs.mkdirSync(mdir, { recursive: true });
      const manifest = path.join(mdir, 'tasks.jsonl');
      const task = {
        id: 'o/1',
        repo: outside,
        file: 'pkg/a.py',
        qualname: 'f',
        requirement: 'Add one.',
        signature: 'def f(x):',
        test_command: 'python3 -m pytest tests',
      };
      fs.writeFileSync(manifest, JSON.stringify(task) + '\n');
      const refused = await s.call('tasks.list', { manifest });
      expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden-path', allow: fs.realpathSync(outside) } });
      await ok(s, 'repo.allow', { folder: outside });
      expect((await ok<{ tasks: unknown[] }>(s, 'tasks.list', { manifest })).tasks).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('refuses the root, system and secrets folders, and what is not a folder, naming it and why', async () => {
    const s = await openService(dir, 'refuse');
    try {
      for (const [folder, why] of [
        ['/', "the file system's root"],
        ['/etc', 'which no task may read'],
        [path.join(outside, 'README.md'), 'is not a folder'],
        [path.join(outside, 'missing'), 'does not exist'],
      ] as const) {
        const r = await s.call('repo.allow', { folder });
        expect(r, folder).toMatchObject({ ok: false, error: { code: 'forbidden-path', issues: [{ path: 'folder' }] } });
        if (!r.ok) expect(r.error.message, folder).toContain(why);
      }
      expect((await ok<AppInfo>(s, 'app.info')).allowedRoots).not.toContain('/etc');
    } finally {
      await s.close();
    }
  });
});

describe('run.rename', () => {
  it('lists an old run (no label) with its automatic label; renames it; null goes back; an unknown run is not found', async () => {
    const home = path.join(dir, 'runs');
    fs.mkdirSync(home, { recursive: true });
    const store = Store.open(path.join(home, 'w.db'));
    store.experiments.create({
      id: 'run-old',
      kind: 'ablate',
      manifestFile: '/m/bench.jsonl',
      manifestHash: 'h',
      taskIds: ['a', 'b', 'c'],
      conditions: [{ id: 'c1' }, { id: 'c2' }, { id: 'c3' }, { id: 'c4' }],
      backend: { kind: 'openai', model: 'gpt-4o-mini' },
      provenance: { backend: { label: 'OpenAI gpt-4o-mini' } },
      options: {},
    });
    store.close();
    const s = await openService(dir, 'runs');
    try {
      const [old] = await ok<RunListItem[]>(s, 'experiment.list');
      expect(old).toMatchObject({
        label: 'bench.jsonl (3 tasks) · c1, c2 +2 more · OpenAI gpt-4o-mini',
        autoLabel: 'bench.jsonl (3 tasks) · c1, c2 +2 more · OpenAI gpt-4o-mini',
        subject: 'bench.jsonl · 3 tasks',
        backend: 'OpenAI gpt-4o-mini',
      });
      expect(await ok<RunListItem>(s, 'run.rename', { runId: 'run-old', label: '  factorial, mini  ' })).toMatchObject({ label: 'factorial, mini' });
      expect((await ok<RunListItem[]>(s, 'experiment.list'))[0]!.label).toBe('factorial, mini');
      expect((await ok<RunListItem>(s, 'run.rename', { runId: 'run-old', label: null })).label).toBe(old!.autoLabel);
      expect(await s.call('run.rename', { runId: 'run-nope', label: 'x' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
      expect(await s.call('run.rename', { runId: 'run-old', label: '   ' })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    } finally {
      await s.close();
    }
  });
});
