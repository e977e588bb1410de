// The setup step `npm install` runs (scripts/setup.mjs) and the run's skip accounting (test/helpers/skip-reporter.ts).
// Packages go missing here by running the setup with a PATH that holds only node and a recording apt-get: the
// tools found on PATH (bwrap, setpriv, unshare, redis-server) are then missing, the rest are found by their paths.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import SkipReporter from '../helpers/skip-reporter.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const isRoot = process.getuid?.() === 0;

/** Runs the setup step with PATH = a folder holding node and an apt-get that logs its arguments (and fails `install` when told). */
function setup(env: Record<string, string> = {}, aptFails = false) {
  const bin = tmpDir('oc-setup-bin-');
  const log = path.join(bin, 'apt.log');
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  fs.writeFileSync(path.join(bin, 'apt-get'), `#!/bin/sh\necho "$@" >> ${JSON.stringify(log)}\n${aptFails ? '[ "$1" = install ] && exit 100\n' : ''}exit 0\n`, {
    mode: 0o755,
  });
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'setup.mjs')], {
    encoding: 'utf8',
    env: { PATH: bin, HOME: process.env.HOME ?? '/', ...env },
  });
  return { status: r.status, out: r.stdout + r.stderr, apt: fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '' };
}

describe.skipIf(process.platform !== 'linux')(`the setup step${process.platform === 'linux' ? '' : ' [skipped: not Linux]'}`, () => {
  it('names each missing package with what it is for, and never fails npm install', () => {
    const r = setup({}, true);
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/- bubblewrap: the strong sandbox/);
    expect(r.out).toMatch(/- redis-server: the job queue/);
    expect(r.out).toMatch(/- util-linux: setpriv and unshare/);
    if (isRoot) {
      // As root it installs through apt-get and says what is still missing (this apt-get installs nothing).
      expect(r.apt).toMatch(/^update -qq$/m);
      expect(r.apt).toMatch(/^install -y -qq --no-install-recommends bubblewrap util-linux (\S+ )*redis-server\b/m);
      expect(r.out).toMatch(
        /still missing \(apt-get install exited with 100\): bubblewrap, util-linux, (\S+, )*redis-server\b.* — run: apt-get install -y --no-install-recommends bubblewrap util-linux (\S+ )*redis-server/,
      );
    } else {
      expect(r.apt).toBe('');
      expect(r.out).toMatch(/sudo apt-get install -y --no-install-recommends bubblewrap util-linux (\S+ )*redis-server/);
    }
  });

  it('OPENCODER_SKIP_SYSTEM_SETUP leaves the system alone and still says what is missing', () => {
    const r = setup({ OPENCODER_SKIP_SYSTEM_SETUP: '1' });
    expect(r.status).toBe(0);
    expect(r.apt).toBe('');
    expect(r.out).toContain('OPENCODER_SKIP_SYSTEM_SETUP is set: not installing the missing system packages');
    expect(r.out).toMatch(/To install them: (sudo )?apt-get install -y --no-install-recommends bubblewrap util-linux (\S+ )*redis-server/);
  });
});

/** A finished run as the reporter sees it: test names and whether each was skipped. */
function runOf(tests: { name: string; skipped: boolean; suiteFailed?: boolean }[]): TestModule[] {
  const module = { type: 'module', state: () => 'passed' };
  const cases = tests.map((t) => ({
    fullName: t.name,
    result: () => ({ state: t.skipped ? 'skipped' : 'passed' }),
    parent: { type: 'suite', state: () => (t.suiteFailed ? 'failed' : 'passed'), parent: module },
  }));
  return [{ children: { allTests: () => cases } } as unknown as TestModule];
}

function report(modules: TestModule[], env: Record<string, string | undefined>): { out: string; exitCode: typeof process.exitCode } {
  const saved = { ...process.env };
  const savedCode = process.exitCode;
  const write = process.stdout.write;
  let out = '';
  Object.assign(process.env, env);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  process.exitCode = undefined;
  process.stdout.write = (chunk: string) => ((out += chunk), true);
  try {
    const r = new SkipReporter();
    r.onInit({ config: {} } as never);
    r.onTestRunEnd(modules);
    return { out, exitCode: process.exitCode };
  } finally {
    process.stdout.write = write;
    process.env = saved;
    process.exitCode = savedCode;
  }
}

describe('the skip count at the end of a run', () => {
  afterEach(() => {
    process.exitCode = undefined;
  });

  const modules = runOf([
    { name: 'e2e > the desktop UI [skipped: needs system package chromium] > opens', skipped: true },
    { name: 'e2e > the desktop UI [skipped: needs system package chromium] > reloads', skipped: true },
    { name: 'queue > bundles [skipped: needs system package redis-server] > publishes', skipped: true },
    { name: 'walk > rejects a folder it cannot read (skipped: running as root, where permissions do not apply)', skipped: true },
    { name: 'repoexec > all tasks [skipped: no benchmark data (../shared/bench, or OPENCODER_BENCH_DIR)]', skipped: true },
    { name: 'a test that ran', skipped: false },
    { name: 'suite > after a failing beforeAll', skipped: true, suiteFailed: true },
    { name: 'weak > a fork bomb [skipped: weak mode as another user (no uid drop)]', skipped: true },
  ]);

  it('counts the skips by reason and names the packages with their install command', () => {
    const { out } = report(modules, { CI: undefined, OPENCODER_SKIP_SYSTEM_SETUP: '1' });
    expect(out).toContain('Skipped 7 tests:');
    expect(out).toMatch(/ {3}1 {2}weak mode as another user \(no uid drop\)\n/);
    expect(out).toMatch(/ {3}1 {2}not run: its suite or file failed/);
    expect(out).toMatch(/ {3}2 {2}needs system package chromium\n/);
    expect(out).toMatch(/ {3}1 {2}needs system package redis-server\n/);
    expect(out).toMatch(/ {3}1 {2}running as root, where permissions do not apply\n/);
    expect(out).toMatch(/ {3}1 {2}no benchmark data/);
    expect(out).toContain('chromium: the end-to-end UI tests');
    expect(out).toMatch(/install: (sudo )?apt-get install -y --no-install-recommends chromium redis-server/);
  });

  it('fails the run under CI when a package is missing, and not for other skips', () => {
    const missing = report(modules, { CI: 'true' });
    expect(missing.exitCode).toBe(1);
    expect(missing.out).toContain('FAIL: 2 system packages missing (chromium, redis-server) and CI is set: every test must run');
    const others = report(runOf([{ name: 'x (skipped: running as root)', skipped: true }]), { CI: 'true' });
    expect(others.exitCode).toBeUndefined();
    expect(others.out).not.toContain('FAIL');
  });

  it('without CI: fails as root unless the system was meant to be left alone; never as another user', () => {
    const plain = report(modules, { CI: undefined, OPENCODER_SKIP_SYSTEM_SETUP: undefined });
    expect(plain.exitCode).toBe(isRoot && process.platform === 'linux' ? 1 : undefined);
    const skipped = report(modules, { CI: undefined, OPENCODER_SKIP_SYSTEM_SETUP: '1' });
    expect(skipped.exitCode).toBeUndefined();
  });

  it('says so when nothing was skipped', () => {
    expect(report(runOf([{ name: 'ran', skipped: false }]), { CI: 'true' }).out).toContain('Skipped: none');
  });
});
