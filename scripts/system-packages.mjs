// The system packages OpenCoder needs beyond what npm installs, each with the probe that says whether this machine
// has what the package provides. One list, read by the setup step (scripts/setup.mjs, run by `npm install`) and by
// the tests (test/helpers/system.ts), so a skipped test and the setup step always name the same package.
//
// Plain JavaScript with no dependencies: it runs from npm's postinstall, before anything is built.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Debian's interpreter: candidates and tests run under it (files under /root are out of the sandbox user's reach). */
export const SYSTEM_PYTHON = '/usr/bin/python3';

const onPath = (cmd) => {
  const r = spawnSync('/bin/sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
};
const python = (code) => fs.existsSync(SYSTEM_PYTHON) && spawnSync(SYSTEM_PYTHON, ['-c', code], { stdio: 'ignore' }).status === 0;

function venvWorks() {
  if (!fs.existsSync(SYSTEM_PYTHON)) return false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-venv-probe-'));
  try {
    return spawnSync(SYSTEM_PYTHON, ['-m', 'venv', '--without-pip', path.join(dir, 'v')], { stdio: 'ignore' }).status === 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An interpreter of Python 3.11 whose standard library ships CPython's own test suite (Debian's does with
 * libpython3.11-testsuite; pyenv's builds do): `{ python, stdlib }`, or null. OPENCODER_STDLIB_PYTHON is tried first.
 * @returns {{ python: string, stdlib: string } | null}
 */
export function cpythonTestSuite() {
  const which = spawnSync('/bin/sh', ['-c', 'command -v python3.11; command -v python3'], { encoding: 'utf8' }).stdout ?? '';
  const names = [process.env.OPENCODER_STDLIB_PYTHON, SYSTEM_PYTHON, ...which.split('\n')];
  const probe =
    "import os, sys, sysconfig; p = sysconfig.get_paths()['stdlib']; print(os.path.realpath(sys.executable) + '\\n' + p if os.path.exists(os.path.join(p, 'test', 'test_textwrap.py')) and sys.version_info[:2] == (3, 11) else '')";
  for (const name of names) {
    if (!name?.trim() || !fs.existsSync(name.trim())) continue;
    const r = spawnSync(name.trim(), ['-I', '-c', probe], { encoding: 'utf8' });
    const [py, stdlib] = (r.stdout ?? '').trim().split('\n');
    if (r.status === 0 && py && stdlib) return { python: py, stdlib };
  }
  return null;
}

/**
 * Each entry: the Debian package, what it is for, and a probe for what it provides (not for the package itself,
 * so another distribution's equivalent counts too).
 * @type {{ pkg: string, why: string, present: () => boolean }[]}
 */
export const SYSTEM_PACKAGES = [
  { pkg: 'python3', why: 'Debian’s /usr/bin/python3 runs candidates and their tests', present: () => fs.existsSync(SYSTEM_PYTHON) },
  { pkg: 'python3-venv', why: 'a task may name its own virtualenv (tested with one)', present: venvWorks },
  { pkg: 'bubblewrap', why: 'the strong sandbox (file-system, network and process isolation)', present: () => onPath('bwrap') },
  { pkg: 'util-linux', why: 'setpriv and unshare: the uid drop and the weak sandbox’s PID namespace', present: () => onPath('setpriv') && onPath('unshare') },
  { pkg: 'chromium', why: 'the end-to-end UI tests and the HTML report checks', present: () => fs.existsSync('/usr/bin/chromium') },
  { pkg: 'redis-server', why: 'the job queue (`--queue`) and its tests', present: () => onPath('redis-server') },
  { pkg: 'python3-botocore', why: 'one RepoExec-inline reference solution (RepoExec/91) imports it', present: () => python('import botocore') },
  {
    pkg: 'libpython3.11-testsuite',
    why: 'CPython’s own unittest suites, the standard library as a repository for the validator',
    present: () => cpythonTestSuite() !== null,
  },
  { pkg: 'python3-jinja2', why: 'a real third-party repository for the retrieval test-file mask test', present: () => python('import jinja2') },
];

const cache = new Map();

/** True when this machine has what the Debian package `pkg` provides (probed once per process). */
export function hasSystemPackage(pkg) {
  const entry = SYSTEM_PACKAGES.find((p) => p.pkg === pkg);
  if (!entry) throw new Error(`unknown system package "${pkg}" (scripts/system-packages.mjs lists them)`);
  if (!cache.has(pkg)) cache.set(pkg, entry.present());
  return cache.get(pkg);
}

/** The packages this machine lacks, in list order. */
export function missingSystemPackages() {
  return SYSTEM_PACKAGES.filter((p) => !hasSystemPackage(p.pkg));
}

/** The one command that installs `pkgs` on Debian or Ubuntu (with sudo unless running as root). */
export function installCommand(pkgs, root = process.getuid?.() === 0) {
  return `${root ? '' : 'sudo '}apt-get install -y --no-install-recommends ${pkgs.join(' ')}`;
}

/** The environment variable that makes `npm install` leave system packages alone. */
export const SKIP_ENV = 'OPENCODER_SKIP_SYSTEM_SETUP';
