// Strong mode's bubblewrap: the arguments of one sandbox (sandbox.ts starts it), and an isolated run's shared area.
//
// What every strong sandbox sees: a read-only root with /usr, the loader's folders and a few /etc files; private
// size-limited tmpfs /tmp, /dev/shm and /ws; the harness at /opencoder and the repository snapshot at /base, both
// read-only, with the candidate's covers over the snapshot; the task's interpreter read-only at its own path. An
// isolated run's two sandboxes (the tests' and the candidate's) instead bind one host folder of the run's own at /tmp
// and /dev/shm (sharedArea below), so the target sees the files the tests made there, as it would in-process.

import fs from 'node:fs';
import path from 'node:path';
import type { Limits } from '../model/verdict.ts';
import { processTempDir, removeTree } from './cleanup.ts';

/** What of a run bwrapArgs needs (a SandboxRunSpec's fields). */
export interface BwrapSpec {
  limits: Limits;
  repo: string | null;
  repoBytes?: number;
  overlays?: { rel: string; host: string }[];
  hidden?: { rel: string; dir: boolean }[];
  /** An isolated run's shared area (sharedArea): its tmp and shm folders become /tmp and /dev/shm. */
  shared?: string;
  /** The candidate's side of it: the tests' working-folder view (SHARED_CWD) read-only. */
  sharedReadOnly?: boolean;
}

/**
 * Inside the shared /tmp, the folder an isolated run's tests work in while their tests run: links to the repository's
 * top-level entries (each process resolves them to its own copy), and what the tests make there. The candidate sees it
 * read-only, live: the files the tests make in their working folder, at the same paths, none it could change.
 */
export const SHARED_CWD = '.opencoder-cwd';

// What of /etc the sandbox sees: the account list (tests look users and groups up; the
// passwords are in shadow, which stays out), name resolution for localhost, time zones, the
// loader cache, MIME types and Debian's python3.X site configuration.
const ETC_FILES = [
  'passwd',
  'group',
  'localtime',
  'timezone',
  'hosts',
  'nsswitch.conf',
  'host.conf',
  'gai.conf',
  'protocols',
  'services',
  'mime.types',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl',
  'ca-certificates',
];
let etcPython: string[] | null = null;
function etcFiles(): string[] {
  if (!etcPython) {
    try {
      etcPython = fs.readdirSync('/etc').filter((n) => /^python3(\.\d+)?$/.test(n));
    } catch {
      etcPython = [];
    }
  }
  return [...ETC_FILES, ...etcPython];
}

function rootEntries(): string[] {
  const out: string[] = [];
  for (const name of ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']) {
    const p = `/${name}`;
    try {
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out.push('--symlink', fs.readlinkSync(p), p);
      else if (st.isDirectory()) out.push('--ro-bind', p, p);
    } catch {
      /* absent */
    }
  }
  return out;
}

/**
 * What of the file system an interpreter needs, bound read-only at the same paths: the prefix of
 * the real executable (unless under /usr, which is bound anyway), and for a virtualenv its own
 * folder (pyvenv.cfg, site-packages) and the base interpreter's prefix that pyvenv.cfg names.
 */
export function interpreterDirs(python: string): string[] {
  const dirs = new Set<string>();
  const add = (exe: string) => {
    let real = exe;
    try {
      real = fs.realpathSync(exe);
    } catch {
      /* keep */
    }
    if (!real.startsWith('/usr/')) dirs.add(path.dirname(path.dirname(real)));
  };
  add(python);
  const venv = path.dirname(path.dirname(path.resolve(python)));
  try {
    const cfg = fs.readFileSync(path.join(venv, 'pyvenv.cfg'), 'utf8');
    dirs.add(venv);
    const home = /^\s*home\s*=\s*(.+?)\s*$/m.exec(cfg)?.[1];
    if (home) add(path.join(home, 'python3'));
  } catch {
    /* not a virtualenv */
  }
  return [...dirs].filter((d) => d !== '/' && !d.startsWith('/usr/') && d !== '/usr');
}

/**
 * bwrap's arguments up to `--`: a warm server (`server`) keeps its uid and may make user namespaces; every other
 * sandbox is uid 0 in its own user namespace, with none further.
 */
export function bwrapArgs(
  spec: BwrapSpec,
  o: { server: boolean; uid: number; gid: number; python: string; harnessHost: string; harness: string; env: Record<string, string> },
): string[] {
  const { limits } = spec;
  const wsBytes = limits.workspaceBytes + (spec.repoBytes ?? 0);
  // An isolated run's /tmp and /dev/shm: one host folder of the run's, bound in both of its sandboxes.
  const temp = spec.shared
    ? [
        '--bind',
        path.join(spec.shared, 'shm'),
        '/dev/shm',
        '--bind',
        path.join(spec.shared, 'tmp'),
        '/tmp',
        ...(spec.sharedReadOnly ? ['--ro-bind', path.join(spec.shared, 'tmp', SHARED_CWD), `/tmp/${SHARED_CWD}`] : []),
      ]
    : ['--size', String(limits.tmpBytes), '--tmpfs', '/dev/shm', '--size', String(limits.tmpBytes), '--tmpfs', '/tmp'];
  return [
    '--unshare-all',
    '--unshare-user',
    '--uid',
    String(o.uid),
    '--gid',
    String(o.gid),
    ...(o.server ? [] : ['--disable-userns']),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
    ...rootEntries(),
    '--dir',
    '/etc',
    ...etcFiles().flatMap((f) => ['--ro-bind-try', `/etc/${f}`, `/etc/${f}`]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...temp,
    '--size',
    String(wsBytes),
    '--tmpfs',
    '/ws',
    // after the private /tmp: a task's virtualenv may live under the host's /tmp
    ...interpreterDirs(o.python).flatMap((d) => ['--ro-bind', d, d]),
    '--ro-bind',
    o.harnessHost,
    o.harness,
    ...(spec.repo ? ['--ro-bind', spec.repo, '/base'] : []),
    ...(spec.repo ? repositoryCovers(spec) : []),
    '--chdir',
    '/ws',
    '--remount-ro',
    '/',
    // --dev makes /dev a tmpfs of its own, writable and without a size (bwrap's --size applies to --tmpfs only): a
    // candidate wrote 739 MiB there. Read-only, its device nodes still work; /dev/shm below it keeps its quota.
    '--remount-ro',
    '/dev',
    ...Object.entries(o.env).flatMap(([k, v]) => ['--setenv', k, v]),
    '--',
  ];
}

let sharedRoot: string | null = null;

/**
 * An isolated run's shared area (cold strong mode): a host folder of the run's own, holding `tmp` and `shm`, which
 * both of its sandboxes bind at /tmp and /dev/shm. It belongs to the sandbox's uid (`uid`; null: this process's own)
 * and is closed to every other user; `remove` takes it away with whatever the run left in it.
 */
export function sharedArea(uid: number | null, gid: number | null): { dir: string; remove: () => string | null } {
  if (!sharedRoot || !fs.existsSync(sharedRoot)) {
    sharedRoot = processTempDir('oc-share-');
    fs.chmodSync(sharedRoot, 0o711);
    const root = sharedRoot;
    process.once('exit', () => removeTree(root));
  }
  const dir = fs.mkdtempSync(path.join(sharedRoot, 'run-'));
  fs.chmodSync(dir, 0o711);
  for (const name of ['tmp', 'shm', `tmp/${SHARED_CWD}`]) {
    const p = path.join(dir, name);
    fs.mkdirSync(p, { mode: 0o700 });
    if (uid !== null) fs.chownSync(p, uid, gid ?? uid);
    fs.chmodSync(p, 0o700);
  }
  return { dir, remove: () => removeTree(dir) };
}

/** Binds over the repository at /base: masked files in place of originals, hidden paths emptied. */
function repositoryCovers(spec: BwrapSpec): string[] {
  const out: string[] = [];
  for (const h of spec.hidden ?? []) out.push(...(h.dir ? ['--tmpfs', `/base/${h.rel}`] : ['--ro-bind', '/dev/null', `/base/${h.rel}`]));
  for (const o of spec.overlays ?? []) out.push('--ro-bind', o.host, `/base/${o.rel}`);
  return out;
}
