// Removing a folder a candidate has worked in: it may have made folders unreadable (chmod 000),
// planted symlinks to files outside, or nested folders past PATH_MAX. Never follows a symlink.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Removes `root` and everything under it; returns null, or why it could not. */
export function removeTree(root: string): string | null {
  try {
    removeIteratively(root);
    return null;
  } catch (err) {
    // Very deep nesting (ENAMETOOLONG) and the like: rm's fts walks with *at() calls.
    if (fs.existsSync(root) || isDanglingLink(root)) {
      if (!isRoot()) spawnSync('chmod', ['-R', 'u+rwx', '--', root], { stdio: 'ignore' });
      const r = spawnSync('rm', ['-rf', '--one-file-system', '--', root], { stdio: 'ignore' });
      if (r.status === 0 && !fs.existsSync(root)) return null;
      return `could not remove ${root}: ${(err as Error).message}`;
    }
    return null;
  }
}

function isDanglingLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function removeIteratively(root: string): void {
  const root0 = lstatOrNull(root);
  if (!root0) return;
  if (!root0.isDirectory()) {
    fs.unlinkSync(root);
    return;
  }
  const noDac = isRoot();
  // Post-order walk with an explicit stack: a deep tree must not overflow the JS stack.
  const stack: { dir: string; listed: boolean }[] = [{ dir: root, listed: false }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.listed) {
      stack.pop();
      fs.rmdirSync(top.dir);
      continue;
    }
    top.listed = true;
    // lstat said directory; chmod by path only when we lack root's override (a non-root run's
    // candidate ran as us and has been killed, so nothing can swap the folder under us now).
    if (!noDac) fs.chmodSync(top.dir, 0o700);
    for (const name of fs.readdirSync(top.dir)) {
      const p = path.join(top.dir, name);
      const st = lstatOrNull(p);
      if (!st) continue;
      if (st.isDirectory()) stack.push({ dir: p, listed: false });
      else fs.unlinkSync(p);
    }
  }
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * A private folder under the temp folder named after this process (`<prefix><pid>-XXXXXX`).
 * Exit hooks do not run when a process is killed, so each new one first removes the folders of
 * processes that no longer exist.
 */
export function processTempDir(prefix: string): string {
  const tmp = os.tmpdir();
  const me = typeof process.getuid === 'function' ? process.getuid() : null;
  let names: string[] = [];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    /* nothing to sweep */
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)-/.exec(name.slice(prefix.length)) : null;
    if (!m || Number(m[1]) === process.pid || isAlive(Number(m[1]))) continue;
    const p = path.join(tmp, name);
    try {
      const st = fs.lstatSync(p);
      if (st.isDirectory() && (me === null || st.uid === me)) removeTree(p);
    } catch {
      /* gone meanwhile */
    }
  }
  return fs.mkdtempSync(path.join(tmp, `${prefix}${process.pid}-`));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The machine's shared, world-writable temp folders, where a weak run's candidate can leave files outside its workspace. */
const SHARED_TEMP = ['/tmp', '/var/tmp', '/dev/shm'];
/** How deep below / world-writable folders are looked for (once per process: ~2,000 folders, ~40 ms here). */
const WRITABLE_DEPTH = 3;
let writableMemo: string[] | null = null;

/**
 * Every world-writable folder within WRITABLE_DEPTH of / (not /proc or /sys; links not followed), besides the known
 * temp folders: /run/lock, a lab's 1777 drop folder, … A red team's candidate left files in /run/lock, which the
 * fixed list did not name. Folders below one already listed are left to the sweep, which goes into them.
 */
function worldWritableDirs(): string[] {
  if (writableMemo) return writableMemo;
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const p = path.join(dir, e.name);
      if (p === '/proc' || p === '/sys' || SHARED_TEMP.includes(p)) continue;
      const st = lstatOrNull(p);
      if (st && st.mode & 0o002) found.push(p);
      else if (depth < WRITABLE_DEPTH) walk(p, depth + 1);
    }
  };
  walk('/', 1);
  writableMemo = found;
  return found;
}

/**
 * Removes what a weak run's own uid left in the shared temp folders and the machine's other world-writable folders
 * (worldWritableDirs), and in world-writable folders below them, three levels down: files, folders and links it owns, never following a link. Without a file-system namespace a candidate
 * may write there, and a red-team candidate left some 480 MB behind. Only a uid the run had to itself (as root) says
 * what is the run's; without root, the candidate's files are this user's, and nothing can tell them apart.
 */
export function removeLeftovers(uid: number, extra: (string | null)[]): string[] {
  if (process.platform !== 'linux') return [];
  const problems: string[] = [];
  const sweep = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(p);
      } catch {
        continue;
      }
      if (st.uid === uid) {
        const problem = removeTree(p);
        if (problem) problems.push(problem);
      } else if (depth < 3 && st.isDirectory() && st.mode & 0o002) {
        sweep(p, depth + 1);
      }
    }
  };
  for (const dir of new Set([...SHARED_TEMP, os.tmpdir(), ...worldWritableDirs(), ...extra.filter((d): d is string => d !== null)])) sweep(dir, 0);
  return problems;
}
