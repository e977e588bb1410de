// Store faults through the CLI (issue 15): a damaged database over 64 MiB (where the full check on open does not run)
// gets the guided message from open and from a later query, --rebuild-db moves it aside and starts anew, and read-only
// files and folders get "cannot write FILE: …" from commands that write while the commands that only read still work.
// The tests run as root, which ignores permission bits: the read-only cases run the CLI as an unprivileged user.

import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../main/host/cli/main.ts';
import type { ParseResult } from '../../main/model/code.ts';
import { openDatabase } from '../../main/store/db.ts';
import { SCHEMA_VERSION } from '../../main/store/migrations.ts';
import { Store } from '../../main/store/store.ts';
import { insertTrace } from '../../main/store/traces.ts';
import { copyIndexedSample } from '../helpers/indexed-sample.ts';
import { scribble } from '../helpers/damage.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'opencoder.js');
const SAMPLE = path.join(ROOT, 'resources', 'sample-repo', 'tasks.jsonl');
const MiB = 1024 * 1024;
const NOBODY = 65534;

const cleanup: string[] = [];
afterEach(() => {
  for (const d of cleanup.splice(0)) removeTree(d);
});

/** Removes a test folder, first making its folders writable again (a non-root user needs that). */
function removeTree(dir: string): void {
  const open = (d: string) => {
    if (!fs.existsSync(d) || !fs.lstatSync(d).isDirectory()) return;
    fs.chmodSync(d, 0o755);
    for (const e of fs.readdirSync(d)) open(path.join(d, e));
  };
  open(dir);
  fs.rmSync(dir, { recursive: true, force: true });
}

function folder(prefix: string): string {
  const dir = tmpDir(prefix);
  cleanup.push(dir);
  return dir;
}

interface Ran {
  code: number | null;
  out: string;
  err: string;
  json: () => Record<string, unknown>;
}

/** `node bin/opencoder.js …` in a child process, as this user or (`prefix`) through setpriv as another. */
function opencoder(args: string[], opts: { prefix?: string[]; home?: string } = {}): Ran {
  const [cmd, ...rest] = [...(opts.prefix ?? []), process.execPath, BIN, ...args];
  const r = spawnSync(cmd!, rest, {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...(opts.home ? { HOME: opts.home, OPENCODER_HOME: opts.home } : {}) },
  });
  return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout.trim().split('\n').at(-1) ?? 'null') };
}

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

// ── a damaged database over 64 MiB ─────────────────────────────────────────────────────────────────────────

function units(file: number): ParseResult {
  return {
    language: 'python',
    module: `pkg.m${file}`,
    errors: [],
    values: [],
    chunks: [],
    units: [0, 1, 2, 3, 4].map((i) => ({
      kind: 'function' as const,
      name: `f${file}_${i}`,
      qualname: `f${file}_${i}`,
      parentQualname: null,
      signature: `def f${file}_${i}(x)`,
      params: [],
      returns: null,
      decorators: [],
      isAsync: false,
      docstring: null,
      body: `def f${file}_${i}(x):\n    return x + ${i}\n`.repeat(3),
      startLine: 1 + i * 3,
      endLine: 3 + i * 3,
      calls: [],
      imports: [],
      contentHash: `h${file}_${i}`,
    })),
  };
}

interface BigDb {
  file: string;
  /** Root pages of the repositories, files and units tables. */
  roots: number[];
  /** A leaf of the units table in the middle of its b-tree (status reads it; the probe on open does not). */
  middleUnitsLeaf: number;
  /** The overflow pages of 70 one-MiB retrieval traces (only a full check reads them). */
  tracePages: { lo: number; hi: number };
}

/** A real workspace (300 files of units) made large by 70 stored one-MiB retrieval traces: about 70 MiB. */
function bigDatabase(dir: string): BigDb {
  const file = path.join(dir, 'big.db');
  const store = Store.open(file);
  let big: BigDb;
  try {
    const repo = store.upsertRepository(path.join(dir, 'repo'));
    const enc = store.registerEncoder({ id: 'test-encoder@1', name: 'test encoder', dim: 4, description: 'fixed vectors for tests' });
    for (let f = 0; f < 300; f++) store.replaceFile(repo.id, { relPath: `m${f}.py`, size: 1, mtimeMs: 1, sha256: `s${f}` }, units(f), []);
    store.write('traces', () => {
      for (let i = 0; i < 70; i++)
        insertTrace(store, { repoId: repo.id, taskId: `t${i}`, configHash: 'c', encoderId: enc.id, trace: { pad: 'x'.repeat(MiB) } });
    });
    const pages = (sql: string) => (store.db.prepare(sql).all() as { pageno: number }[]).map((r) => r.pageno);
    const leaves = pages("SELECT pageno FROM dbstat WHERE name = 'units' AND pagetype = 'leaf' ORDER BY path");
    const overflow = pages("SELECT pageno FROM dbstat WHERE name = 'retrieval_traces' AND pagetype = 'overflow' ORDER BY pageno");
    expect(leaves.length).toBeGreaterThan(10);
    big = {
      file,
      roots: pages("SELECT rootpage AS pageno FROM sqlite_schema WHERE name IN ('repositories', 'files', 'units')"),
      middleUnitsLeaf: leaves[leaves.length >> 1]!,
      tracePages: { lo: overflow[0]!, hi: overflow.at(-1)! },
    };
  } finally {
    store.close();
  }
  expect(fs.statSync(file).size).toBeGreaterThan(64 * MiB);
  return big;
}

function expectGuidedCorruption(r: Ran, db: string): void {
  expect(r.code, r.err).toBe(1);
  expect(r.err).toContain(`The database ${db} is damaged`);
  expect(r.err).toContain('--rebuild-db');
  expect(r.err).toContain(`${db}.corrupt-<time>`);
}

describe('a damaged database over 64 MiB', () => {
  it("damage to the tables' root pages is found on open: status and index say what to do, and index writes nothing", () => {
    const dir = folder('oc-faults-big-');
    const big = bigDatabase(dir);
    scribble(big.file, big.roots);
    const before = sha(big.file);
    expectGuidedCorruption(opencoder(['status', '--db', big.file]), big.file);
    const repo = makeRepo({ 'a.py': 'def add(a, b):\n    return a + b\n' });
    cleanup.push(repo);
    expectGuidedCorruption(opencoder(['index', repo, '--db', big.file, '--quiet']), big.file);
    expect(sha(big.file)).toBe(before);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('big.db'))).toEqual(['big.db']);
  }, 120_000);

  it('damage deep inside, met by a later query, gets the same guided message', () => {
    const dir = folder('oc-faults-big-');
    const big = bigDatabase(dir);
    scribble(big.file, [big.middleUnitsLeaf]);
    const r = opencoder(['status', '--db', big.file, '--json']);
    expectGuidedCorruption(r, big.file);
    expect(r.json()).toMatchObject({ ok: false, command: 'status', error: { kind: 'StoreCorruptError', code: 'engine' } });
  }, 120_000);

  it('--rebuild-db runs the full check, moves a file whose damage only that finds aside (never deleted) and starts anew', () => {
    const dir = folder('oc-faults-big-');
    const big = bigDatabase(dir);
    const mid = (big.tracePages.lo + big.tracePages.hi) >> 1;
    scribble(big.file, [mid, mid + 1, mid + 2]);
    const damaged = sha(big.file);
    const repo = makeRepo({ 'a.py': 'def add(a, b):\n    return a + b\n' });
    cleanup.push(repo);

    const r = opencoder(['index', repo, '--db', big.file, '--quiet', '--rebuild-db']);
    expect(r.code, r.err).toBe(0);
    const aside = fs.readdirSync(dir).filter((n) => n.startsWith('big.db.corrupt-'));
    expect(aside).toHaveLength(1);
    const moved = path.join(dir, aside[0]!);
    expect(r.err).toContain(`The database ${big.file} was damaged`);
    expect(r.err).toContain(`it was moved to ${moved}`);
    expect(sha(moved)).toBe(damaged);

    const status = opencoder(['status', '--db', big.file, '--json']);
    expect(status.code, status.err).toBe(0);
    const repos = status.json().repositories as { root: string }[];
    expect(repos.map((x) => x.root)).toEqual([fs.realpathSync(repo)]);
  }, 120_000);
});

// ── read-only files and folders ────────────────────────────────────────────────────────────────────────────

/**
 * How to run the CLI as a user the permission bits bind: this user unless it is root; as root, nobody (65534) through
 * setpriv, where that user can run node on this checkout. The reason when neither works.
 */
function unprivileged(): { prefix: string[]; uid: number | null } | { skip: string } {
  if (process.platform === 'win32') return { skip: 'POSIX permission bits only' };
  if (process.getuid?.() !== 0) return { prefix: [], uid: null };
  const prefix = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
  const probe = spawnSync(prefix[0]!, [...prefix.slice(1), process.execPath, BIN, 'help'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, HOME: os.tmpdir() },
  });
  if (probe.error) return { skip: `running as root and setpriv is not available (${probe.error.message})` };
  if (probe.status !== 0) return { skip: `running as root and user ${NOBODY} cannot run node bin/opencoder.js here: ${probe.stderr.trim().split('\n')[0]}` };
  return { prefix, uid: NOBODY };
}

const runner = unprivileged();
const asUser = 'skip' in runner ? null : runner;

describe.skipIf(!asUser)(`read-only files and folders${asUser ? '' : ` (skipped: ${(runner as { skip: string }).skip})`}`, () => {
  const user = asUser!;
  let base: string;
  let source: string;
  let runId: string;
  let home: string;

  /** Gives `p` to the user the CLI runs as, with these permission bits. */
  const give = (p: string, mode: number) => {
    if (user.uid !== null) fs.chownSync(p, user.uid, user.uid);
    fs.chmodSync(p, mode);
  };
  const cli = (args: string[]) => opencoder(args, { prefix: user.prefix, home });

  beforeAll(async () => {
    base = tmpDir('oc-faults-ro-');
    give(base, 0o755);
    home = path.join(base, 'home');
    fs.mkdirSync(home);
    give(home, 0o755);
    // The sample repository indexed, and one stored run for report and runs.
    source = path.join(base, 'source.db');
    await copyIndexedSample(source);
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['run', '--manifest', SAMPLE, '--ids', 'inventory/add_tax', '--method', 'baseline-rag', '--db', source, '--json'], {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
    });
    expect(code, err.join('\n')).toBe(0);
    runId = JSON.parse(out.at(-1)!).runId;
  }, 240_000);
  afterAll(() => removeTree(base));

  /** A copy of the source database as `name` in a new folder, both given to the user with these modes (set folder last). */
  function placed(name: string, fileMode: number, dirMode: number, db = source): { dir: string; file: string } {
    const dir = fs.mkdtempSync(path.join(base, 'case-'));
    const file = path.join(dir, name);
    fs.copyFileSync(db, file);
    give(file, fileMode);
    give(dir, dirMode);
    return { dir, file };
  }

  it('a read-only file: status and runs work; index says the file is read-only and changes nothing', () => {
    const { dir, file } = placed('w.db', 0o444, 0o755);
    const before = sha(file);
    const status = cli(['status', '--db', file, '--json']);
    expect(status.code, status.err).toBe(0);
    expect((status.json().repositories as unknown[]).length).toBe(1);
    const runs = cli(['runs', '--db', file, '--json']);
    expect(runs.code, runs.err).toBe(0);
    expect((runs.json().runs as { id: string }[]).map((r) => r.id)).toEqual([runId]);

    const index = cli(['index', path.join(ROOT, 'resources', 'sample-repo'), '--db', file, '--quiet']);
    expect(index.code).toBe(1);
    expect(index.err).toContain(`cannot write ${file}: the file is read-only.`);
    expect(index.err).toContain('status, runs, report, compare');
    expect(sha(file)).toBe(before);
    expect(fs.readdirSync(dir)).toEqual(['w.db']);
  }, 120_000);

  it('a read-only folder: status, runs, report and compare work; index (existing or new file) says the folder is read-only', () => {
    const { dir, file } = placed('w.db', 0o644, 0o555);
    const before = sha(file);
    const status = cli(['status', '--db', file]);
    expect(status.code, status.err).toBe(0);
    expect(status.out).toMatch(/sample-repo/);
    expect(cli(['runs', '--db', file]).out).toContain(runId);
    const report = path.join(home, 'report.json');
    const r = cli(['report', runId, '--format', 'json', '--out', report, '--db', file]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(fs.readFileSync(report, 'utf8'))).toMatchObject({ runs: [expect.objectContaining({ id: runId })] });
    const compare = cli(['compare', runId, runId, '--db', file, '--json']);
    expect(compare.code, compare.err).toBe(0);

    const index = cli(['index', path.join(ROOT, 'resources', 'sample-repo'), '--db', file, '--quiet']);
    expect(index.code).toBe(1);
    expect(index.err).toContain(`cannot write ${file}: the folder ${dir} is read-only`);
    const fresh = path.join(dir, 'new.db');
    const create = cli(['index', path.join(ROOT, 'resources', 'sample-repo'), '--db', fresh, '--quiet']);
    expect(create.code).toBe(1);
    expect(create.err).toContain(`cannot write ${fresh}: the folder ${dir} is read-only`);
    expect(sha(file)).toBe(before);
    expect(fs.readdirSync(dir)).toEqual(['w.db']);
  }, 120_000);

  it('an older schema: a read-only command never migrates it ("needs a writable database to upgrade it"), index cannot; the file unchanged', () => {
    const old = path.join(base, 'old.db');
    openDatabase(old, { targetVersion: SCHEMA_VERSION - 1 }).close();
    const { file } = placed('old.db', 0o644, 0o555, old);
    const before = sha(file);
    const r = cli(['status', '--db', file, '--json']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`The database ${file} has schema version ${SCHEMA_VERSION - 1}; this release uses version ${SCHEMA_VERSION}`);
    expect(r.err).toContain('needs a writable database to upgrade it');
    expect(r.json()).toMatchObject({ ok: false, error: { kind: 'SchemaNeedsUpgradeError', code: 'invalid-input' } });
    // A command that writes would migrate it, and says why it cannot.
    const index = cli(['index', path.join(ROOT, 'resources', 'sample-repo'), '--db', file, '--quiet']);
    expect(index.code).toBe(1);
    expect(index.err).toContain(`cannot write ${file}: the folder ${path.dirname(file)} is read-only`);
    expect(sha(file)).toBe(before);
  }, 120_000);

  it('a database left in WAL mode in a read-only folder: status says why it cannot read it and what to do', () => {
    const dir = fs.mkdtempSync(path.join(base, 'case-'));
    const file = path.join(dir, 'w.db');
    fs.copyFileSync(source, file);
    // A writer that never closed (killed): the file stays in WAL mode.
    const raw = new BetterSqlite3(file);
    raw.pragma('journal_mode = WAL');
    raw.close();
    give(file, 0o644);
    give(dir, 0o555);
    const r = cli(['status', '--db', file]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`cannot read ${file}: it was left in write-ahead-log mode`);
    expect(r.err).toContain(`the folder ${dir} is read-only`);
  }, 120_000);
});

describe('commands that only read', () => {
  it('status on a database that does not exist yet creates nothing', async () => {
    const dir = folder('oc-faults-missing-');
    const db = path.join(dir, 'none.db');
    const out: string[] = [];
    expect(await main(['status', '--db', db], { out: (l) => out.push(l), err: () => {} })).toBe(0);
    expect(out.join('\n')).toContain(`Database: ${db} (not created yet)`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
