import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cleanup: string[] = [];
afterEach(() => {
  for (const d of cleanup.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function workspace() {
  const dir = tmpDir('oc-cli-');
  cleanup.push(dir);
  return path.join(dir, 'w.db');
}

describe('opencoder index / status', () => {
  it('indexes a folder, prints a summary, and --json ends stdout with one document', async () => {
    const repo = makeRepo({ 'a.py': 'def add(a, b):\n    """Add."""\n    return a + b\n', 'b.py': 'x = 1\0\0\0' });
    cleanup.push(repo);
    const db = workspace();
    const text = await cli(['index', repo, '--db', db, '--quiet']);
    expect(text.code).toBe(0);
    const joined = text.out.join('\n');
    expect(joined).toMatch(/Files: 1 code files seen — 1 added/);
    expect(joined).toMatch(/Skipped: binary data \(1\)/);
    expect(joined).toMatch(/Units: .*function 1/);
    expect(joined).toMatch(/Encoder: /);

    const again = await cli(['index', repo, '--db', db, '--json', '--quiet']);
    expect(again.code).toBe(0);
    const doc = again.json();
    expect(doc.ok).toBe(true);
    expect(doc.run.parsedFiles).toBe(0);
    expect(doc.run.embeddedTexts).toBe(0);
    expect(doc.repository.units.function).toBe(1);
    expect(typeof doc.run.encoder.name).toBe('string');

    const status = await cli(['status', '--db', db, '--json']);
    expect(status.code).toBe(0);
    const s = status.json();
    expect(s.repositories).toHaveLength(1);
    expect(s.repositories[0].root).toBe(fs.realpathSync(repo));
    expect(s.repositories[0].lastRun.status).toBe('completed');
  });

  it('fails with exit 1 and a JSON error for a missing folder', async () => {
    const db = workspace();
    const r = await cli(['index', path.join(path.dirname(db), 'missing'), '--db', db, '--json']);
    expect(r.code).toBe(1);
    expect(r.json()).toMatchObject({ ok: false, command: 'index', error: { kind: 'RepositoryRootError' } });
    expect(r.err.join('\n')).toMatch(/does not exist/);
  });

  it('reports a damaged database with exit 1 and leaves it in place', async () => {
    const db = workspace();
    fs.writeFileSync(db, 'not a database at all'.repeat(300));
    const r = await cli(['status', '--db', db, '--json']);
    expect(r.code).toBe(1);
    expect(r.json().error.kind).toBe('StoreCorruptError');
    expect(fs.readFileSync(db, 'utf8')).toMatch(/^not a database/);
  });

  it('rejects unknown commands and options with exit 2', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    const bad = await cli(['status', '--nope']);
    expect(bad.code).toBe(2);
    expect(bad.err.join('\n')).toMatch(/usage: opencoder status/);
  });
});

describe('the installed bin', () => {
  it('runs as npx opencoder from the checkout', () => {
    const db = workspace();
    const r = spawnSync('npx', ['--no-install', 'opencoder', 'status', '--db', db, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.status, r.stderr).toBe(0);
    const last = r.stdout.trim().split('\n').at(-1)!;
    expect(JSON.parse(last)).toMatchObject({ ok: true, command: 'status', repositories: [] });
  });

  it('prints help listing the commands', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'bin', 'opencoder.js'), 'help'], { encoding: 'utf8' });
    expect(out).toMatch(/index\s+index \(or incrementally refresh\)/);
    expect(out).toMatch(/--db FILE/);
  });
});
