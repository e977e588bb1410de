// What a candidate's workspace holds of the repository: credentials and keys are withheld, and the copy the
// sandbox user reads keeps every file's permission bits (a private file stays private to its owner).

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { isWithheld, listRepository, snapshotRepository } from '../../main/validate/task-plan.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

const TESTS = `import os
import unittest
from calc import add

class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_no_credentials(self):
        for name in ('.netrc', '.env', 'deploy/id_rsa', 'deploy/server.pem'):
            self.assertFalse(os.path.exists(name), name + ' reached the workspace')
        self.assertTrue(os.path.exists('deploy/notes.txt'))

    def test_private_stays_private(self):
        mode = os.stat('private.txt').st_mode & 0o777
        self.assertEqual(mode & 0o077, 0, oct(mode))
`;

function repoWithSecrets(): string {
  const repo = makeRepo({
    'calc.py': 'def add(a, b):\n    raise NotImplementedError\n',
    'test_calc.py': TESTS,
    '.netrc': 'machine example.org login me password hunter2\n',
    '.env': 'API_KEY=sk-secret\n',
    'deploy/id_rsa': '-----BEGIN OPENSSH PRIVATE KEY-----\n',
    'deploy/server.pem': '-----BEGIN PRIVATE KEY-----\n',
    'deploy/notes.txt': 'ordinary data the tests may read\n',
    'private.txt': 'only for its owner\n',
  });
  made.push(repo);
  fs.chmodSync(path.join(repo, 'private.txt'), 0o600);
  // The sandbox user must reach the repository itself (a temp folder is private to root by default).
  fs.chmodSync(repo, 0o755);
  return repo;
}

describe('workspace copies', () => {
  it('names credentials and keys by file name only', () => {
    for (const f of ['.env', '.env.local', 'a/.netrc', 'id_rsa', 'keys/id_ed25519.pub', 'tls/server.pem', 'x.key', '.pypirc', '.git-credentials'])
      expect(isWithheld(f), f).toBe(true);
    for (const f of ['env.py', 'keys.py', 'src/keyboard.py', 'README.md', 'pem.txt', 'environment.yml']) expect(isWithheld(f), f).toBe(false);
  });

  it('through the CLI: the reference passes only when credentials stay out and a private file stays private', async () => {
    const repo = repoWithSecrets();
    const manifest = path.join(repo, 'tasks.jsonl');
    fs.writeFileSync(
      manifest,
      JSON.stringify({
        id: 'calc/add',
        repo: '.',
        file: 'calc.py',
        qualname: 'add',
        requirement: 'Add two numbers.',
        signature: 'def add(a, b):',
        reference: 'def add(a, b):\n    return a + b\n',
        test_command: 'python3 -m unittest test_calc',
      }) + '\n',
    );
    const r = await cli(['validate', '--manifest', manifest, '--id', 'calc/add', '--reference']);
    const text = r.out.join('\n');
    expect(text, r.err.join('\n')).toMatch(/Verdict: PASSED/);
    expect(r.code).toBe(0);
    // The manifest lies in the repository: it holds the reference, so no workspace gets it either.
    expect(text).toMatch(
      /Withheld from the workspace \(credentials, keys and task manifests\): \.env, \.netrc, tasks\.jsonl, deploy\/id_rsa, deploy\/server\.pem/,
    );
  });

  it('the snapshot is readable through the sandbox group, writable by no sandbox user, closed to others', () => {
    const repo = repoWithSecrets();
    fs.chmodSync(path.join(repo, 'deploy/notes.txt'), 0o640);
    fs.writeFileSync(path.join(repo, 'run.sh'), '#!/bin/sh\n', { mode: 0o4755 });
    fs.chmodSync(path.join(repo, 'run.sh'), 0o4755);
    const listing = listRepository(repo, 't');
    expect(listing.withheld.sort()).toEqual(['.env', '.netrc', 'deploy/id_rsa', 'deploy/server.pem']);
    const dest = path.join(tmpDir('oc-snap-test-'), 'snap');
    made.push(path.dirname(dest));
    // Root hands the copy to itself with the sandbox's group; anyone else keeps it with their own group.
    const root = process.getuid?.() === 0;
    const owner = { uid: process.getuid!(), gid: root ? 65534 : process.getgid!() };
    const snap = snapshotRepository(listing, dest, owner);
    expect(snap.files).not.toContain('.netrc');
    const mode = (rel: string) => fs.statSync(path.join(dest, rel)).mode & 0o7777;
    expect(mode('.')).toBe(0o750);
    // The owner's read (and execute) bits become the group's; write never; others nothing; set-id bits dropped.
    expect(mode('private.txt')).toBe(0o640);
    expect(mode('deploy/notes.txt')).toBe(0o640);
    expect(mode('run.sh')).toBe(0o750);
    for (const rel of ['.', 'private.txt', 'deploy', 'deploy/notes.txt', 'run.sh']) {
      const st = fs.statSync(path.join(dest, rel));
      expect([rel, st.uid, st.gid]).toEqual([rel, owner.uid, owner.gid]);
      expect(st.mode & 0o022, rel).toBe(0);
    }
  });
});
