import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { constants as fsConstants, open as fsOpen, type Dirent } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkRepositoryRoot,
  classifyContent,
  rebaseIgnorePattern,
  RepositoryRootError,
  walkRepository,
  type SkippedPath,
  type WalkResult,
} from '../../main/index/walk.ts';

const isRoot = process.getuid?.() === 0;
const created: string[] = [];

afterAll(async () => {
  for (const dir of created) {
    await fs.chmod(dir, 0o755).catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  }
});

async function tmp(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'oc-walk-'));
  created.push(dir);
  return dir;
}

/** Writes `files` (relative path → content) under `root`; content null makes an empty folder. */
async function write(root: string, files: Record<string, string | Buffer | null>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    if (content === null) {
      await fs.mkdir(abs, { recursive: true });
      continue;
    }
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
  }
}

async function repo(files: Record<string, string | Buffer | null>): Promise<string> {
  const root = await tmp();
  await write(root, files);
  return root;
}

const paths = (r: WalkResult): string[] => r.files.map((f) => f.relPath);
const skips = (r: WalkResult): [string, string][] => r.skipped.map((s) => [s.relPath, s.reason]);
const skipOf = (r: WalkResult, rel: string): SkippedPath | undefined => r.skipped.find((s) => s.relPath === rel);

const PY = 'def f():\n    return 1\n';
const TS = 'export const x: number = 1;\n';

function hasCommand(cmd: string, args: string[] = ['--version']): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// ───────────────────────────────────────────────────────────── basics

describe('walkRepository: basics', () => {
  it('returns source files by language, sorted, with size/mtime, and counts other files', async () => {
    const root = await repo({
      'b.py': PY,
      'a.pyi': 'def f() -> int: ...\n',
      'src/z.ts': TS,
      'src/m.mts': TS,
      'src/c.cts': TS,
      'src/v.tsx': 'export const V = () => <div/>;\n',
      'src/j.js': 'module.exports = 1;\n',
      'src/j.mjs': 'export default 1;\n',
      'src/j.cjs': 'module.exports = 2;\n',
      'src/j.jsx': 'export const J = () => <p/>;\n',
      'src/empty/__init__.py': '',
      'README.md': '# hi\n',
      'data.json': '{}',
      Makefile: 'all:\n',
      emptydir: null,
    });
    const r = await walkRepository(root);
    expect(paths(r)).toEqual([
      'a.pyi',
      'b.py',
      'src/c.cts',
      'src/empty/__init__.py',
      'src/j.cjs',
      'src/j.js',
      'src/j.jsx',
      'src/j.mjs',
      'src/m.mts',
      'src/v.tsx',
      'src/z.ts',
    ]);
    const byPath = new Map(r.files.map((f) => [f.relPath, f]));
    expect(byPath.get('b.py')!.language).toBe('python');
    expect(byPath.get('a.pyi')!.language).toBe('python');
    expect(byPath.get('src/c.cts')!.language).toBe('typescript');
    expect(byPath.get('src/v.tsx')!.language).toBe('tsx');
    expect(byPath.get('src/j.jsx')!.language).toBe('javascript');
    const real = await fs.realpath(root);
    const b = byPath.get('b.py')!;
    const st = await fs.stat(path.join(root, 'b.py'));
    expect(b.absPath).toBe(path.join(real, 'b.py'));
    expect(b.size).toBe(PY.length);
    expect(b.mtimeMs).toBe(st.mtimeMs);
    expect(b.realRelPath).toBeUndefined();
    expect(byPath.get('src/empty/__init__.py')!.size).toBe(0);
    expect(r.otherFiles).toBe(3); // README.md, data.json, Makefile
    expect(r.skipped).toEqual([]);
  });

  it('gives the same result twice (deterministic order)', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`d${i % 7}/sub${i % 3}/f${i}.py`] = PY;
    const root = await repo(files);
    const a = await walkRepository(root);
    const b = await walkRepository(root);
    expect(a).toEqual(b);
    const sorted = [...paths(a)].sort();
    expect(paths(a)).toEqual(sorted);
    expect(a.files).toHaveLength(60);
  });
});

// ───────────────────────────────────────────────────────────── gitignore

describe('walkRepository: .gitignore', () => {
  it('applies nested .gitignore files with negation, directory patterns, anchors and **', async () => {
    const root = await repo({
      '.gitignore': [
        '# comment',
        '*.log.py',
        'gen/',
        '/top_only.py',
        'docs/**/draft_*.py',
        'secret*.py',
        '!secret_ok.py',
        'vendor/',
        '!vendor/keep.py',
        '*.gen.py',
        'cachedir/',
        '',
      ].join('\n'),
      'app.py': PY,
      'x.log.py': PY,
      'top_only.py': PY,
      'pkg/top_only.py': PY,
      'gen/a.py': PY,
      'pkg/gen/b.py': PY,
      'pkg/gen.py': PY, // `gen/` matches folders only
      'docs/a/b/draft_1.py': PY,
      'docs/draft_2.py': PY,
      'docs/final.py': PY,
      'secret_key.py': PY,
      'secret_ok.py': PY,
      'vendor/keep.py': PY,
      'vendor/lib.py': PY,
      'a.gen.py': PY,
      'cachedir/c.py': PY,
      'pkg/.gitignore': 'local.py\n/only_here.py\n!special.gen.py\n!cachedir/\n',
      'pkg/local.py': PY,
      'pkg/deep/local.py': PY,
      'pkg/only_here.py': PY,
      'pkg/deep/only_here.py': PY,
      'pkg/special.gen.py': PY,
      'pkg/other.gen.py': PY,
      'pkg/cachedir/c.py': PY,
      'pkg/deep/.gitignore': '!local.py\n',
      'pkg/deep/x.py': PY,
    });
    const r = await walkRepository(root);
    expect(paths(r)).toEqual([
      'app.py',
      'docs/final.py',
      'pkg/cachedir/c.py', // re-included by the deeper pkg/.gitignore
      'pkg/deep/local.py', // re-included by pkg/deep/.gitignore
      'pkg/deep/only_here.py', // `/only_here.py` is anchored to pkg/
      'pkg/deep/x.py',
      'pkg/gen.py',
      'pkg/special.gen.py',
      'pkg/top_only.py',
      'secret_ok.py',
    ]);
    expect(skips(r)).toEqual([
      ['a.gen.py', 'ignored'],
      ['cachedir', 'ignored'],
      ['docs/a/b/draft_1.py', 'ignored'],
      ['docs/draft_2.py', 'ignored'],
      ['gen', 'ignored'],
      ['pkg/gen', 'ignored'],
      ['pkg/local.py', 'ignored'],
      ['pkg/only_here.py', 'ignored'],
      ['pkg/other.gen.py', 'ignored'],
      ['secret_key.py', 'ignored'],
      ['top_only.py', 'ignored'],
      // `!vendor/keep.py` cannot re-include a file whose folder is excluded: the folder is reported once.
      ['vendor', 'ignored'],
      ['x.log.py', 'ignored'],
    ]);
    expect(skipOf(r, 'vendor')!.isDir).toBe(true);
    expect(skipOf(r, 'secret_key.py')!.isDir).toBe(false);
  });

  it('honours .git/info/exclude at the root, and extraIgnore', async () => {
    const root = await repo({
      '.git/info/exclude': 'scratch/\n*.tmp.py\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
      'scratch/s.py': PY,
      'a.tmp.py': PY,
      'a.py': PY,
      'tools/t.py': PY,
    });
    const r = await walkRepository(root, { extraIgnore: ['tools/'] });
    expect(paths(r)).toEqual(['a.py']);
    expect(skips(r)).toEqual([
      ['.git', 'vcs'],
      ['a.tmp.py', 'ignored'],
      ['scratch', 'ignored'],
      ['tools', 'ignored'],
    ]);
  });

  it('finds info/exclude through a `.git` file (worktree: gitdir + commondir)', async () => {
    const main = await repo({ '.git/info/exclude': 'local_only.py\n', '.git/worktrees/wt/commondir': '../..\n' });
    const root = await repo({ 'local_only.py': PY, 'a.py': PY });
    await fs.writeFile(path.join(root, '.git'), `gitdir: ${path.join(main, '.git/worktrees/wt')}\n`);
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['a.py']);
    expect(skips(r)).toEqual([
      ['.git', 'vcs'],
      ['local_only.py', 'ignored'],
    ]);
  });

  it('a .gitignore negation overrides .git/info/exclude (lower precedence)', async () => {
    const root = await repo({
      '.git/info/exclude': '*.py\n',
      '.gitignore': '!wanted.py\n',
      'wanted.py': PY,
      'unwanted.py': PY,
    });
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['wanted.py']);
    expect(skips(r)).toEqual([
      ['.git', 'vcs'],
      ['unwanted.py', 'ignored'],
    ]);
  });

  it('does not report ignored files that are not source files, nor count them', async () => {
    const root = await repo({ '.gitignore': '*.txt\n', 'a.txt': 'x', 'b.md': 'y', 'c.py': PY });
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['c.py']);
    expect(r.skipped).toEqual([]);
    expect(r.otherFiles).toBe(2); // .gitignore and b.md
  });

  it.skipIf(!hasCommand('git'))('agrees with `git ls-files --others --exclude-standard`', async () => {
    const files: Record<string, string> = {
      '.gitignore': '*.skip.py\nout_*/\n/root_only.ts\n**/tmp/**\n!keep.skip.py\nlib/*\n!lib/public/\n',
      'root_only.ts': TS,
      'a/root_only.ts': TS,
      'a/b.skip.py': PY,
      'a/keep.skip.py': PY,
      'a/out_x/y.py': PY,
      'a/tmp/z.py': PY,
      'a/tmp.py': PY,
      'lib/private/p.py': PY,
      'lib/public/q.py': PY,
      'lib/top.py': PY,
      'n/.gitignore': '*.js\n!/ok.js\nsub/\n',
      'n/ok.js': 'x=1\n',
      'n/no.js': 'x=1\n',
      'n/deep/ok.js': 'x=1\n',
      'n/sub/s.py': PY,
      'n/deep/sub/s.py': PY,
      'n/deep/.gitignore': '!*.js\n',
      'n/deep/again.js': 'x=1\n',
      'weird [x]/f.py': PY,
      'weird [x]/.gitignore': 'g*.py\n',
      'weird [x]/gone.py': PY,
      '#hash/.gitignore': '!x.py\n*.py\n',
      '#hash/x.py': PY,
      'plain.py': PY,
    };
    const root = await repo(files);
    const env = {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      XDG_CONFIG_HOME: root,
      HOME: root,
    };
    execFileSync('git', ['init', '-q'], { cwd: root, env });
    await fs.writeFile(path.join(root, '.git/info/exclude'), 'a/tmp.py\n');
    const out = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '-z'], { cwd: root, env }).toString();
    const fromGit = out
      .split('\0')
      .filter((p) => /\.(py|ts|js)$/.test(p))
      .sort();
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(fromGit);
    expect(fromGit.length).toBeGreaterThan(4);
  });
});

describe('rebaseIgnorePattern', () => {
  it('rewrites a nested rule relative to the root', () => {
    expect(rebaseIgnorePattern('*.py', '')).toBe('*.py');
    expect(rebaseIgnorePattern('*.py', 'a/b')).toBe('a/b/**/*.py');
    expect(rebaseIgnorePattern('/x.py', 'a')).toBe('a/x.py');
    expect(rebaseIgnorePattern('x/y.py', 'a')).toBe('a/x/y.py');
    expect(rebaseIgnorePattern('build/', 'a')).toBe('a/**/build/');
    expect(rebaseIgnorePattern('!keep.py', 'a')).toBe('!a/**/keep.py');
    expect(rebaseIgnorePattern('**/t/', 'a')).toBe('a/**/t/');
    expect(rebaseIgnorePattern('# c', 'a')).toBeNull();
    expect(rebaseIgnorePattern('   ', 'a')).toBeNull();
    expect(rebaseIgnorePattern('x.py  ', 'a')).toBe('a/**/x.py');
    expect(rebaseIgnorePattern('x.py\r', 'a')).toBe('a/**/x.py');
    expect(rebaseIgnorePattern('f.py', 'w [1]/*')).toBe('w \\[1\\]/\\*/**/f.py');
    expect(rebaseIgnorePattern('f.py', '#d')).toBe('\\#d/**/f.py');
  });
});

// ───────────────────────────────────────────────────────────── always-skipped folders

describe('walkRepository: always-skipped folders', () => {
  it('skips VCS, dependency, cache and build folders once each, even when nested', async () => {
    const root = await repo({
      '.git/config': '[core]\n',
      '.hg/store/x.py': PY,
      'node_modules/lib/index.js': 'x',
      'web/node_modules/lib/index.js': 'x',
      '__pycache__/a.cpython-311.pyc': Buffer.from([0, 1, 2]),
      'pkg/__pycache__/b.py': PY,
      '.mypy_cache/x.py': PY,
      '.pytest_cache/x.py': PY,
      '.tox/py311/x.py': PY,
      '.nox/s/x.py': PY,
      'lib/python3.11/site-packages/req/x.py': PY,
      'dist/bundle.js': 'x',
      'build/lib/x.py': PY,
      'out/x.js': 'x',
      '.next/x.js': 'x',
      'target/x.js': 'x',
      'mypkg.egg-info/x.py': PY,
      'coverage/x.js': 'x',
      'tools/build/__init__.py': '', // a Python package named build is source, not output
      'tools/build/main.py': PY,
      'pkg/mod.py': PY,
    });
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['pkg/mod.py', 'tools/build/__init__.py', 'tools/build/main.py']);
    expect(skips(r)).toEqual([
      ['.git', 'vcs'],
      ['.hg', 'vcs'],
      ['.mypy_cache', 'cache'],
      ['.next', 'build_output'],
      ['.nox', 'virtualenv'],
      ['.pytest_cache', 'cache'],
      ['.tox', 'virtualenv'],
      ['__pycache__', 'cache'],
      ['build', 'build_output'],
      ['coverage', 'build_output'],
      ['dist', 'build_output'],
      ['lib/python3.11/site-packages', 'dependencies'],
      ['mypkg.egg-info', 'build_output'],
      ['node_modules', 'dependencies'],
      ['out', 'build_output'],
      ['pkg/__pycache__', 'cache'],
      ['target', 'build_output'],
      ['web/node_modules', 'dependencies'],
    ]);
    expect(r.skipped.every((s) => s.isDir)).toBe(true);
  });

  it('detects virtualenvs by pyvenv.cfg, bin/activate or conda-meta, but keeps ordinary folders named venv/env', async () => {
    const root = await repo({
      'myenv/pyvenv.cfg': 'home = /usr/bin\n',
      'myenv/lib/x.py': PY,
      '.venv/bin/activate': '# activate\n',
      '.venv/lib/x.py': PY,
      'condaenv/conda-meta/history': '',
      'condaenv/x.py': PY,
      'env/settings.py': PY, // no marker: an ordinary package called env
      'venv/__init__.py': '', // e.g. the stdlib's own venv package
      'venv/scripts/common/activate': '# template\n',
      'other/bin/activate': '# not a venv name, no pyvenv.cfg\n',
      'other/x.py': PY,
    });
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['env/settings.py', 'other/x.py', 'venv/__init__.py']);
    expect(skips(r)).toEqual([
      ['.venv', 'virtualenv'],
      ['condaenv', 'virtualenv'],
      ['myenv', 'virtualenv'],
    ]);
    expect(skipOf(r, 'myenv')!.detail).toMatch(/pyvenv\.cfg/);
    expect(skipOf(r, '.venv')!.detail).toMatch(/bin\/activate/);
  });
});

// ───────────────────────────────────────────────────────────── content classification

describe('walkRepository: content hazards', () => {
  it('skips binary, minified, generated and too-large files with a reason', async () => {
    const longLine = `var a=${'[1,2,3],'.repeat(400)}0;`;
    const root = await repo({
      'nul.py': Buffer.concat([Buffer.from('x = 1\n'), Buffer.from([0, 0, 1, 2]), Buffer.from('y\n')]),
      'garbage.ts': Buffer.from(Array.from({ length: 3000 }, (_, i) => 0x80 + ((i * 37) % 64))),
      'latin1.py': Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\nx = 1\n')]),
      'koi8.py': Buffer.concat([Buffer.from('# -*- coding: koi8-r -*-\ns = "'), Buffer.alloc(200, 0xd4), Buffer.from('"\n')]),
      'app.min.js': 'var a=1;\n',
      'bundle.js': `${longLine}\n`,
      'table.py': `T = [${'1, '.repeat(600)}]\n`, // long lines in Python are not "minified"
      'mostly_normal.ts': `${'export const a = 1;\n'.repeat(100)}export const blob = "${'x'.repeat(1500)}";\n${'export const b = 2;\n'.repeat(100)}`,
      'migrations/0001_initial.py': '# Generated by Django 4.2 on 2024-01-01 10:00\n\nfrom django.db import migrations\n',
      'api.ts': '// Code generated by protoc-gen-ts. DO NOT EDIT.\nexport const x = 1;\n',
      'schema.js': '/**\n * Copyright Meta\n *\n * @generated SignedSource<<abc>>\n */\nexports.x = 1;\n',
      'msg_pb2.py': 'x = 1\n',
      // A "generated" statement alone no longer skips a small module (issue 15: CPython's Lib/token.py) ...
      'auto.py': '#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# This file was automatically generated from spec.yaml\nx = 1\n',
      // ... the same header over a large literal table still does.
      'auto_table.py': `#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# This file was automatically generated from spec.yaml\nT = {\n${Array.from({ length: 600 }, (_, i) => `    ${i}: 'u${i}',\n`).join('')}}\n`,
      'wrapped.py': '# Map names so that pickle streams\n# generated with Python 2 load in Python 3.\nx = 1\n',
      'mentions.ts': 'export const marker = "@generated";\n// Generated by nobody: this comment comes after code\n',
      'big.py': `x = 1\n${'# pad\n'.repeat(400)}`,
    });
    const r = await walkRepository(root, { maxFileBytes: 2000 });
    expect(paths(r)).toEqual(['auto.py', 'koi8.py', 'latin1.py', 'mentions.ts', 'table.py', 'wrapped.py']);
    expect(skips(r)).toEqual([
      ['api.ts', 'generated'],
      ['app.min.js', 'minified'],
      ['auto_table.py', 'too_large'],
      ['big.py', 'too_large'],
      ['bundle.js', 'too_large'], // 3.2 KB > 2000 bytes: size is checked before content
      ['garbage.ts', 'too_large'],
      ['migrations/0001_initial.py', 'generated'],
      ['mostly_normal.ts', 'too_large'],
      ['msg_pb2.py', 'generated'],
      ['nul.py', 'binary'],
      ['schema.js', 'generated'],
    ]);
    expect(skipOf(r, 'big.py')!.detail).toBe('2406 bytes > limit 2000');

    const wide = await walkRepository(root, { maxFileBytes: 1 << 20 });
    expect(skips(wide)).toEqual([
      ['api.ts', 'generated'],
      ['app.min.js', 'minified'],
      ['auto_table.py', 'generated'],
      ['bundle.js', 'minified'],
      ['garbage.ts', 'binary'],
      ['migrations/0001_initial.py', 'generated'],
      ['msg_pb2.py', 'generated'],
      ['nul.py', 'binary'],
      ['schema.js', 'generated'],
    ]);
    expect(skipOf(wide, 'auto_table.py')!.detail).toMatch(/automatically generated from spec\.yaml.* % of its code lines are literal data/);
    expect(paths(wide)).toEqual(['auto.py', 'big.py', 'koi8.py', 'latin1.py', 'mentions.ts', 'mostly_normal.ts', 'table.py', 'wrapped.py']);
  });

  it('defaults the size limit to 1 MiB', async () => {
    const root = await repo({ 'small.py': `x = 1\n${'#'.repeat(1024 * 1024 - 7)}\n`, 'large.py': `x = 1\n${'#'.repeat(1024 * 1024)}\n` });
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['small.py']);
    expect(skips(r)).toEqual([['large.py', 'too_large']]);
  });
});

describe('classifyContent', () => {
  const c = (rel: string, text: string | Buffer, size?: number) => {
    const buf = typeof text === 'string' ? Buffer.from(text) : text;
    return classifyContent(rel, buf, size ?? buf.length);
  };
  it('binary', () => {
    expect(c('a.py', Buffer.from([0x61, 0x00, 0x62]))).toBe('binary');
    expect(c('a.py', Buffer.from(Array.from({ length: 500 }, (_, i) => (i % 2 ? 0x01 : 0x41))))).toBe('binary');
    expect(c('a.py', 'x = "héllo"\n')).toBeNull();
    expect(c('a.py', '')).toBeNull();
  });
  it('does not call a head binary because its last character was cut in half', () => {
    const text = Buffer.from(`${'é'.repeat(4000)}`); // 8000 bytes of 2-byte characters
    const head = text.subarray(0, 4095); // cut in the middle of a character
    expect(c('a.py', head, 8000)).toBeNull();
  });
  it('generated headers', () => {
    expect(c('a.py', '# Generated by the protocol buffer compiler.\n')).toBe('generated');
    // A statement alone on a small module is not enough (issue 15): this was 'generated' before.
    expect(c('a.py', '"""Auto-generated by tools/gen.py"""\nx = 1\n')).toBeNull();
    expect(c('a.py', '"""Auto-generated by tools/gen.py"""\nx = 1\n', 70_000)).toBe('generated');
    expect(c('a.ts', '/* eslint-disable */\n// This file is auto-generated, do not edit\n')).toBe('generated');
    expect(c('a.ts', '// THIS FILE IS AUTOMATICALLY GENERATED. DO NOT EDIT.\n')).toBe('generated');
    expect(c('a.ts', "'use strict';\n// @generated\nexports.a = 1;\n")).toBe('generated');
    expect(c('a_pb2_grpc.py', 'x = 1\n')).toBe('generated');
    expect(c('a_pb2.pyi', 'x: int\n')).toBe('generated');
    expect(c('a_pb.d.ts', 'export {}\n')).toBe('generated');
    expect(c('a.py', '# A generated-looking word in prose: values generated here are random.\n')).toBeNull();
    expect(c('a.py', 'x = 1\n# Generated by hand, later\n')).toBeNull();
    expect(c('a.py', '# Cache of generated files\nx = 1\n')).toBeNull();
  });
  it('minified', () => {
    expect(c('x.min.js', 'a')).toBe('minified');
    expect(c('x-min.mjs', 'a')).toBe('minified');
    expect(c('x.js', `a=${'1,'.repeat(700)}`)).toBe('minified');
    expect(c('x.py', `a=${'1,'.repeat(700)}`)).toBeNull();
    expect(c('x.js', `${'a=1;\n'.repeat(300)}`)).toBeNull();
  });
});

// ───────────────────────────────────────────────────────────── unreadable entries

describe('walkRepository: unreadable entries', () => {
  it('records an unreadable file (simulated EACCES through the io seam) and goes on', async () => {
    const root = await repo({ 'a.py': PY, 'b.py': PY, 'c.py': PY });
    const real = await fs.realpath(root);
    const r = await walkRepository(root, {
      io: {
        open: async (p, flags) => {
          if (p === path.join(real, 'b.py')) throw Object.assign(new Error(`EACCES: permission denied, open '${p}'`), { code: 'EACCES' });
          return new Promise<number>((resolve, reject) => fsOpen(p, flags, (e, fd) => (e ? reject(e) : resolve(fd))));
        },
      },
    });
    expect(paths(r)).toEqual(['a.py', 'c.py']);
    expect(skips(r)).toEqual([['b.py', 'unreadable']]);
    expect(skipOf(r, 'b.py')!.detail).toMatch(/EACCES/);
  });

  it('records an unreadable folder (simulated EACCES through the io seam) and goes on', async () => {
    const root = await repo({ 'a.py': PY, 'locked/b.py': PY, 'z/c.py': PY });
    const real = await fs.realpath(root);
    const r = await walkRepository(root, {
      io: {
        readdir: async (p): Promise<Dirent[]> => {
          if (p === path.join(real, 'locked')) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
          return fs.readdir(p, { withFileTypes: true });
        },
      },
    });
    expect(paths(r)).toEqual(['a.py', 'z/c.py']);
    expect(skips(r)).toEqual([['locked', 'unreadable']]);
    expect(skipOf(r, 'locked')!.isDir).toBe(true);
  });

  // chmod 000 does not stop root from reading, so this real-permission check only runs as an ordinary user.
  it.skipIf(isRoot)('records files and folders made unreadable with chmod 000 (skipped: running as root)', async () => {
    const root = await repo({ 'a.py': PY, 'secret.py': PY, 'closed/x.py': PY });
    await fs.chmod(path.join(root, 'secret.py'), 0o000);
    await fs.chmod(path.join(root, 'closed'), 0o000);
    try {
      const r = await walkRepository(root);
      expect(paths(r)).toEqual(['a.py']);
      expect(skips(r)).toEqual([
        ['closed', 'unreadable'],
        ['secret.py', 'unreadable'],
      ]);
    } finally {
      await fs.chmod(path.join(root, 'closed'), 0o755);
    }
  });
});

// ───────────────────────────────────────────────────────────── special files

describe('walkRepository: special files', () => {
  const haveMkfifo = process.platform !== 'win32' && hasCommand('mkfifo', ['--version']);

  it.skipIf(!haveMkfifo)(
    'skips a FIFO (and a symlink to it) without opening it, so the walk cannot hang',
    async () => {
      const root = await repo({ 'a.py': PY });
      execFileSync('mkfifo', [path.join(root, 'pipe.py')]);
      await fs.symlink('pipe.py', path.join(root, 'to_pipe.py'));
      const r = await walkRepository(root);
      expect(paths(r)).toEqual(['a.py']);
      expect(skips(r)).toEqual([
        ['pipe.py', 'special_file'],
        ['to_pipe.py', 'special_file'],
      ]);
    },
    10_000,
  );

  it.skipIf(process.platform === 'win32')('skips a unix socket', async () => {
    const root = await repo({ 'a.py': PY });
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'sock.py'), resolve));
    try {
      const r = await walkRepository(root);
      expect(paths(r)).toEqual(['a.py']);
      expect(skips(r)).toEqual([['sock.py', 'special_file']]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

// ───────────────────────────────────────────────────────────── symlinks

describe('walkRepository: symlinks', () => {
  it('skips links that leave the repository, loops and dangling links', async () => {
    const outside = await repo({ 'ext.py': PY, 'extdir/e.py': PY });
    const root = await repo({ 'a.py': PY, 'sub/b.py': PY });
    await fs.symlink(path.join(outside, 'ext.py'), path.join(root, 'out_file.py'));
    await fs.symlink(path.join(outside, 'extdir'), path.join(root, 'out_dir'));
    await fs.symlink('../..', path.join(root, 'sub/up_out')); // relative, climbs above the root
    await fs.symlink('.', path.join(root, 'self'));
    await fs.symlink('..', path.join(root, 'sub/up'));
    await fs.symlink('loop_b', path.join(root, 'loop_a'));
    await fs.symlink('loop_a', path.join(root, 'loop_b'));
    await fs.symlink('nowhere.py', path.join(root, 'dangling.py'));
    await fs.symlink('a.py/x', path.join(root, 'notdir.py'));
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['a.py', 'sub/b.py']);
    expect(skips(r)).toEqual([
      ['dangling.py', 'symlink_dangling'],
      ['loop_a', 'symlink_loop'],
      ['loop_b', 'symlink_loop'],
      ['notdir.py', 'symlink_dangling'],
      ['out_dir', 'symlink_outside'],
      ['out_file.py', 'symlink_outside'],
      ['self', 'symlink_loop'],
      ['sub/up', 'symlink_loop'],
      ['sub/up_out', 'symlink_outside'],
    ]);
    expect(skipOf(r, 'out_dir')!.isDir).toBe(true);
    expect(skipOf(r, 'dangling.py')!.detail).toMatch(/nowhere\.py/);
  });

  it('indexes a file only once: a link to a walked file is a duplicate, a link to an unwalked one is used', async () => {
    const root = await repo({
      '.gitignore': 'hidden/\n',
      'real.py': PY,
      'pkg/mod.ts': TS,
      'hidden/h.py': PY,
      'hidden/deep/d.py': PY,
    });
    await fs.symlink('real.py', path.join(root, 'alias.py'));
    await fs.symlink('../real.py', path.join(root, 'pkg/alias2.py'));
    await fs.symlink('pkg', path.join(root, 'pkg_link'));
    await fs.symlink('hidden/h.py', path.join(root, 'from_hidden.py'));
    await fs.symlink('hidden/deep', path.join(root, 'deep_link'));
    await fs.symlink('hidden/h.py', path.join(root, 'second_h.py'));
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['deep_link/d.py', 'from_hidden.py', 'pkg/mod.ts', 'real.py']);
    const byPath = new Map(r.files.map((f) => [f.relPath, f]));
    expect(byPath.get('from_hidden.py')!.realRelPath).toBe('hidden/h.py');
    expect(byPath.get('deep_link/d.py')!.realRelPath).toBe('hidden/deep/d.py');
    expect(byPath.get('real.py')!.realRelPath).toBeUndefined();
    expect(await fs.readFile(byPath.get('deep_link/d.py')!.absPath, 'utf8')).toBe(PY);
    expect(skips(r)).toEqual([
      ['alias.py', 'duplicate_symlink'],
      ['hidden', 'ignored'],
      ['pkg/alias2.py', 'duplicate_symlink'],
      ['pkg_link', 'duplicate_symlink'],
      ['second_h.py', 'duplicate_symlink'],
    ]);
    expect(skipOf(r, 'alias.py')!.detail).toBe('same file as real.py');
    expect(skipOf(r, 'pkg_link')!.isDir).toBe(true);
  });

  it('does not follow a link into an always-skipped folder', async () => {
    const root = await repo({ 'node_modules/pkg/index.js': 'x', '.venv/pyvenv.cfg': '', '.venv/lib/site.py': PY, 'a.py': PY });
    await fs.symlink('node_modules/pkg', path.join(root, 'pkg_link'));
    await fs.symlink('node_modules/pkg/index.js', path.join(root, 'index.js'));
    await fs.symlink('node_modules/pkg/index.js', path.join(root, 'index.txt'));
    await fs.symlink('.venv/lib', path.join(root, 'venvlib'));
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['a.py']);
    expect(skips(r)).toEqual([
      ['.venv', 'virtualenv'],
      ['index.js', 'dependencies'],
      ['node_modules', 'dependencies'],
      ['pkg_link', 'dependencies'],
      ['venvlib', 'virtualenv'],
    ]);
    expect(skipOf(r, 'pkg_link')!.detail).toBe('points into node_modules');
    expect(skipOf(r, 'venvlib')!.detail).toBe('points into .venv');
  });

  it('detects a loop that goes through a followed folder link', async () => {
    const root = await repo({ '.gitignore': 'hidden/\n', 'src/s.py': PY, 'hidden/h.py': PY });
    await fs.symlink('../hidden', path.join(root, 'src/h'));
    await fs.symlink('../src', path.join(root, 'hidden/back'));
    const r = await walkRepository(root);
    expect(paths(r)).toEqual(['src/h/h.py', 'src/s.py']);
    expect(skips(r)).toEqual([
      ['hidden', 'ignored'],
      ['src/h/back', 'symlink_loop'],
    ]);
  });

  it('symlinked root: checkRepositoryRoot returns the real path and the walk works through it', async () => {
    const root = await repo({ 'a.py': PY });
    const parent = await tmp();
    const link = path.join(parent, 'link');
    await fs.symlink(root, link);
    const real = await fs.realpath(root);
    expect(await checkRepositoryRoot(link)).toBe(real);
    const r = await walkRepository(link);
    expect(paths(r)).toEqual(['a.py']);
    expect(r.files[0]!.absPath).toBe(path.join(real, 'a.py'));
  });
});

// ───────────────────────────────────────────────────────────── root checks

describe('checkRepositoryRoot', () => {
  it('rejects a folder that does not exist', async () => {
    const parent = await tmp();
    const missing = path.join(parent, 'nope');
    await expect(checkRepositoryRoot(missing)).rejects.toMatchObject({
      name: 'RepositoryRootError',
      reason: 'not_found',
      message: `The repository folder does not exist: ${missing}`,
    });
    await expect(walkRepository(missing)).rejects.toBeInstanceOf(RepositoryRootError);
  });

  it('rejects a file', async () => {
    const root = await repo({ 'f.py': PY });
    const file = path.join(root, 'f.py');
    await expect(checkRepositoryRoot(file)).rejects.toMatchObject({
      reason: 'not_a_directory',
      message: `The repository path ${file} is a file, not a folder.`,
    });
    await expect(walkRepository(file)).rejects.toMatchObject({ reason: 'not_a_directory' });
  });

  it('rejects an empty path', async () => {
    await expect(checkRepositoryRoot('')).rejects.toMatchObject({ reason: 'not_found' });
  });

  it.skipIf(isRoot)('rejects a folder it cannot read (skipped: running as root, where permissions do not apply)', async () => {
    const root = await repo({ 'a.py': PY });
    await fs.chmod(root, 0o000);
    try {
      await expect(checkRepositoryRoot(root)).rejects.toMatchObject({ reason: 'permission_denied' });
    } finally {
      await fs.chmod(root, 0o755);
    }
  });

  it('accepts a folder and returns its real path', async () => {
    const root = await repo({ 'a.py': PY });
    expect(await checkRepositoryRoot(root)).toBe(await fs.realpath(root));
    expect(fsConstants.O_RDONLY).toBe(0); // sanity for the open flags used by the walk on POSIX
  });
});

// ───────────────────────────────────────────────────────────── cancellation

describe('walkRepository: cancellation', () => {
  it('rejects at once with an AbortError when the signal is already aborted', async () => {
    const root = await repo({ 'a.py': PY });
    const ac = new AbortController();
    ac.abort();
    await expect(walkRepository(root, { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('stops promptly when aborted mid-walk, even while a folder listing never returns', async () => {
    // 4 chains of 40 nested folders: each listing is slowed down, so the walk takes well over a second unaborted.
    const files: Record<string, string> = {};
    for (let c = 0; c < 4; c++) files[`${Array.from({ length: 40 }, (_, i) => `c${c}d${i}`).join('/')}/f.py`] = PY;
    const root = await repo(files);
    const ac = new AbortController();
    let listings = 0;
    const p = walkRepository(root, {
      signal: ac.signal,
      io: {
        readdir: async (dir) => {
          listings++;
          if (listings === 3) return new Promise<Dirent[]>(() => undefined); // one listing hangs forever
          await new Promise((resolve) => setTimeout(resolve, 10));
          return fs.readdir(dir, { withFileTypes: true });
        },
      },
    });
    setTimeout(() => ac.abort(), 80);
    // The third listing never settles: only the abort can end the walk.
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    const atReject = listings;
    expect(atReject).toBeGreaterThan(3);
    expect(atReject).toBeLessThan(120);
    // Nothing keeps walking in the background.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(listings).toBe(atReject);
  });

  it('finishes the slowed-down walk used above when not aborted (control for the test above)', async () => {
    const files: Record<string, string> = {};
    for (let c = 0; c < 2; c++) files[`${Array.from({ length: 10 }, (_, i) => `c${c}d${i}`).join('/')}/f.py`] = PY;
    const root = await repo(files);
    let listings = 0;
    const r = await walkRepository(root, {
      signal: new AbortController().signal,
      io: {
        readdir: async (dir) => {
          listings++;
          await new Promise((resolve) => setTimeout(resolve, 10));
          return fs.readdir(dir, { withFileTypes: true });
        },
      },
    });
    expect(r.files).toHaveLength(2);
    expect(listings).toBe(21);
  });

  it('aborting after completion changes nothing', async () => {
    const root = await repo({ 'a.py': PY });
    const ac = new AbortController();
    const r = await walkRepository(root, { signal: ac.signal });
    ac.abort();
    expect(paths(r)).toEqual(['a.py']);
  });
});
