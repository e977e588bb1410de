import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runIndex, indexRepository, type IndexEvent } from '../../main/index/indexer.ts';
import { Store } from '../../main/store/store.ts';
import { fakeEncoder } from '../helpers/fake-encoder.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';
import { main } from '../../main/host/cli/main.ts';

const cleanup: string[] = [];
afterEach(() => {
  for (const d of cleanup.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const FILES: Record<string, string> = {
  'pkg/__init__.py': '"""The package."""\nfrom .text import slugify\n',
  'pkg/text.py':
    '"""Text helpers."""\nimport re\n\nSEP = "-"\n\n\ndef slugify(value: str, sep: str = SEP) -> str:\n    """Make a URL slug."""\n    return sep.join(_words(value))\n\n\ndef _words(value):\n    return re.findall(r"\\w+", value.lower())\n',
  'pkg/shapes.py':
    'class Shape:\n    """A shape."""\n\n    def area(self) -> float:\n        """Area."""\n        raise NotImplementedError\n\n\nclass Square(Shape):\n    def __init__(self, side):\n        self.side = side\n\n    def area(self):\n        return self.side * self.side\n',
  'web/app.ts': 'export function greet(name: string): string {\n  return `hi ${name}`;\n}\n',
  'README.md': '# not code\n',
  'build/gen.py': 'def ignored(): pass\n',
};

function setup(files = FILES) {
  const root = makeRepo(files);
  const dbDir = tmpDir('oc-db-');
  cleanup.push(root, dbDir);
  const store = Store.open(path.join(dbDir, 'w.db'));
  return { root, dbDir, store };
}

function unitNames(store: Store): string[] {
  return (
    store.db.prepare("SELECT f.path || ':' || u.qualname AS n FROM units u JOIN files f ON f.id = u.file_id WHERE u.kind != 'module' ORDER BY n").all() as {
      n: string;
    }[]
  ).map((r) => r.n);
}

describe('indexRepository', () => {
  it('indexes units, chunks and API entries, records skips, and embeds every text once', async () => {
    const { root, store } = setup();
    const enc = fakeEncoder();
    const events: IndexEvent[] = [];
    const stats = await runIndex({ store, root, encoder: enc, parseThreads: 1 }, (e) => events.push(e));
    expect(stats.status).toBe('completed');
    expect(stats.files).toMatchObject({ seen: 4, added: 4, changed: 0, removed: 0 });
    expect(stats.parsedFiles).toBe(4);
    expect(unitNames(store)).toEqual([
      'pkg/shapes.py:Shape',
      'pkg/shapes.py:Shape.area',
      'pkg/shapes.py:Square',
      'pkg/shapes.py:Square.__init__',
      'pkg/shapes.py:Square.area',
      'pkg/text.py:_words',
      'pkg/text.py:slugify',
      'web/app.ts:greet',
    ]);
    const s = store.stats(stats.repoId);
    expect(s.chunks).toBeGreaterThanOrEqual(3);
    // 8 units (classes, functions, methods) plus the module constant SEP of pkg/text.py.
    expect(s.apiEntries).toBe(9);
    expect(store.db.prepare("SELECT kind, qualname, unit_id, start_line, end_line FROM api_entries WHERE kind IN ('constant', 'attribute')").all()).toEqual([
      { kind: 'constant', qualname: 'SEP', unit_id: null, start_line: 4, end_line: 4 },
    ]);
    expect(s.encoder?.key).toBe('fake@1');
    // Every embeddable item (function and method bodies, chunks, API entries) is embedded, and nothing twice.
    expect(enc.seen.length).toBe(stats.embeddedTexts);
    expect(stats.embeddedTexts).toBe(6 + s.chunks + s.apiEntries);
    // The class body (methods indented inside it) is not embedded; the dedented method is.
    expect(enc.seen.some((t) => t.includes('\n        self.side = side'))).toBe(false);
    expect(enc.seen.some((t) => t.startsWith('def __init__(self, side):\n    self.side = side'))).toBe(true);
    expect(store.countPendingEmbeddings(stats.repoId, s.encoder!.id)).toBe(0);
    expect(store.listSkips(stats.repoId).some((k) => k.path.startsWith('build'))).toBe(true);
    // Progress: phases in order, parse progress reaches total, the last event is done.
    const phases = events.filter((e) => e.type === 'phase').map((e) => (e as { phase: string }).phase);
    expect(phases).toEqual(['scan', 'catalog', 'parse', 'embed']);
    const parseProgress = events.filter((e) => e.type === 'progress' && e.phase === 'parse');
    expect(parseProgress.at(-1)).toMatchObject({ done: 4, total: 4 });
    expect(events.at(-1)?.type).toBe('done');
    store.close();
  });

  it('re-indexes nothing when nothing changed, and only the touched or edited file otherwise', async () => {
    const { root, store } = setup();
    const enc = fakeEncoder();
    await runIndex({ store, root, encoder: enc, parseThreads: 1 });

    enc.seen.length = 0;
    const again = await runIndex({ store, root, encoder: enc, parseThreads: 1 });
    expect(again.parsedFiles).toBe(0);
    expect(again.embeddedTexts).toBe(0);
    expect(again.files).toMatchObject({ unchanged: 4, added: 0, changed: 0, touched: 0 });
    expect(enc.seen).toEqual([]);

    // Same content, new mtime: hashed, not parsed.
    const text = path.join(root, 'pkg/text.py');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(text, later, later);
    const touched = await runIndex({ store, root, encoder: enc, parseThreads: 1 });
    expect(touched.files.touched).toBe(1);
    expect(touched.parsedFiles).toBe(0);
    const fourth = await runIndex({ store, root, encoder: enc, parseThreads: 1 });
    expect(fourth.files.unchanged).toBe(4);

    // An edit: only that file is parsed and only its items are embedded.
    fs.appendFileSync(text, '\n\ndef shout(value):\n    return value.upper()\n');
    const edited = await runIndex({ store, root, encoder: enc, parseThreads: 1 });
    expect(edited.parsedFiles).toBe(1);
    expect(edited.files.changed).toBe(1);
    expect(enc.seen.some((t) => t.includes('def shout'))).toBe(true);
    expect(enc.seen.some((t) => t.includes('class Square'))).toBe(false);
    expect(unitNames(store)).toContain('pkg/text.py:shout');

    // A removal drops the file's units.
    fs.rmSync(path.join(root, 'pkg/shapes.py'));
    const removed = await runIndex({ store, root, encoder: enc, parseThreads: 1 });
    expect(removed.files.removed).toBe(1);
    expect(unitNames(store).some((n) => n.startsWith('pkg/shapes.py'))).toBe(false);
    store.close();
  });

  it('after the upgrade from schema 6, re-parses the Python files (not the others) and adds their constants and attributes', async () => {
    const files = { ...FILES, 'pkg/conf.py': 'class Conf:\n    retries: int = 3\n    name = "x"\n' };
    const { root, dbDir, store } = setup(files);
    const enc = fakeEncoder();
    await runIndex({ store, root, encoder: enc, parseThreads: 1 });
    // Turn the database back into what version 6 wrote: API entries of units only, no line columns.
    const values = store.db.prepare("SELECT id FROM api_entries WHERE kind IN ('constant', 'attribute')").all() as { id: number }[];
    expect(values.length).toBe(3);
    for (const v of values) {
      store.db.prepare('DELETE FROM fts_api WHERE rowid = ?').run(v.id);
      store.db.prepare('DELETE FROM api_entries WHERE id = ?').run(v.id);
    }
    store.db.exec(
      'ALTER TABLE api_entries DROP COLUMN start_line; ALTER TABLE api_entries DROP COLUMN end_line; ALTER TABLE index_runs DROP COLUMN pid; ALTER TABLE index_runs DROP COLUMN host; ALTER TABLE experiment_runs DROP COLUMN label; ' +
        'ALTER TABLE reference_checks DROP COLUMN isolation; ALTER TABLE reference_checks DROP COLUMN isolation_reason',
    );
    store.db.pragma('user_version = 6');
    store.close();

    const upgraded = Store.open(path.join(dbDir, 'w.db'));
    enc.seen.length = 0;
    const next = await runIndex({ store: upgraded, root, encoder: enc, parseThreads: 1 });
    expect(next.files).toMatchObject({ changed: 4, unchanged: 1, added: 0, removed: 0 });
    expect(next.parsedFiles).toBe(4);
    expect(
      upgraded.db
        .prepare(
          `SELECT f.path, a.kind, a.qualname, a.owner, a.start_line, a.end_line FROM api_entries a JOIN files f ON f.id = a.file_id
           WHERE a.kind IN ('constant', 'attribute') ORDER BY a.id`,
        )
        .all(),
    ).toEqual([
      { path: 'pkg/conf.py', kind: 'attribute', qualname: 'Conf.retries', owner: 'Conf', start_line: 2, end_line: 2 },
      { path: 'pkg/conf.py', kind: 'attribute', qualname: 'Conf.name', owner: 'Conf', start_line: 3, end_line: 3 },
      { path: 'pkg/text.py', kind: 'constant', qualname: 'SEP', owner: null, start_line: 4, end_line: 4 },
    ]);
    // Unit entries got their lines back too, and the lexical index finds the new entries.
    const slugify = upgraded.db.prepare("SELECT start_line, end_line FROM api_entries WHERE qualname = 'slugify'").get();
    expect(slugify).toEqual({ start_line: 7, end_line: 9 });
    expect(upgraded.db.prepare("SELECT count(*) AS n FROM fts_api WHERE fts_api MATCH 'retries'").get()).toEqual({ n: 1 });
    const again = await runIndex({ store: upgraded, root, encoder: enc, parseThreads: 1 });
    expect(again.parsedFiles).toBe(0);
    upgraded.close();
  });

  it('re-embeds everything when the encoder changes, and records which encoder made the vectors', async () => {
    const { root, store } = setup();
    const first = await runIndex({ store, root, encoder: fakeEncoder('fake@1') });
    const second = await runIndex({ store, root, encoder: fakeEncoder('fake@2') });
    expect(second.parsedFiles).toBe(0);
    expect(second.embeddedTexts).toBe(first.embeddedTexts);
    expect(store.stats(second.repoId).encoder?.key).toBe('fake@2');
    store.close();
  });

  it('indexes what parses in a file with a syntax error and records the error', async () => {
    const { root, store } = setup({
      'ok.py': 'def good(a):\n    return a\n\ndef broken(:\n    pass\n\ndef also_good(b):\n    return b\n',
    });
    const events: IndexEvent[] = [];
    const stats = await runIndex({ store, root, encoder: fakeEncoder() }, (e) => events.push(e));
    expect(stats.filesWithSyntaxErrors).toBe(1);
    expect(unitNames(store)).toEqual(expect.arrayContaining(['ok.py:good', 'ok.py:also_good']));
    const row = store.db.prepare('SELECT status, syntax_errors FROM files').get() as { status: string; syntax_errors: string };
    expect(row.status).toBe('partial');
    expect(JSON.parse(row.syntax_errors).length).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'warning' && e.path === 'ok.py' && /syntax error/.test(e.message))).toBe(true);
    store.close();
  });

  it('stops on cancel, keeps what was finished, and the next run completes the rest', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`m${i}.py`] = `def f${i}(x):\n    return x + ${i}\n`;
    const { root, store } = setup(files);
    const controller = new AbortController();
    let written = 0;
    const stats = await runIndex({
      store,
      root,
      encoder: fakeEncoder(),
      signal: controller.signal,
      parseThreads: 1,
      writeBatch: 1,
      onFileWritten: () => {
        if (++written === 5) controller.abort();
      },
    });
    expect(stats.status).toBe('cancelled');
    const kept = store.catalog(stats.repoId).size;
    expect(kept).toBeGreaterThanOrEqual(5);
    expect(kept).toBeLessThan(30);
    expect(store.lastRun(stats.repoId)?.status).toBe('cancelled');
    const resumed = await runIndex({ store, root, encoder: fakeEncoder(), parseThreads: 1 });
    expect(resumed.parsedFiles).toBe(30 - kept);
    expect(store.catalog(stats.repoId).size).toBe(30);
    store.close();
  });

  it('records a run as cancelled when the consumer stops iterating', async () => {
    const { root, store } = setup();
    for await (const e of indexRepository({ store, root, encoder: fakeEncoder() })) {
      if (e.type === 'phase' && e.phase === 'parse') break;
    }
    const repo = store.listRepositories()[0]!;
    expect(store.lastRun(repo.id)?.status).toBe('cancelled');
    store.close();
  });
});

describe('crash and resume', () => {
  it('a killed indexer leaves a consistent store and the next run finishes the job', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`mod${i}.py`] = `"""Module ${i}."""\n\ndef f${i}(x):\n    """Add ${i}."""\n    return x + ${i}\n`;
    const { root, dbDir, store } = setup(files);
    store.close();
    const dbPath = path.join(dbDir, 'w.db');
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'helpers', 'index-then-die.ts');
    // The child indexes with the real parse workers and kills itself (SIGKILL) after 12 files.
    const child = spawn(process.execPath, ['--import', 'tsx', script, root, dbPath, '12'], { stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect(signal, stderr).toBe('SIGKILL');

    // The dead run is not shown as running forever: `status` says interrupted.
    const out: string[] = [];
    expect(await main(['status', '--db', dbPath], { out: (l) => out.push(l), err: () => {} })).toBe(0);
    expect(out.join('\n')).toMatch(/last run: interrupted \(its process is gone; indexing again resumes it\)/);

    const after = Store.open(dbPath);
    expect(after.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const repo = after.listRepositories()[0]!;
    expect(after.lastRun(repo.id)?.status).toBe('interrupted');
    const catalogued = after.catalog(repo.id).size;
    expect(catalogued).toBeGreaterThanOrEqual(12);
    expect(catalogued).toBeLessThan(40);
    // Every catalogued file has its function: no half-written file.
    const orphans = after.db
      .prepare("SELECT count(*) AS n FROM files f WHERE NOT EXISTS (SELECT 1 FROM units u WHERE u.file_id = f.id AND u.kind = 'function')")
      .get() as { n: number };
    expect(orphans.n).toBe(0);
    const resumed = await runIndex({ store: after, root, encoder: fakeEncoder('fake@1') });
    expect(resumed.parsedFiles).toBe(40 - catalogued);
    expect(unitNames(after).length).toBe(40);
    expect(after.countPendingEmbeddings(repo.id, after.stats(repo.id).encoder!.id)).toBe(0);
    after.close();
  });
});

describe('hazards', () => {
  it('indexes a folder full of hazards without crashing or hanging, recording each skip', async () => {
    const { root, store } = setup({
      'good.py': 'def fine():\n    return 1\n',
      'blob.py': 'x = 1\n\0\0\0binary\n',
      'big.py': `# big\n${'x = 1\n'.repeat(300_000)}`,
      'app.min.js': 'var a=1;',
      'gen_pb2.py': 'X = 1\n',
      '.venv/pyvenv.cfg': 'home = /usr\n',
      '.venv/lib/mod.py': 'def hidden(): pass\n',
      'node_modules/x/index.js': 'module.exports = 1;\n',
    });
    fs.symlinkSync('/etc', path.join(root, 'outside'));
    fs.symlinkSync('.', path.join(root, 'loop'));
    fs.symlinkSync('missing.py', path.join(root, 'dangling.py'));
    let fifo = false;
    try {
      execFileSync('mkfifo', [path.join(root, 'pipe.py')]);
      fifo = true;
    } catch {
      console.warn('mkfifo unavailable: the FIFO case is not exercised here');
    }
    const stats = await runIndex({ store, root, encoder: fakeEncoder() });
    expect(stats.status).toBe('completed');
    expect(unitNames(store)).toEqual(['good.py:fine']);
    const reasons = Object.fromEntries(store.listSkips(stats.repoId).map((k) => [k.path, k.reason]));
    expect(reasons).toMatchObject({
      'blob.py': 'binary',
      'big.py': 'too_large',
      'app.min.js': 'minified',
      'gen_pb2.py': 'generated',
      '.venv': 'virtualenv',
      node_modules: 'dependencies',
      outside: 'symlink_outside',
      loop: 'symlink_loop',
      'dangling.py': 'symlink_dangling',
    });
    if (fifo) expect(reasons['pipe.py']).toBe('special_file');
    store.close();
  });
});

describe('bad roots', () => {
  it('refuses a missing folder and a file with clear errors', async () => {
    const { root, store } = setup({ 'a.py': 'x = 1\n' });
    await expect(runIndex({ store, root: path.join(root, 'nope'), encoder: fakeEncoder() })).rejects.toThrow(/does not exist/);
    await expect(runIndex({ store, root: path.join(root, 'a.py'), encoder: fakeEncoder() })).rejects.toThrow(/not a folder/);
    store.close();
  });
});
