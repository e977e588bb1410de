// Where `opencoder import` writes (issue 17, item 7b): without --out, into the user data folder
// (OPENCODER_HOME here), never the folder it is run from, so an import from a checkout leaves no
// untracked data/ behind; with --out, exactly there.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { NO_BENCH } from '../helpers/system.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'opencoder.js');
const BENCH = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(ROOT, '..', 'shared', 'bench');
const REPOEXEC = path.join(BENCH, 'repoexec');
const present = fs.existsSync(path.join(REPOEXEC, 'repoexec_inline_subsets.json'));
const SUBSET = 'python_string_utils_inline';

const dir = tmpDir('oc-import-out-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `node bin/opencoder.js import …` run from `cwd` with its own user data folder. */
function importFrom(cwd: string, home: string, extra: string[]) {
  fs.mkdirSync(cwd, { recursive: true });
  const r = spawnSync(process.execPath, [BIN, 'import', 'repoexec', REPOEXEC, '--subset', SUBSET, '--quiet', '--json', ...extra], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, HOME: home, OPENCODER_HOME: home },
  });
  return { code: r.status, err: r.stderr, doc: r.status === 0 ? (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { out: string; manifest: string }) : null };
}

describe.skipIf(!present)(`import output folder${!present ? NO_BENCH : ''}`, () => {
  it('without --out writes under the user data folder and nothing into the folder it runs from', () => {
    const cwd = path.join(dir, 'checkout');
    const home = path.join(dir, 'home');
    const r = importFrom(cwd, home, []);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const want = path.join(home, 'benchmarks', `repoexec-${SUBSET}`);
    expect(r.doc).toMatchObject({ out: want, manifest: path.join(want, 'tasks.jsonl') });
    expect(fs.existsSync(path.join(want, 'tasks.jsonl'))).toBe(true);
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it('with --out writes exactly there (relative to the folder it runs from)', () => {
    const cwd = path.join(dir, 'work');
    const home = path.join(dir, 'home2');
    const r = importFrom(cwd, home, ['--out', 'mine']);
    expect(r.code).toBe(0);
    expect(r.doc?.out).toBe(path.join(cwd, 'mine'));
    expect(fs.existsSync(path.join(cwd, 'mine', 'tasks.jsonl'))).toBe(true);
    expect(fs.existsSync(path.join(home, 'benchmarks'))).toBe(false);
  });

  it('an empty --out is a usage error naming the default', () => {
    const r = importFrom(path.join(dir, 'w3'), path.join(dir, 'home3'), ['--out', ' ']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--out needs a folder');
    expect(r.err).toContain(path.join(dir, 'home3', 'benchmarks'));
  });
});
