// Fixtures built at most once per test run and shared by every test file (parallel workers included): the first
// file that asks builds it in the run's fixture folder (global-setup.ts) under a lock; the others wait for it. A
// builder that died leaves its lock behind, and the next caller takes over.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';

const LOCK_WAIT_MS = 300_000;
let processDir: string | undefined;

/** This run's fixture folder; outside vitest's global setup, a folder of this process. */
export function fixtureDir(): string {
  const provided = inject('fixtureDir') as string | undefined;
  if (provided) return provided;
  if (!processDir) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-fixtures-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    processDir = dir;
  }
  return processDir;
}

/** Creates the lock folder; false when another process holds it. */
function takeLock(lock: string): boolean {
  try {
    fs.mkdirSync(lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function lockOwner(lock: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8')) || null;
  } catch {
    return null; // not written yet, or the lock is already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The shared fixture `name` in this run's fixture folder (a file or a folder), made by `build` into a temporary path
 * that is then renamed into place, so no caller ever sees half of it.
 */
export async function oncePerRun(name: string, build: (tmp: string) => Promise<void>): Promise<string> {
  const target = path.join(fixtureDir(), name);
  const lock = `${target}.lock`;
  const started = Date.now();
  for (;;) {
    if (fs.existsSync(target)) return target;
    if (!takeLock(lock)) {
      const owner = lockOwner(lock);
      if (owner !== null && !alive(owner)) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`the shared fixture ${target} was not built within ${LOCK_WAIT_MS} ms`);
      else await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      if (!fs.existsSync(target)) {
        const tmp = `${target}.${process.pid}.tmp`;
        fs.rmSync(tmp, { recursive: true, force: true });
        await build(tmp);
        fs.renameSync(tmp, target);
      }
      return target;
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}
